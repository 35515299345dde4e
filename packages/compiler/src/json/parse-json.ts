import { MAX_JSON_DEPTH } from '../bundle/canonical-json.js';
import type { Reporter, Span } from '../diagnostics/reporter.js';
import { EntryNode, MapNode, ScalarNode, SeqNode, type YEntry, type YNode, type YScalar } from '../source/yaml-tree.js';
import { readJsonNumber, readJsonString, readWord, type Refusal } from './json-tokens.js';

interface Frame {
  node: MapNode | SeqNode;
  /** Keys seen in this object, for duplicate detection (SRC-2). */
  seen: Map<string, YEntry> | undefined;
  /** The key waiting for its value. */
  key: { key: string; keySpan: Span } | undefined;
  /** Offset of the last `,`, to name a trailing comma. */
  comma: number;
}

type State = 'value' | 'value-or-close' | 'key' | 'key-or-close' | 'colon' | 'after';

/** A key written twice in one object: the second is dropped, the first kept. */
export interface DuplicateKey {
  key: string;
  keySpan: Span;
  first: Span;
}

/** Offsets are into `text`; `error` is the first syntax error, after which nothing is read. */
export interface JsonParse {
  root: YNode | undefined;
  error: Refusal | undefined;
  duplicates: DuplicateKey[];
}

/**
 * Strict RFC 8259 JSON (and I-JSON: no lone surrogates, no number beyond a double, at most
 * MAX_JSON_DEPTH levels) to the located tree the frontmatter uses, for every JSON text the
 * compiler reads: plugin.json, method documents, independent schema documents. Iterative (an
 * explicit stack), so nesting costs heap, not call stack. Never throws. `subject` names the
 * text in messages about its end (`the file`, `the JSON text`).
 */
