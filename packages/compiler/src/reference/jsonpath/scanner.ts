import { isHighSurrogate, isLowSurrogate, isBlank, isDigit, isAlpha, hexValue, hexEscape, visible, SHORT_ESCAPES, SIMPLE_ESCAPES } from './chars.js';
import { ParseFailure } from './types.js';

/**
 * Parentheses, function calls and filters nest by recursion here; the cap keeps a hostile
 * path from exhausting the stack (the parser must never throw). Real paths nest a few levels.
 */
const MAX_NESTING = 64;

/**
 * The character level of the JSONPath parser: position, blank space, strings, member names,
 * nesting depth and the one way out, `fail`. The grammar levels extend it (filter.ts, parse.ts).
 */
export abstract class PathScanner {
  protected pos = 0;
  protected depth = 0;
  // Several grammar levels may look past the same blank run before one consumes it.
  private blankFrom = -1;
  private blankTo = -1;

  constructor(protected readonly text: string) {}

  /** `member-name-shorthand = name-first *name-char`. */
  protected parseMemberName(): string {
    const start = this.pos;
    this.pos = this.nameCharEnd(start);
    while (this.pos < this.text.length && (isDigit(this.text.charCodeAt(this.pos)) || this.isNameFirst(this.pos))) {
      this.pos = this.nameCharEnd(this.pos);
    }
    return this.text.slice(start, this.pos);
  }

  /** `name-first = ALPHA / "_" / %x80-D7FF / %xE000-10FFFF`; a lone surrogate is none of these. */
  protected isNameFirst(at: number): boolean {
    const code = this.text.charCodeAt(at);
    if (isAlpha(code) || code === 0x5f /* _ */) return true;
    if (code < 0x80 || Number.isNaN(code) || isLowSurrogate(code)) return false;
    if (isHighSurrogate(code)) {
      if (isLowSurrogate(this.text.charCodeAt(at + 1))) return true;
      this.fail(at, 1, `Unexpected lone surrogate U+${code.toString(16).toUpperCase()}, expected a complete character`);
    }
    return true;
  }

  protected nameCharEnd(at: number): number {
    return isHighSurrogate(this.text.charCodeAt(at)) ? at + 2 : at + 1;
  }

  /** A single- or double-quoted string literal with RFC 9535 escapes, decoded. */
  protected parseString(): string {
    const { text } = this;
    const start = this.pos;
    const quote = text.charCodeAt(start);
    const quoteChar = text[start]!;
    let out = '';
    let chunk = start + 1;
    let at = start + 1;
    for (;;) {
      if (at >= text.length) {
        this.fail(start, text.length - start, `Unexpected end of path inside a string, expected a closing ${quoteChar}`);
      }
      const code = text.charCodeAt(at);
      if (code === quote) break;
      if (code < 0x20) {
        this.fail(
          at,
          1,
          `Unexpected control character U+${code.toString(16).toUpperCase().padStart(4, '0')} in a string, expected it escaped as \`${SHORT_ESCAPES[text[at]!] ?? hexEscape(code)}\``,
        );
      }
      if (isHighSurrogate(code) && isLowSurrogate(text.charCodeAt(at + 1))) {
        at += 2;
        continue;
      }
      if (isHighSurrogate(code) || isLowSurrogate(code)) {
        this.fail(at, 1, `Unexpected lone surrogate U+${code.toString(16).toUpperCase()} in a string, expected a complete character`);
      }
      if (code !== 0x5c /* \ */) {
        at++;
        continue;
      }
      out += text.slice(chunk, at);
      const { decoded, end } = this.parseEscape(at, quote);
      out += decoded;
      at = end;
      chunk = at;
    }
    out += text.slice(chunk, at);
    this.pos = at + 1;
    return out;
  }

