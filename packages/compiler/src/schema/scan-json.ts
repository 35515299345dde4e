/**
 * A JSON syntax scanner for the independent-document form (SCH-2). `JSON.parse` on
 * Node 20 names no position for most errors ("Unexpected token '}'"), and a diagnostic
 * must point into the document, so this finds the first error itself. In the same pass
 * it records the reference keywords of the JSON Schema, with their offsets, so that a
 * `$ref` leaving the document can be shown where it is written. Iterative: a deeply
 * nested document cannot overflow the stack.
 */

export interface JsonSyntaxError {
  /** Offset into the text. */
  offset: number;
  found: string;
  expected: string;
}

export interface JsonReference {
  keyword: string;
  value: string;
  /** Offset of the value's opening quote. */
  offset: number;
}

export interface JsonScan {
  error: JsonSyntaxError | undefined;
  refs: JsonReference[];
}

const REF_KEYWORDS = new Set(['$ref', '$dynamicRef', '$recursiveRef']);
/** Keywords whose value is data: a `$ref` inside is a literal, not a reference. */
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples', 'example']);
/** Keywords whose object keys are names chosen by the author, each mapping to a schema. */
const NAME_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);

interface Frame {
  kind: 'object' | 'array';
  /** The last key read in this object. */
  key: string | undefined;
  /** Inside a data keyword: nothing below is a reference. */
  data: boolean;
  /** This object's keys are property or definition names, not keywords. */
  names: boolean;
}

type State = 'value' | 'value-or-close' | 'key' | 'key-or-close' | 'colon' | 'after';

const LITERALS = ['true', 'false', 'null'] as const;

export function scanJson(text: string): JsonScan {
  const refs: JsonReference[] = [];
  const stack: Frame[] = [];
  let state: State = 'value';
  let i = 0;
  const fail = (offset: number, expected: string): JsonScan => ({ error: { offset, found: describeAt(text, offset), expected }, refs });

  for (;;) {
    while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
    const top = stack[stack.length - 1];
    if (i >= text.length) {
      if (state === 'after' && !top) return { error: undefined, refs };
      return fail(i, expectedIn(state, top));
    }
    if (state === 'after' && !top) return fail(i, 'the end of the JSON text');
    const c = text[i]!;
    switch (state) {
      case 'value':
      case 'value-or-close': {
        if (state === 'value-or-close' && c === ']') {
          stack.pop();
          state = 'after';
          i++;
          break;
        }
        const parentData = top ? top.data || (top.kind === 'object' && !top.names && top.key !== undefined && DATA_KEYWORDS.has(top.key)) : false;
        if (c === '{' || c === '[') {
          const names = top?.kind === 'object' && !top.names && !parentData && top.key !== undefined && NAME_MAPS.has(top.key);
          stack.push({ kind: c === '{' ? 'object' : 'array', key: undefined, data: parentData, names });
          state = c === '{' ? 'key-or-close' : 'value-or-close';
          i++;
          break;
        }
        if (c === '"') {
          const end = scanString(text, i);
          if (typeof end !== 'number') return fail(end.offset, end.expected);
          if (top?.kind === 'object' && !top.names && !parentData && top.key !== undefined && REF_KEYWORDS.has(top.key)) {
            refs.push({ keyword: top.key, value: JSON.parse(text.slice(i, end)) as string, offset: i });
          }
          i = end;
          state = 'after';
          break;
        }
        if (c === '-' || (c >= '0' && c <= '9')) {
          const end = scanNumber(text, i);
          if (typeof end !== 'number') return fail(end.offset, end.expected);
          i = end;
          state = 'after';
          break;
        }
        const literal = LITERALS.find((l) => text.startsWith(l, i));
        if (literal) {
          i += literal.length;
          state = 'after';
          break;
        }
        return fail(i, state === 'value-or-close' ? 'a value or `]`' : 'a value');
      }
      case 'key':
      case 'key-or-close': {
        if (state === 'key-or-close' && c === '}') {
          stack.pop();
          state = 'after';
          i++;
          break;
        }
        if (c !== '"') return fail(i, state === 'key-or-close' ? 'a property name in double quotes or `}`' : 'a property name in double quotes');
        const end = scanString(text, i);
        if (typeof end !== 'number') return fail(end.offset, end.expected);
        top!.key = JSON.parse(text.slice(i, end)) as string;
        i = end;
        state = 'colon';
        break;
      }
      case 'colon':
        if (c !== ':') return fail(i, '`:`');
        i++;
        state = 'value';
        break;
      case 'after': {
        const frame = top!;
        const close = frame.kind === 'object' ? '}' : ']';
        if (c === ',') {
          state = frame.kind === 'object' ? 'key' : 'value';
          i++;
        } else if (c === close) {
          stack.pop();
          state = 'after';
          i++;
        } else {
          return fail(i, `\`,\` or \`${close}\``);
        }
        break;
      }
    }
  }
}

function expectedIn(state: State, top: Frame | undefined): string {
  switch (state) {
    case 'value':
      return 'a value';
    case 'value-or-close':
      return 'a value or `]`';
    case 'key':
      return 'a property name in double quotes';
    case 'key-or-close':
      return 'a property name in double quotes or `}`';
    case 'colon':
      return '`:`';
    case 'after':
      return `\`,\` or \`${top?.kind === 'array' ? ']' : '}'}\``;
  }
}

function describeAt(text: string, offset: number): string {
  if (offset >= text.length) return 'end of the JSON text';
  const c = text.codePointAt(offset)!;
  if (c === 0x0a) return 'a line break';
  if (c < 0x20) return `control character U+${c.toString(16).toUpperCase().padStart(4, '0')}`;
  const ch = String.fromCodePoint(c);
  return ch === '`' ? 'a backtick' : `\`${ch}\``;
}

const ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);
const HEX = /^[0-9a-fA-F]{4}$/;

/** Returns the offset just after the closing quote, or where and what was expected. */
function scanString(text: string, start: number): number | { offset: number; expected: string } {
  let i = start + 1;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x22) return i + 1;
    if (c < 0x20) return { offset: i, expected: 'an escape such as `\\n` (raw control characters are not allowed in JSON strings)' };
    if (c === 0x5c) {
      const next = text[i + 1];
      if (next === 'u') {
        if (!HEX.test(text.slice(i + 2, i + 6))) return { offset: i, expected: '`\\u` followed by four hexadecimal digits' };
        i += 6;
        continue;
      }
      if (next === undefined || !ESCAPES.has(next)) return { offset: i, expected: 'a JSON escape (`\\"`, `\\\\`, `\\/`, `\\b`, `\\f`, `\\n`, `\\r`, `\\t` or `\\uXXXX`)' };
      i += 2;
      continue;
    }
    i++;
  }
  return { offset: text.length, expected: 'a closing `"`' };
}

function scanNumber(text: string, start: number): number | { offset: number; expected: string } {
  let i = start;
  if (text[i] === '-') i++;
  if (text[i] === '0') i++;
  else if (isDigit(text[i])) while (isDigit(text[i])) i++;
  else return { offset: i, expected: 'a digit' };
  if (text[i] === '.') {
    i++;
    if (!isDigit(text[i])) return { offset: i, expected: 'a digit after `.`' };
    while (isDigit(text[i])) i++;
  }
  if (text[i] === 'e' || text[i] === 'E') {
    i++;
    if (text[i] === '+' || text[i] === '-') i++;
    if (!isDigit(text[i])) return { offset: i, expected: 'a digit in the exponent' };
    while (isDigit(text[i])) i++;
  }
  return i;
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}
