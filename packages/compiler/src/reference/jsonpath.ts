/**
 * Singular absolute JSONPath (PATH-1, PATH-3).
 *
 * The accepted profile is `$` followed by name and index segments only, but the parser
 * recognises the whole of RFC 9535 (filters with their function type rules included).
 * It has to: the compiler tells a valid query that is merely not singular ("only singular
 * paths are allowed") apart from text that is not JSONPath at all, and only a full parse
 * can say which one `$..a[?@.b == 01]` is.
 */

export type PathSegment = { kind: 'name'; name: string } | { kind: 'index'; index: number };

export interface SingularPath {
  segments: PathSegment[];
  text: string;
}

export interface PathError {
  /** "Unexpected X, expected Y". */
  message: string;
  /** 0-based UTF-16 offset into the path text of the offending segment or character. */
  offset: number;
  /** Length of the offending part, at least 1 except at the end of the text. */
  length: number;
  /**
   * `non-singular`: valid RFC 9535, but uses a wildcard, filter, slice, union or descendant
   * segment (function calls can only occur inside a filter, which is what gets reported).
   */
  kind: 'syntax' | 'non-singular';
}

export type ParseResult = { ok: true; path: SingularPath } | { ok: false; error: PathError };

export type EvalResult = { found: true; value: unknown } | { found: false; at: number };

/** I-JSON (RFC 7493) exact integers: RFC 9535 limits indices and slice bounds to them. */
const MAX_INT = 2 ** 53 - 1;
const MAX_INT_DIGITS = 16;

/**
 * Parentheses, function calls and filters nest by recursion here; the cap keeps a hostile
 * path from exhausting the stack (the parser must never throw). Real paths nest a few levels.
 */
const MAX_NESTING = 64;

const EXPECTED_SINGULAR = 'expected a name or index segment (singular paths only)';
const EXPECTED_SELECTOR = 'expected a selector: a quoted name, an index, `*`, a slice or a filter';
const EXPECTED_OPERAND = 'expected a literal, a query (`@…` or `$…`) or a function call';
const COMPARABLE = 'a literal, a singular query or a function returning a value';

type NonSingular = 'wildcard' | 'filter' | 'slice' | 'union' | 'descendant segment';

type Selector =
  | { kind: 'name'; name: string }
  | { kind: 'index'; index: number }
  | { kind: 'wildcard' | 'slice' | 'filter' };

type FunctionType = 'value' | 'logical' | 'nodes';

/** `spaced`: singular but for blank space inside a bracket, which RFC 9535 `singular-query` excludes. */
type QueryShape = 'singular' | 'spaced' | 'other';

/** What an expression turned out to be, so that its context can apply the RFC 9535 type rules. */
type Operand = { start: number; end: number } & (
  | { kind: 'literal' }
  | { kind: 'query'; shape: QueryShape }
  | { kind: 'function'; name: string; result: FunctionType }
  | { kind: 'logical' }
);

/** RFC 9535 section 2.4: the five functions every implementation knows; no extensions here. */
const FUNCTIONS: Record<string, { params: readonly FunctionType[]; result: FunctionType }> = {
  length: { params: ['value'], result: 'value' },
  count: { params: ['nodes'], result: 'value' },
  match: { params: ['value', 'value'], result: 'logical' },
  search: { params: ['value', 'value'], result: 'logical' },
  value: { params: ['nodes'], result: 'value' },
};

const FUNCTION_LIST = '`length`, `count`, `match`, `search` or `value`';

/** Unwinding by exception keeps the recursive descent free of error plumbing; it never escapes parseSingularPath. */
class ParseFailure {
  constructor(readonly error: PathError) {}
}

/**
 * Parses a singular absolute JSONPath. Blank space is accepted where RFC 9535 allows it
 * (before each segment, inside brackets) but not around the whole path. Never throws;
 * runs in time linear in the length of `text`.
 */