export function parseJson(text: string, subject = 'the file'): JsonParse {
  const stack: Frame[] = [];
  const duplicates: DuplicateKey[] = [];
  let state: State = 'value';
  let root: YNode | undefined;
  let i = 0;

  const fail = (error: Refusal): JsonParse => ({ root: undefined, error, duplicates });

  const attach = (node: YNode): void => {
    const top = stack[stack.length - 1];
    if (!top) {
      root = node;
      return;
    }
    if (top.node.kind === 'seq') {
      top.node.items.push(node);
      return;
    }
    const { key, keySpan } = top.key!;
    top.key = undefined;
    const first = top.seen!.get(key);
    if (first) {
      duplicates.push({ key, keySpan, first: first.keySpan });
      return;
    }
    const e = new EntryNode(key, keySpan.start, keySpan.end, node);
    top.seen!.set(key, e);
    top.node.entries.push(e);
  };

  const close = (): void => {
    const frame = stack.pop()!;
    frame.node.end = i + 1;
    i++;
    attach(frame.node);
  };

  for (;;) {
    while (i < text.length && isWhitespace(text.charCodeAt(i))) i++;
    const top = stack[stack.length - 1];
    if (i >= text.length) {
      if (state === 'after' && !top) return { root, error: undefined, duplicates };
      return fail(endOfText(text, state, top, subject));
    }
    const c = text[i]!;
    if (c === '/' && (text[i + 1] === '/' || text[i + 1] === '*')) {
      return fail({
        offset: i,
        end: i + 2,
        message: `Unexpected comment, expected ${expectedIn(state, top, subject)}`,
        hint: 'JSON has no comments; remove it',
      });
    }
    switch (state) {
      case 'value':
      case 'value-or-close': {
        if (c === ']' && top?.node.kind === 'seq') {
          if (state === 'value-or-close') {
            close();
            state = 'after';
            break;
          }
          return fail(trailingComma(top));
        }
        if (c === '{' || c === '[') {
          if (stack.length >= MAX_JSON_DEPTH) {
            return fail({ offset: i, message: `Unexpected nesting deeper than ${MAX_JSON_DEPTH} levels, expected a shallower document` });
          }
          const node = c === '{' ? new MapNode(i, i + 1, true, []) : new SeqNode(i, i + 1, true, []);
          stack.push({ node, seen: c === '{' ? new Map() : undefined, key: undefined, comma: -1 });
          state = c === '{' ? 'key-or-close' : 'value-or-close';
          i++;
          break;
        }
        const scalar = readScalar(text, i, state === 'value-or-close' ? 'a value or `]`' : 'a value', subject);
        if ('message' in scalar) return fail(scalar);
        i = scalar.end;
        attach(scalar);
        state = 'after';
        break;
      }
      case 'key':
      case 'key-or-close': {
        if (c === '}') {
          if (state === 'key-or-close') {
            close();
            state = 'after';
            break;
          }
          return fail(trailingComma(top!));
        }
        const expected = state === 'key-or-close' ? 'a property name in double quotes or `}`' : 'a property name in double quotes';
        if (c !== '"') return fail(badKey(text, i, expected, subject));
        const key = readJsonString(text, i, subject);
        if ('message' in key) return fail(key);
        top!.key = { key: key.value, keySpan: { start: i, end: key.end } };
        i = key.end;
        state = 'colon';
        break;
      }
      case 'colon':
        if (c !== ':') {
          return fail({
            offset: i,
            message: `Unexpected ${describeAt(text, i, subject)}, expected \`:\` after the property name`,
            hint: c === '=' ? 'JSON separates a property name from its value with `:`' : undefined,
          });
        }
        i++;
        state = 'value';
        break;
      case 'after': {
        if (!top) {
          return fail({
            offset: i,
            message: `Unexpected ${describeAt(text, i, subject)} after the JSON value, expected the end of ${subject}`,
            hint: c === '}' || c === ']' ? `remove the extra \`${c}\`` : 'a JSON file holds exactly one value',
          });
        }
        const closer = top.node.kind === 'map' ? '}' : ']';
        if (c === ',') {
          top.comma = i;
          state = top.node.kind === 'map' ? 'key' : 'value';
          i++;
        } else if (c === closer) {
          close();
          state = 'after';
        } else {
          return fail({
            offset: i,
            message: `Unexpected ${describeAt(text, i, subject)}, expected \`,\` or \`${closer}\``,
            hint:
              c === '"' || c === '{' || c === '[' || isValueStart(c)
                ? `a \`,\` is missing before this ${top.node.kind === 'map' ? 'property' : 'value'}`
                : undefined,
            related: [{ span: top.node.span, message: `the ${top.node.kind === 'map' ? 'object' : 'array'} opens here` }],
          });
        }
        break;
      }
    }
  }
}

function readScalar(text: string, i: number, expected: string, subject: string): ScalarNode | Refusal {
  const c = text[i]!;
  const scalar = (end: number, value: YScalar['value'], style: YScalar['style']): ScalarNode => new ScalarNode(i, end, value, style, false, false);
  if (c === '"') {
    const s = readJsonString(text, i, subject);
    return 'message' in s ? s : scalar(s.end, s.value, 'double');
  }
  if (c === '-' || (c >= '0' && c <= '9')) {
    const n = readJsonNumber(text, i);
    return 'message' in n ? n : scalar(n.end, n.value, 'plain');
  }
  for (const [word, value] of [
    ['true', true],
    ['false', false],
    ['null', null],
  ] as const) {
    if (text.startsWith(word, i) && !/[A-Za-z0-9_$]/.test(text[i + word.length] ?? '')) return scalar(i + word.length, value, 'plain');
  }
  return badValue(text, i, expected, subject);
}

function badValue(text: string, i: number, expected: string, subject: string): Refusal {
  const c = text[i]!;
  if (c === "'") {
    return { offset: i, message: `Unexpected \`'\`, expected ${expected}`, hint: 'JSON strings are written in double quotes: `"…"`' };
  }
  if (c === '+' || (c === '.' && /[0-9]/.test(text[i + 1] ?? ''))) {
    return {
      offset: i,
      message: `Unexpected \`${c}\` before a number, expected ${expected}`,
      hint: c === '+' ? 'JSON numbers have no leading `+`' : 'write a `0` before the decimal point',
    };
  }
  const word = readWord(text, i);
  if (word !== '') {
    const lower = word.toLowerCase();
    const hint =
      word === 'NaN' || word === 'Infinity'
        ? 'JSON has no NaN or Infinity; use a finite number, `null` or a quoted string'
        : lower === 'true' || lower === 'false' || lower === 'null'
          ? `write \`${lower}\` in lowercase`
          : word === 'undefined'
            ? 'JSON has no `undefined`; use `null` or leave the property out'
            : `quote it to make it a string: \`"${word}"\``;
    return { offset: i, end: i + word.length, message: `Unexpected \`${word}\`, expected ${expected}`, hint };
  }
  return { offset: i, message: `Unexpected ${describeAt(text, i, subject)}, expected ${expected}` };
}