  protected parseEscape(at: number, quote: number): { decoded: string; end: number } {
    const { text } = this;
    const code = text.charCodeAt(at + 1);
    const decoded = SIMPLE_ESCAPES[code];
    if (decoded !== undefined) return { decoded, end: at + 2 };
    if (code === quote) return { decoded: String.fromCharCode(quote), end: at + 2 };
    if (code === 0x75 /* u */) {
      const first = this.hex4(at);
      if (isLowSurrogate(first)) {
        this.fail(at, 6, `Unexpected lone low surrogate ${this.quote(at, at + 6)}, expected it after a high surrogate escape`);
      }
      if (!isHighSurrogate(first)) return { decoded: String.fromCharCode(first), end: at + 6 };
      const second = text.charCodeAt(at + 6) === 0x5c && text.charCodeAt(at + 7) === 0x75 ? this.hex4(at + 6) : -1;
      if (!isLowSurrogate(second)) {
        this.fail(at, 6, `Unexpected lone high surrogate ${this.quote(at, at + 6)}, expected it followed by a low surrogate escape \`\\uDC00\`–\`\\uDFFF\``);
      }
      return { decoded: String.fromCharCode(first, second), end: at + 12 };
    }
    if (at + 1 >= text.length) {
      this.fail(at, 1, 'Unexpected end of path after `\\`, expected an escape');
    }
    if (code < 0x20) {
      this.fail(at + 1, 1, `Unexpected ${this.describe(at + 1)} after \`\\\`, expected an escape such as \`\\n\` or \`\\u000A\``);
    }
    const other = quote === 0x27 ? '"' : "'";
    const hint = code === other.charCodeAt(0) ? `; ${other} needs no escape here` : '';
    this.fail(
      at,
      this.nameCharEnd(at + 1) - at,
      `Unexpected escape ${this.quote(at, this.nameCharEnd(at + 1))}, expected one of \`\\b\`, \`\\f\`, \`\\n\`, \`\\r\`, \`\\t\`, \`\\/\`, \`\\\\\`, \`\\${String.fromCharCode(quote)}\` or \`\\uXXXX\`${hint}`,
    );
  }

  /** The code unit of `\uXXXX` at `at`. */
  protected hex4(at: number): number {
    let value = 0;
    for (let i = at + 2; i < at + 6; i++) {
      const digit = hexValue(this.text.charCodeAt(i));
      if (digit < 0) {
        this.fail(i, i < this.text.length ? 1 : 0, `Unexpected ${this.describe(i)} in \`\\u\` escape, expected four hexadecimal digits`);
      }
      value = value * 16 + digit;
    }
    return value;
  }

  protected enter(at: number): void {
    if (++this.depth > MAX_NESTING) {
      this.fail(at, 1, `Unexpected nesting deeper than ${MAX_NESTING} levels of filters, parentheses and function calls, expected a shallower expression`);
    }
  }

  protected skipBlank(): boolean {
    const end = this.blankEnd(this.pos);
    const skipped = end > this.pos;
    this.pos = end;
    return skipped;
  }

  protected blankEnd(from: number): number {
    if (from === this.blankFrom) return this.blankTo;
    let at = from;
    while (isBlank(this.text.charCodeAt(at))) at++;
    this.blankFrom = from;
    this.blankTo = at;
    return at;
  }

  protected describe(at: number): string {
    if (at >= this.text.length) return 'end of path';
    const code = this.text.charCodeAt(at);
    if (isBlank(code)) return 'blank space';
    if (code < 0x20 || code === 0x7f) return `control character U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
    if (isLowSurrogate(code) || (isHighSurrogate(code) && !isLowSurrogate(this.text.charCodeAt(at + 1)))) {
      return `lone surrogate U+${code.toString(16).toUpperCase()}`;
    }
    return this.quote(at, this.nameCharEnd(at));
  }

  /** The text between `start` and `end` in backticks, shortened when long. */
  protected quote(start: number, end: number): string {
    const LIMIT = 40;
    let shown = this.text.slice(start, Math.min(end, start + LIMIT));
    if (end - start > LIMIT) {
      if (isHighSurrogate(shown.charCodeAt(shown.length - 1))) shown = shown.slice(0, -1);
      shown += '…';
    }
    return `\`${visible(shown)}\``;
  }

  protected fail(offset: number, length: number, message: string): never {
    const clamped = Math.max(0, Math.min(length, this.text.length - offset));
    throw new ParseFailure({ message, offset, length: clamped, kind: 'syntax' });
  }
}