export function parseSingularPath(text: string): ParseResult {
  const parser = new Parser(text);
  try {
    return { ok: true, path: parser.parse() };
  } catch (caught) {
    if (caught instanceof ParseFailure) return { ok: false, error: caught.error };
    throw caught;
  }
}

/**
 * Follows `path` into `value`. A member missing from an object, an index outside an array,
 * or either applied to the wrong kind of value is "missing" (PATH-3); `null` is data.
 * Negative indices count from the end. `undefined` is not JSON, so it counts as missing.
 */
export function evaluatePath(path: SingularPath, value: unknown): EvalResult {
  let current = value;
  for (let at = 0; at < path.segments.length; at++) {
    const segment = path.segments[at]!;
    let next: unknown;
    if (segment.kind === 'name') {
      if (typeof current !== 'object' || current === null || Array.isArray(current)) return { found: false, at };
      // Own members only: `constructor` or `__proto__` must not reach the prototype.
      if (!Object.prototype.hasOwnProperty.call(current, segment.name)) return { found: false, at };
      next = (current as Record<string, unknown>)[segment.name];
    } else {
      if (!Array.isArray(current)) return { found: false, at };
      const index = segment.index < 0 ? current.length + segment.index : segment.index;
      if (index < 0 || index >= current.length || !(index in current)) return { found: false, at };
      next = current[index];
    }
    if (next === undefined) return { found: false, at };
    current = next;
  }
  return { found: true, value: current };
}

/**
 * Writes segments in the RFC 9535 normalized path form (section 2.7): `$['a'][0]`.
 * Negative indices have no normalized form and are written as they are (`[-1]`); a name
 * holding a lone surrogate cannot be written in RFC 9535 at all and gets a `\uXXXX` escape.
 */
export function formatPath(segments: PathSegment[]): string {
  let out = '$';
  for (const segment of segments) {
    out += segment.kind === 'index' ? `[${segment.index}]` : `['${escapeName(segment.name)}']`;
  }
  return out;
}

/** `escapable` of RFC 9535 section 2.3.1.1 besides the quotes and `\u`, by code unit after the backslash. */
const SIMPLE_ESCAPES: Record<number, string> = {
  0x62: '\b',
  0x66: '\f',
  0x6e: '\n',
  0x72: '\r',
  0x74: '\t',
  0x2f: '/',
  0x5c: '\\',
};

const SHORT_ESCAPES: Record<string, string> = {
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  "'": "\\'",
  '\\': '\\\\',
};

function escapeName(name: string): string {
  let out = '';
  for (let i = 0; i < name.length; i++) {
    const ch = name[i]!;
    const code = name.charCodeAt(i);
    const short = SHORT_ESCAPES[ch];
    if (short !== undefined) out += short;
    else if (code < 0x20) out += hexEscape(code);
    else if (isHighSurrogate(code) && isLowSurrogate(name.charCodeAt(i + 1))) {
      out += name.slice(i, i + 2);
      i++;
    } else if (isHighSurrogate(code) || isLowSurrogate(code)) out += hexEscape(code);
    else out += ch;
  }
  return out;
}

const VISIBLE_BLANKS: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** Messages are single lines, so quoted path text shows line breaks and control characters escaped. */
function visible(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f]/g, (ch) => VISIBLE_BLANKS[ch] ?? hexEscape(ch.charCodeAt(0)));
}