function badKey(text: string, i: number, expected: string, subject: string): Refusal {
  const c = text[i]!;
  if (c === "'") return { offset: i, message: `Unexpected \`'\`, expected ${expected}`, hint: 'JSON property names are written in double quotes' };
  const word = readWord(text, i);
  if (word !== '') {
    return { offset: i, end: i + word.length, message: `Unexpected unquoted property name \`${word}\`, expected ${expected}`, hint: `write \`"${word}"\`` };
  }
  return { offset: i, message: `Unexpected ${describeAt(text, i, subject)}, expected ${expected}` };
}

function trailingComma(frame: Frame): Refusal {
  const closer = frame.node.kind === 'map' ? '}' : ']';
  return {
    offset: frame.comma,
    message: `Unexpected trailing comma before \`${closer}\`, expected another ${frame.node.kind === 'map' ? 'property' : 'value'} after \`,\``,
    hint: 'JSON allows no trailing comma; remove it',
  };
}

function endOfText(text: string, state: State, top: Frame | undefined, subject: string): Refusal {
  if (!top && state === 'value') {
    return {
      offset: text.length,
      end: text.length,
      message: `Unexpected end of ${subject}, expected a JSON value`,
      hint: text.trim() === '' ? `${subject} is empty` : undefined,
    };
  }
  const expected = expectedIn(state, top, subject);
  const related = top ? [{ span: top.node.span, message: `the ${top.node.kind === 'map' ? 'object' : 'array'} opens here and is not closed` }] : undefined;
  return { offset: text.length, end: text.length, message: `Unexpected end of ${subject}, expected ${expected}`, related };
}

function expectedIn(state: State, top: Frame | undefined, subject: string): string {
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
      return top ? `\`,\` or \`${top.node.kind === 'map' ? '}' : ']'}\`` : `the end of ${subject}`;
  }
}

function isWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0d;
}

function isValueStart(c: string): boolean {
  return c === '-' || (c >= '0' && c <= '9') || c === 't' || c === 'f' || c === 'n';
}

export function describeAt(text: string, offset: number, subject = 'the file'): string {
  if (offset >= text.length) return `end of ${subject}`;
  const c = text.codePointAt(offset)!;
  if (c === 0x0a) return 'a line break';
  if (c < 0x20 || c === 0x7f || c === 0xfeff || c === 0xa0 || (c >= 0x2000 && c <= 0x200b)) return `U+${c.toString(16).toUpperCase().padStart(4, '0')}`;
  const ch = String.fromCodePoint(c);
  return ch === '`' ? 'a backtick' : `\`${ch}\``;
}

/**
 * parseJson for a file of its own: the first syntax error is BP2001, each duplicate key
 * BP1011 (SRC-2). Returns undefined after a syntax error.
 */
export function parseJsonWithPositions(text: string, reporter: Reporter): YNode | undefined {
  const parsed = parseJson(text);
  for (const d of parsed.duplicates) {
    reporter.report('BP1011', d.keySpan, `Unexpected duplicate key \`${d.key}\`, expected each key once`, {
      related: [reporter.locate(d.first, `first \`${d.key}\` is here`)],
    });
  }
  const error = parsed.error;
  if (error === undefined) return parsed.root;
  reporter.report('BP2001', { start: error.offset, end: error.end ?? error.offset + 1 }, error.message, {
    hint: error.hint,
    related: error.related?.map((r) => reporter.locate(r.span, r.message)),
  });
  return undefined;
}
