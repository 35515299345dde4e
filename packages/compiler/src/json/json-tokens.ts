import type { Span } from '../diagnostics/reporter.js';

/** A syntax error: where, what, and the likely fix. */
export interface Refusal {
  offset: number;
  /** Exclusive; one character after `offset` when omitted. */
  end?: number | undefined;
  message: string;
  hint?: string | undefined;
  /** Other places in the same text (the bracket that opened an unclosed object). */
  related?: { span: Span; message: string }[] | undefined;
}

const SIMPLE_ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
const CONTROL_NAMES: Record<number, string> = { 0x09: 'tab', 0x0a: 'line break', 0x0d: 'carriage return', 0x08: 'backspace', 0x0c: 'form feed' };

/**
 * Reads a double-quoted string starting at `start` (the quote). Lone surrogates, escaped
 * or raw, are refused: the bundle is canonical JSON (RFC 8785, I-JSON), which has none.
 */
export function readJsonString(text: string, start: number, subject = 'the file'): { value: string; end: number } | Refusal {
  let value = '';
  let from = start + 1;
  let i = from;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x22) return { value: value + text.slice(from, i), end: i + 1 };
    if (c < 0x20) return controlInString(c, i);
    if (c === 0x5c) {
      value += text.slice(from, i);
      const escape = readEscape(text, i);
      if ('message' in escape) return escape;
      value += escape.value;
      i = from = escape.end;
      continue;
    }
    if (c >= 0xd800 && c <= 0xdfff) {
      const next = text.charCodeAt(i + 1);
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        i += 2;
        continue;
      }
      return {
        offset: i,
        message: `Unexpected lone surrogate U+${c.toString(16).toUpperCase()} in a string, expected a complete character`,
        hint: 'save the file as valid UTF-8',
      };
    }
    i++;
  }
  return {
    offset: start,
    message: `Unexpected end of ${subject} inside a string, expected a closing \`"\``,
    hint: 'the string that starts here is never closed',
  };
}

function controlInString(c: number, i: number): Refusal {
  if (c === 0x0a) {
    return {
      offset: i,
      message: 'Unexpected line break in a string, expected a closing `"`',
      hint: 'a JSON string cannot span lines; close it, or write `\\n` for a line break inside the text',
    };
  }
  const code = `U+${c.toString(16).toUpperCase().padStart(4, '0')}`;
  const name = CONTROL_NAMES[c];
  const escape = c === 0x09 ? '\\t' : c === 0x0d ? '\\r' : c === 0x08 ? '\\b' : c === 0x0c ? '\\f' : `\\u${c.toString(16).padStart(4, '0')}`;
  return {
    offset: i,
    message: `Unexpected control character ${code}${name ? ` (${name})` : ''} in a string, expected the escape \`${escape}\``,
    hint: 'JSON strings cannot hold raw control characters',
  };
}

function readEscape(text: string, i: number): { value: string; end: number } | Refusal {
  const next = text[i + 1];
  if (next !== undefined && next in SIMPLE_ESCAPES) return { value: SIMPLE_ESCAPES[next]!, end: i + 2 };
  if (next === 'u') {
    const unit = hex4(text, i + 2);
    if (unit === undefined) {
      return {
        offset: i,
        end: Math.min(text.length, i + 6),
        message: `Unexpected \`${text.slice(i, i + 6).split('\n')[0]}\`, expected \`\\u\` followed by four hexadecimal digits`,
      };
    }
    if (unit >= 0xdc00 && unit <= 0xdfff) return loneSurrogate(text, i, unit);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const low = text[i + 6] === '\\' && text[i + 7] === 'u' ? hex4(text, i + 8) : undefined;
      if (low === undefined || low < 0xdc00 || low > 0xdfff) return loneSurrogate(text, i, unit);
      return { value: String.fromCharCode(unit, low), end: i + 12 };
    }
    return { value: String.fromCharCode(unit), end: i + 6 };
  }
  const shown = next === undefined || next === '\n' ? '\\' : `\\${next}`;
  return {
    offset: i,
    end: i + shown.length,
    message: `Unexpected escape \`${shown}\` in a string, expected one of \`\\"\`, \`\\\\\`, \`\\/\`, \`\\b\`, \`\\f\`, \`\\n\`, \`\\r\`, \`\\t\` or \`\\uXXXX\``,
    hint: next === "'" ? 'a single quote needs no escape in JSON' : next === 'x' ? 'write `\\u00XX` for a character code' : 'write `\\\\` for a backslash',
  };
}

function loneSurrogate(text: string, i: number, unit: number): Refusal {
  return {
    offset: i,
    end: i + 6,
    message: `Unexpected lone surrogate \`${text.slice(i, i + 6)}\`, expected a complete character`,
    hint:
      unit <= 0xdbff ? 'a high surrogate must be followed by a low one (`\\udc00`–`\\udfff`)' : 'a low surrogate must follow a high one (`\\ud800`–`\\udbff`)',
  };
}

function hex4(text: string, at: number): number | undefined {
  const digits = text.slice(at, at + 4);
  return /^[0-9a-fA-F]{4}$/.test(digits) ? parseInt(digits, 16) : undefined;
}

/** RFC 8259 number grammar; values beyond the double range are refused rather than made Infinity. */
export function readJsonNumber(text: string, start: number): { value: number; end: number } | Refusal {
  let i = start;
  if (text[i] === '-') i++;
  if (text[i] === '0') {
    i++;
    if (isDigit(text[i])) {
      const end = skipDigits(text, i);
      return {
        offset: start,
        end,
        message: `Unexpected leading zero in \`${text.slice(start, end)}\`, expected a number without leading zeros`,
        hint: 'JSON numbers have no leading zeros; quote the value if the zeros matter',
      };
    }
    if (text[i] === 'x' || text[i] === 'X') {
      return { offset: start, end: i + 1, message: 'Unexpected hexadecimal number, expected a decimal number', hint: 'JSON numbers are decimal' };
    }
  } else if (isDigit(text[i])) i = skipDigits(text, i);
  else {
    const word = readWord(text, i);
    return word === 'Infinity'
      ? {
          offset: start,
          end: i + word.length,
          message: 'Unexpected `-Infinity`, expected a value',
          hint: 'JSON has no NaN or Infinity; use a finite number, `null` or a quoted string',
        }
      : { offset: i, message: 'Unexpected character after `-`, expected a digit' };
  }
  if (text[i] === '.') {
    i++;
    if (!isDigit(text[i]))
      return { offset: i, message: 'Unexpected character after `.`, expected a digit', hint: 'write at least one digit after the decimal point' };
    i = skipDigits(text, i);
  }
  if (text[i] === 'e' || text[i] === 'E') {
    i++;
    if (text[i] === '+' || text[i] === '-') i++;
    if (!isDigit(text[i])) return { offset: i, message: 'Unexpected character in the exponent, expected a digit' };
    i = skipDigits(text, i);
  }
  const value = Number(text.slice(start, i));
  if (!Number.isFinite(value)) {
    return {
      offset: start,
      end: i,
      message: `Unexpected number \`${text.slice(start, i)}\` beyond the range of a double, expected a finite number`,
      hint: 'quote it if it is an identifier rather than a quantity',
    };
  }
  return { value, end: i };
}

/** An identifier-like run, to name unquoted words (`NaN`, `True`, an unquoted key). */
export function readWord(text: string, start: number): string {
  const match = /^[A-Za-z_$][A-Za-z0-9_$-]*/.exec(text.slice(start, start + 200));
  return match ? match[0] : '';
}

function skipDigits(text: string, i: number): number {
  while (isDigit(text[i])) i++;
  return i;
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}
