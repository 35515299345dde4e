// Character classes and escapes of RFC 9535, shared by the parser and the formatter.

/** `escapable` of RFC 9535 section 2.3.1.1 besides the quotes and `\u`, by code unit after the backslash. */
export const SIMPLE_ESCAPES: Record<number, string> = {
  0x62: '\b',
  0x66: '\f',
  0x6e: '\n',
  0x72: '\r',
  0x74: '\t',
  0x2f: '/',
  0x5c: '\\',
};

export const SHORT_ESCAPES: Record<string, string> = {
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  "'": "\\'",
  '\\': '\\\\',
};

export const VISIBLE_BLANKS: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** Messages are single lines, so quoted path text shows line breaks and control characters escaped. */
export function visible(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f]/g, (ch) => VISIBLE_BLANKS[ch] ?? hexEscape(ch.charCodeAt(0)));
}

export function hexEscape(code: number): string {
  return `\\u${code.toString(16).padStart(4, '0')}`;
}

export function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

export function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

export function isBlank(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}

export function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

export function isAlpha(code: number): boolean {
  return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}

export function isLowerAlpha(code: number): boolean {
  return code >= 0x61 && code <= 0x7a;
}

export function hexValue(code: number): number {
  if (isDigit(code)) return code - 0x30;
  if (code >= 0x41 && code <= 0x46) return code - 0x37;
  if (code >= 0x61 && code <= 0x66) return code - 0x57;
  return -1;
}