function hexEscape(code: number): string {
  return `\\u${code.toString(16).padStart(4, '0')}`;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

function isBlank(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

function isAlpha(code: number): boolean {
  return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}

function isLowerAlpha(code: number): boolean {
  return code >= 0x61 && code <= 0x7a;
}

function hexValue(code: number): number {
  if (isDigit(code)) return code - 0x30;
  if (code >= 0x41 && code <= 0x46) return code - 0x37;
  if (code >= 0x61 && code <= 0x66) return code - 0x57;
  return -1;
}

class Parser {
  private pos = 0;
  private depth = 0;
  private readonly segments: PathSegment[] = [];
  private firstNonSingular: { construct: NonSingular; start: number; end: number } | undefined;
  // Several grammar levels may look past the same blank run before one consumes it.
  private blankFrom = -1;
  private blankTo = -1;

  constructor(private readonly text: string) {}

  parse(): SingularPath {
    const { text } = this;
    if (text.charCodeAt(0) !== 0x24 /* $ */) {
      if (text.length > 0 && isBlank(text.charCodeAt(0))) {
        this.fail(0, this.blankEnd(0), 'Unexpected blank space before `$`, expected the path to start with `$`');
      }
      this.fail(0, 1, `Unexpected ${this.describe(0)}, expected \`$\``);
    }
    this.pos = 1;
    this.parseSegments(true);
    if (this.pos < text.length) {
      const after = this.blankEnd(this.pos);
      if (after === text.length) {
        this.fail(this.pos, after - this.pos, 'Unexpected blank space at the end of the path, expected nothing after the last segment');
      }
      this.fail(after, 1, `Unexpected ${this.describe(after)}, expected \`.\`, \`[\` or the end of the path`);
    }
    const first = this.firstNonSingular;
    if (first !== undefined) {
      throw new ParseFailure({
        message: `Unexpected ${first.construct} ${this.quote(first.start, first.end)}, ${EXPECTED_SINGULAR}`,
        offset: first.start,
        length: first.end - first.start,
        kind: 'non-singular',
      });
    }
    return { segments: this.segments, text };
  }

  /**
   * `segments = *(S segment)`. Blank space is consumed only when a segment follows it,
   * because after a query inside a filter it belongs to the operator that comes next.
   * Returns how far the segments fit RFC 9535 `singular-query-segments`.
   */
  private parseSegments(top: boolean): QueryShape {
    let shape: QueryShape = 'singular';
    for (;;) {
      const after = this.blankEnd(this.pos);
      const code = this.text.charCodeAt(after);
      if (code !== 0x2e /* . */ && code !== 0x5b /* [ */) return shape;
      this.pos = after;
      const start = after;
      const result = this.parseSegment();
      if (result.kind === 'singular') {
        // `singular-query` in a filter has no blank space inside brackets; PATH-1 allows it
        // at the top level because RFC 9535 allows it in any bracketed selection.
        if (result.spaced && shape === 'singular') shape = 'spaced';
        if (top) this.segments.push(result.segment);
      } else {
        shape = 'other';
        if (top && this.firstNonSingular === undefined) {
          this.firstNonSingular = { construct: result.construct, start, end: this.pos };
        }
      }
    }
  }

  private parseSegment():
    | { kind: 'singular'; segment: PathSegment; spaced: boolean }
    | { kind: 'other'; construct: NonSingular } {
    const { text } = this;
    const start = this.pos;
    if (text.charCodeAt(start) === 0x5b /* [ */) {
      const { selectors, spaced } = this.parseBracketed();
      if (selectors.length > 1) return { kind: 'other', construct: 'union' };
      const only = selectors[0]!;
      if (only.kind === 'name') return { kind: 'singular', segment: only, spaced };
      if (only.kind === 'index') return { kind: 'singular', segment: only, spaced };
      return { kind: 'other', construct: only.kind };
    }
    if (text.charCodeAt(start + 1) === 0x2e /* .. */) {
      this.pos = start + 2;
      const code = text.charCodeAt(this.pos);
      if (code === 0x5b /* [ */) this.parseBracketed();
      else if (code === 0x2a /* * */) this.pos++;
      else if (this.isNameFirst(this.pos)) this.parseMemberName();
      else this.failAfterDot('..', 'a member name, `*` or `[`');
      return { kind: 'other', construct: 'descendant segment' };
    }
    this.pos = start + 1;
    if (text.charCodeAt(this.pos) === 0x2a /* * */) {
      this.pos++;
      return { kind: 'other', construct: 'wildcard' };
    }
    if (!this.isNameFirst(this.pos)) this.failAfterDot('.', 'a member name or `*`');
    return { kind: 'singular', segment: { kind: 'name', name: this.parseMemberName() }, spaced: false };
  }

  private failAfterDot(dot: string, expected: string): never {
    const at = this.pos;
    const code = this.text.charCodeAt(at);
    if (isBlank(code)) {
      this.fail(at, this.blankEnd(at) - at, `Unexpected blank space after \`${dot}\`, expected ${expected} right after it`);
    }
    if (isDigit(code)) {
      this.fail(at, 1, `Unexpected ${this.describe(at)} after \`${dot}\`, expected ${expected}; a name starting with a digit needs brackets, e.g. \`['1']\``);
    }
    this.fail(at, 1, `Unexpected ${this.describe(at)} after \`${dot}\`, expected ${expected}`);
  }

  /** `"[" S selector *(S "," S selector) S "]"`; `spaced` tells whether any S was present. */
  private parseBracketed(): { selectors: Selector[]; spaced: boolean } {
    this.pos++;
    let spaced = this.skipBlank();
    const selectors: Selector[] = [];
    for (;;) {
      selectors.push(this.parseSelector());
      if (this.skipBlank()) spaced = true;
      const code = this.text.charCodeAt(this.pos);
      if (code === 0x5d /* ] */) {
        this.pos++;
        return { selectors, spaced };
      }
      if (code !== 0x2c /* , */) {
        this.fail(this.pos, 1, `Unexpected ${this.describe(this.pos)}, expected \`,\` or \`]\``);
      }
      this.pos++;
      this.skipBlank();
    }
  }

  private parseSelector(): Selector {
    const { text } = this;
    const start = this.pos;
    const code = text.charCodeAt(start);
    if (code === 0x27 /* ' */ || code === 0x22 /* " */) return { kind: 'name', name: this.parseString() };
    if (code === 0x2a /* * */) {
      this.pos++;
      return { kind: 'wildcard' };
    }
    if (code === 0x3f /* ? */) {
      this.enter(start);
      this.pos++;
      this.skipBlank();
      this.requireLogical(this.parseLogicalOr(), 'as a filter');
      this.depth--;
      return { kind: 'filter' };
    }
    if (code === 0x2d /* - */ || isDigit(code) || code === 0x3a /* : */) return this.parseIndexOrSlice();
    if (code === 0x40 /* @ */ || code === 0x24 /* $ */) {
      this.fail(start, 1, `Unexpected ${this.describe(start)}, ${EXPECTED_SELECTOR}; a filter starts with \`?\``);
    }
    this.fail(start, 1, `Unexpected ${this.describe(start)}, ${EXPECTED_SELECTOR}`);
  }

  /** `index-selector = int`, `slice-selector = [start S] ":" S [end S] [":" [S step]]`. */
  private parseIndexOrSlice(): Selector {
    const first = this.parseInt('index');
    const afterFirst = this.pos;
    this.skipBlank();
    if (this.text.charCodeAt(this.pos) !== 0x3a /* : */) {
      if (first === undefined) this.fail(this.pos, 1, `Unexpected ${this.describe(this.pos)}, ${EXPECTED_SELECTOR}`);
      const next = this.text.charCodeAt(afterFirst);
      if (next === 0x2e /* . */ || next === 0x65 || next === 0x45 /* e E */) {
        this.fail(afterFirst, 1, `Unexpected ${this.describe(afterFirst)} after index \`${first}\`, expected \`,\` or \`]\`; an index is an integer without fraction or exponent`);
      }
      this.pos = afterFirst;
      return { kind: 'index', index: first };
    }
    this.pos++;
    this.skipBlank();
    this.parseInt('slice bound');
    this.skipBlank();
    if (this.text.charCodeAt(this.pos) === 0x3a /* : */) {
      this.pos++;
      this.skipBlank();
      this.parseInt('slice step');
    }
    return { kind: 'slice' };
  }

  /** `int = "0" / (["-"] DIGIT1 *DIGIT)` within the I-JSON range, or undefined if absent. */
  private parseInt(what: string): number | undefined {
    const { text } = this;
    const start = this.pos;
    let at = start;
    if (text.charCodeAt(at) === 0x2d /* - */) {
      at++;
      if (!isDigit(text.charCodeAt(at))) {
        this.fail(at, 1, `Unexpected ${this.describe(at)} after \`-\`, expected a digit right after it`);
      }
    }
    const digitsStart = at;
    while (isDigit(text.charCodeAt(at))) at++;
    if (at === digitsStart) return undefined;
    const digits = text.slice(digitsStart, at);
    if (digits.length > 1 && digits.startsWith('0')) {
      this.fail(start, at - start, `Unexpected leading zero in ${what} ${this.quote(start, at)}, expected an integer without leading zeros`);
    }
    if (digits === '0' && digitsStart > start) {
      this.fail(start, at - start, `Unexpected negative zero \`-0\` as ${what}, expected \`0\``);
    }
    if (digits.length > MAX_INT_DIGITS || Number(digits) > MAX_INT) {
      this.fail(start, at - start, `Unexpected ${what} ${this.quote(start, at)} outside the I-JSON range, expected an integer from -${MAX_INT} to ${MAX_INT}`);
    }
    this.pos = at;
    const value = Number(digits);
    return digitsStart > start ? -value : value;
  }

  /** `member-name-shorthand = name-first *name-char`. */
  private parseMemberName(): string {
    const start = this.pos;
    this.pos = this.nameCharEnd(start);
    while (this.pos < this.text.length && (isDigit(this.text.charCodeAt(this.pos)) || this.isNameFirst(this.pos))) {
      this.pos = this.nameCharEnd(this.pos);
    }
    return this.text.slice(start, this.pos);
  }

  /** `name-first = ALPHA / "_" / %x80-D7FF / %xE000-10FFFF`; a lone surrogate is none of these. */
  private isNameFirst(at: number): boolean {
    const code = this.text.charCodeAt(at);
    if (isAlpha(code) || code === 0x5f /* _ */) return true;
    if (code < 0x80 || Number.isNaN(code) || isLowSurrogate(code)) return false;
    if (isHighSurrogate(code)) {
      if (isLowSurrogate(this.text.charCodeAt(at + 1))) return true;
      this.fail(at, 1, `Unexpected lone surrogate U+${code.toString(16).toUpperCase()}, expected a complete character`);
    }
    return true;
  }

  private nameCharEnd(at: number): number {
    return isHighSurrogate(this.text.charCodeAt(at)) ? at + 2 : at + 1;
  }

  /** A single- or double-quoted string literal with RFC 9535 escapes, decoded. */
  private parseString(): string {
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
        this.fail(at, 1, `Unexpected control character U+${code.toString(16).toUpperCase().padStart(4, '0')} in a string, expected it escaped as \`${SHORT_ESCAPES[text[at]!] ?? hexEscape(code)}\``);
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

  private parseEscape(at: number, quote: number): { decoded: string; end: number } {
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
    this.fail(at, this.nameCharEnd(at + 1) - at, `Unexpected escape ${this.quote(at, this.nameCharEnd(at + 1))}, expected one of \`\\b\`, \`\\f\`, \`\\n\`, \`\\r\`, \`\\t\`, \`\\/\`, \`\\\\\`, \`\\${String.fromCharCode(quote)}\` or \`\\uXXXX\`${hint}`);
  }

  /** The code unit of `\uXXXX` at `at`. */
  private hex4(at: number): number {
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

  // Filter expressions (RFC 9535 section 2.3.5). Each level returns what it parsed, and the
  // enclosing context checks it: a literal alone is no test, a test is no comparable, and so on.

  private parseLogicalOr(): Operand {
    const start = this.pos;
    const first = this.parseLogicalAnd();
    if (!this.takeOperator('||')) return first;
    this.requireLogical(first, 'before `||`');
    do this.requireLogical(this.parseLogicalAnd(), 'after `||`');
    while (this.takeOperator('||'));
    return { kind: 'logical', start, end: this.pos };
  }

  private parseLogicalAnd(): Operand {
    const start = this.pos;
    const first = this.parseBasic();
    if (!this.takeOperator('&&')) return first;
    this.requireLogical(first, 'before `&&`');
    do this.requireLogical(this.parseBasic(), 'after `&&`');
    while (this.takeOperator('&&'));
    return { kind: 'logical', start, end: this.pos };
  }

  /** Consumes `S op S` when `op` comes next. */
  private takeOperator(op: string): boolean {
    const at = this.blankEnd(this.pos);
    if (!this.text.startsWith(op, at)) return false;
    this.pos = at + op.length;
    this.skipBlank();
    return true;
  }

  /** `basic-expr = paren-expr / comparison-expr / test-expr`. */
  private parseBasic(): Operand {
    const { text } = this;
    const start = this.pos;
    if (text.charCodeAt(start) === 0x21 /* ! */) {
      this.pos++;
      this.skipBlank();
      if (text.charCodeAt(this.pos) === 0x28 /* ( */) this.parseParen();
      else {
        const operand = this.parseOperand();
        if (operand.kind === 'literal') {
          this.fail(operand.start, operand.end - operand.start, `Unexpected literal ${this.quote(operand.start, operand.end)} after \`!\`, expected a query, a function call or \`(\``);
        }
        this.requireLogical(operand, 'after `!`');
      }
      return { kind: 'logical', start, end: this.pos };
    }
    if (text.charCodeAt(start) === 0x28 /* ( */) {
      this.parseParen();
      return { kind: 'logical', start, end: this.pos };
    }
    const left = this.parseOperand();
    const at = this.blankEnd(this.pos);
    const op = comparisonOperator(text, at);
    if (op === undefined) return left;
    this.requireComparable(left, `before \`${op}\``);
    this.pos = at + op.length;
    this.skipBlank();
    const code = text.charCodeAt(this.pos);
    if (code === 0x28 /* ( */ || code === 0x21 /* ! */) {
      this.fail(this.pos, 1, `Unexpected ${this.describe(this.pos)} after \`${op}\`, expected ${COMPARABLE}`);
    }
    this.requireComparable(this.parseOperand(), `after \`${op}\``);
    return { kind: 'logical', start, end: this.pos };
  }

  private parseParen(): void {
    const start = this.pos;
    this.enter(start);
    this.pos++;
    this.skipBlank();
    this.requireLogical(this.parseLogicalOr(), 'in parentheses');
    this.skipBlank();
    if (this.text.charCodeAt(this.pos) !== 0x29 /* ) */) {
      this.fail(this.pos, 1, `Unexpected ${this.describe(this.pos)}, expected \`)\` to close the \`(\` at offset ${start}`);
    }
    this.pos++;
    this.depth--;
  }

  /** A literal, a query or a function call. */
  private parseOperand(): Operand {
    const { text } = this;
    const start = this.pos;
    const code = text.charCodeAt(start);
    if (code === 0x40 /* @ */ || code === 0x24 /* $ */) {
      this.pos++;
      const shape = this.parseSegments(false);
      return { kind: 'query', shape, start, end: this.pos };
    }
    if (code === 0x27 || code === 0x22) {
      this.parseString();
      return { kind: 'literal', start, end: this.pos };
    }
    if (code === 0x2d || isDigit(code)) {
      this.parseNumber();
      return { kind: 'literal', start, end: this.pos };
    }
    if (isLowerAlpha(code)) {
      let at = start + 1;
      while (isLowerAlpha(text.charCodeAt(at)) || isDigit(text.charCodeAt(at)) || text.charCodeAt(at) === 0x5f) at++;
      const name = text.slice(start, at);
      if (text.charCodeAt(at) === 0x28 /* ( */) return this.parseFunction(name, start, at);
      if ((name === 'true' || name === 'false' || name === 'null') && !isAlpha(text.charCodeAt(at))) {
        this.pos = at;
        return { kind: 'literal', start, end: at };
      }
      if (Object.hasOwn(FUNCTIONS, name) && isBlank(text.charCodeAt(at))) {
        this.fail(at, this.blankEnd(at) - at, `Unexpected blank space after function name \`${name}\`, expected \`(\` right after it`);
      }
    }
    if (isAlpha(code)) {
      let at = start + 1;
      while (isAlpha(text.charCodeAt(at)) || isDigit(text.charCodeAt(at)) || text.charCodeAt(at) === 0x5f) at++;
      this.fail(start, at - start, `Unexpected ${this.quote(start, at)}, ${EXPECTED_OPERAND} (literals are \`true\`, \`false\`, \`null\`, numbers and quoted strings)`);
    }
    this.fail(start, start < text.length ? 1 : 0, `Unexpected ${this.describe(start)}, ${EXPECTED_OPERAND}`);
  }

  /** `number = (int / "-0") [frac] [exp]`; no range limit applies to literals. */
  private parseNumber(): void {
    const { text } = this;
    const start = this.pos;
    let at = start;
    if (text.charCodeAt(at) === 0x2d) at++;
    const intStart = at;
    while (isDigit(text.charCodeAt(at))) at++;
    if (at === intStart) this.fail(at, 1, `Unexpected ${this.describe(at)} after \`-\`, expected a digit right after it`);
    if (at - intStart > 1 && text.charCodeAt(intStart) === 0x30) {
      this.fail(start, at - start, `Unexpected leading zero in number ${this.quote(start, at)}, expected a number without leading zeros`);
    }
    if (text.charCodeAt(at) === 0x2e /* . */) {
      at++;
      const fracStart = at;
      while (isDigit(text.charCodeAt(at))) at++;
      if (at === fracStart) this.fail(at, 1, `Unexpected ${this.describe(at)} after the decimal point, expected a digit`);
    }
    if (text.charCodeAt(at) === 0x65 || text.charCodeAt(at) === 0x45 /* e E */) {
      at++;
      if (text.charCodeAt(at) === 0x2b || text.charCodeAt(at) === 0x2d) at++;
      const expStart = at;
      while (isDigit(text.charCodeAt(at))) at++;
      if (at === expStart) this.fail(at, 1, `Unexpected ${this.describe(at)} in the exponent, expected a digit`);
    }
    this.pos = at;
  }

  /** `function-expr = function-name "(" S [function-argument *(S "," S function-argument)] S ")"`. */
  private parseFunction(name: string, start: number, open: number): Operand {
    const signature = Object.hasOwn(FUNCTIONS, name) ? FUNCTIONS[name] : undefined;
    if (signature === undefined) {
      this.fail(start, open - start, `Unexpected unknown function \`${name}\`, expected ${FUNCTION_LIST}`);
    }
    this.enter(start);
    this.pos = open + 1;
    this.skipBlank();
    const args: Operand[] = [];
    if (this.text.charCodeAt(this.pos) !== 0x29 /* ) */) {
      for (;;) {
        args.push(this.parseLogicalOr());
        this.skipBlank();
        const code = this.text.charCodeAt(this.pos);
        if (code === 0x29) break;
        if (code !== 0x2c /* , */) {
          this.fail(this.pos, 1, `Unexpected ${this.describe(this.pos)} in the arguments of \`${name}\`, expected \`,\` or \`)\``);
        }
        this.pos++;
        this.skipBlank();
      }
    }
    this.pos++;
    this.depth--;
    const { params } = signature;
    if (args.length !== params.length) {
      const wanted = params.length === 1 ? '1 argument' : `${params.length} arguments`;
      this.fail(start, this.pos - start, `Unexpected ${args.length} argument${args.length === 1 ? '' : 's'} to \`${name}\`, expected ${wanted}`);
    }
    params.forEach((param, i) => {
      const arg = args[i]!;
      const where = `as argument ${i + 1} of \`${name}\``;
      if (param === 'value') this.requireComparable(arg, where);
      else if (!(arg.kind === 'query' || (arg.kind === 'function' && arg.result === 'nodes'))) {
        this.fail(arg.start, arg.end - arg.start, `Unexpected ${this.describeOperand(arg)} ${where}, expected a query (\`@…\` or \`$…\`)`);
      }
    });
    return { kind: 'function', name, result: signature.result, start, end: this.pos };
  }

  /** RFC 9535 ValueType: a literal, a singular query or a function whose result is a value. */
  private requireComparable(operand: Operand, where: string): void {
    if (operand.kind === 'literal') return;
    if (operand.kind === 'query' && operand.shape === 'singular') return;
    if (operand.kind === 'function' && operand.result === 'value') return;
    const hint =
      operand.kind === 'query' && operand.shape === 'spaced'
        ? '; a singular query has no blank space inside its brackets (RFC 9535 `singular-query`)'
        : '';
    this.fail(operand.start, operand.end - operand.start, `Unexpected ${this.describeOperand(operand)} ${where}, expected ${COMPARABLE}${hint}`);
  }

  /** RFC 9535 LogicalType, where a query tests for existence and a value must be compared. */
  private requireLogical(operand: Operand, where: string): void {
    if (operand.kind === 'logical' || operand.kind === 'query') return;
    if (operand.kind === 'function' && operand.result !== 'value') return;
    const example = operand.kind === 'literal' ? `e.g. \`@.a == ${this.text.slice(operand.start, operand.end)}\`` : `e.g. \`${this.text.slice(operand.start, operand.end)} > 0\``;
    this.fail(operand.start, operand.end - operand.start, `Unexpected ${this.describeOperand(operand)} ${where}, expected a test or a comparison; compare it, ${operand.end - operand.start > 40 ? 'e.g. with `==`' : example}`);
  }

  private describeOperand(operand: Operand): string {
    const shown = this.quote(operand.start, operand.end);
    switch (operand.kind) {
      case 'literal':
        return `literal ${shown}`;
      case 'query':
        return `${operand.shape === 'singular' ? 'query' : 'non-singular query'} ${shown}`;
      case 'function':
        return `${shown} (returns ${operand.result === 'value' ? 'a value' : operand.result === 'logical' ? 'a logical result' : 'nodes'})`;
      case 'logical':
        return `logical expression ${shown}`;
    }
  }

  private enter(at: number): void {
    if (++this.depth > MAX_NESTING) {
      this.fail(at, 1, `Unexpected nesting deeper than ${MAX_NESTING} levels of filters, parentheses and function calls, expected a shallower expression`);
    }
  }

  private skipBlank(): boolean {
    const end = this.blankEnd(this.pos);
    const skipped = end > this.pos;
    this.pos = end;
    return skipped;
  }

  private blankEnd(from: number): number {
    if (from === this.blankFrom) return this.blankTo;
    let at = from;
    while (isBlank(this.text.charCodeAt(at))) at++;
    this.blankFrom = from;
    this.blankTo = at;
    return at;
  }

  private describe(at: number): string {
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
  private quote(start: number, end: number): string {
    const LIMIT = 40;
    let shown = this.text.slice(start, Math.min(end, start + LIMIT));
    if (end - start > LIMIT) {
      if (isHighSurrogate(shown.charCodeAt(shown.length - 1))) shown = shown.slice(0, -1);
      shown += '…';
    }
    return `\`${visible(shown)}\``;
  }

  private fail(offset: number, length: number, message: string): never {
    const clamped = Math.max(0, Math.min(length, this.text.length - offset));
    throw new ParseFailure({ message, offset, length: clamped, kind: 'syntax' });
  }
}

/** `comparison-op = "==" / "!=" / "<=" / ">=" / "<" / ">"`. */
function comparisonOperator(text: string, at: number): string | undefined {
  const two = text.slice(at, at + 2);
  if (two === '==' || two === '!=' || two === '<=' || two === '>=') return two;
  const one = text[at];
  return one === '<' || one === '>' ? one : undefined;
}
