import type { ScalarTag } from 'yaml';
import { yamlModule } from './yaml-module.js';
import { EntryNode, MapNode, ScalarNode, SeqNode, type YEntry, type YMap, type YNode, type YScalar, type YSeq } from './yaml-tree.js';

/**
 * The plain-scalar resolvers of yaml's own core schema (null, bool, int, float), tried in the
 * order its Composer tries them, so a plain value resolves here exactly as it does there.
 * Built on first use: the common plain values resolve without yaml (`resolvePlain`).
 */
let coreScalars: ScalarTag[] | undefined;
function coreScalarTags(): ScalarTag[] {
  const { Schema } = yamlModule();
  return (coreScalars ??= new Schema({ schema: 'core' }).tags.filter(
    (tag): tag is ScalarTag => tag.default === true && 'test' in tag && tag.test !== undefined,
  ));
}

/** The Core schema's null and bool words (its `null` and `bool` tags, which a letter can start). */
const CORE_WORDS = new Map<string, null | boolean>([
  ['null', null],
  ['Null', null],
  ['NULL', null],
  ['true', true],
  ['True', true],
  ['TRUE', true],
  ['false', false],
  ['False', false],
  ['FALSE', false],
]);
/** The tests of the Core schema's decimal `int` and `float` tags; no tag before either can match what they match. */
const CORE_INT = /^[-+]?[0-9]+$/;
const CORE_FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/;

/** Characters that make the whole text a case for yaml: control characters, BOMs, tabs, non-ASCII line breaks. */
const UNUSUAL = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]/;
/** A plain key the Core schema reads as a string, directly followed by `:` and a space or line end. */
const KEY = /[A-Za-z_$][A-Za-z0-9_$./-]*:(?= |\n|$)/y;
const NON_STRING_KEY = /^(?:[Nn]ull|NULL|[Tt]rue|TRUE|[Ff]alse|FALSE)$/;
/** Only the escapes YAML and JSON read alike, so `JSON.parse` decodes them as yaml does. */
const JSON_ESCAPES = /^(?:[^"\\]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*$/;
/** A block scalar header without a keep chomp, an indentation indicator or a comment. */
const BLOCK_HEADER = /^[|>]-?$/;
/** The nesting below which the fast path stays (the slow path's limit is 256, MAX_YAML_DEPTH). */
const MAX_FAST_DEPTH = 64;

class Decline {}
const DECLINE = new Decline();

/**
 * The located tree of a frontmatter written in the common block style (block mappings and
 * lists, indented by two, one-line plain and quoted scalars, `!ref name`, empty `[]` and `{}`,
 * `|`/`>` block scalars, comments), read in one pass over
 * its lines without yaml's Lexer, Parser, Composer and Document. Undefined ("declined") for
 * anything else, and for anything the slow path would report (duplicate keys, odd indentation,
 * non-finite numbers, lone surrogates, …): the caller then takes yaml's path, which reports
 * exactly as before. Where it answers, the tree equals the slow path's node for node, spans
 * included (test/fast-frontmatter.test.ts compares both on every fixture and a generated set).
 */
export function fastFrontmatter(yaml: string, offset: number, refuseLoneSurrogates: boolean): YNode | undefined {
  if (UNUSUAL.test(yaml)) return undefined;
  try {
    return new LineReader(yaml, offset, refuseLoneSurrogates).document();
  } catch (error) {
    if (error === DECLINE) return undefined;
    throw error;
  }
}

function decline(): never {
  throw DECLINE;
}

/** A node and the end of yaml's range for it (`range[2]`: after its trailing comment and line break; an offset in the frontmatter), which bounds its parent's span. */
interface Read<T extends YNode> {
  node: T;
  end: number;
}

class LineReader {
  /** Start of the line at which reading goes on; -1 at the end of the text. */
  private line = 0;
  /** Indentation of `line`. */
  private indent = 0;
  /** Whether the last `skipToContent` passed a comment line. */
  private passedComment = false;
  /**
   * The entries and items of the blocks being read, innermost last: each block's list is cut
   * from here at its exact length. A list grown by `push` from empty holds 17 slots or more, and
   * a cold build keeps every tree alive to the end (docs/performance.md, round seven, wt-heap).
   */
  private readonly pending: (YEntry | YNode)[] = [];
  private top = 0;

  constructor(
    private readonly text: string,
    private readonly offset: number,
    private readonly refuseLoneSurrogates: boolean,
  ) {}

  document(): YNode {
    this.skipToContent(0);
    if (this.line === -1 || this.indent !== 0) decline();
    const map = this.map(this.line, 0, 1);
    if (this.line !== -1) decline();
    return map.node;
  }

  /**
   * Moves `line` from `from` (a line start) to the next line holding more than blank space and
   * comments. `ownerColumn`: a comment line deeper than this could belong to a multi-line value.
   */
  private skipToContent(from: number, ownerColumn = Infinity): void {
    const text = this.text;
    let at = from;
    this.passedComment = false;
    while (at < text.length) {
      let i = at;
      while (text.charCodeAt(i) === 0x20) i++;
      const c = text.charCodeAt(i);
      if (c === 0x0a) {
        at = i + 1;
        continue;
      }
      if (c === 0x23) {
        if (i - at > ownerColumn) decline();
        this.passedComment = true;
        const lineEnd = text.indexOf('\n', i);
        if (lineEnd === -1) break;
        at = lineEnd + 1;
        continue;
      }
      if (Number.isNaN(c)) break;
      this.line = at;
      this.indent = i - at;
      return;
    }
    this.line = -1;
  }

  /** A block mapping whose first key starts at `first` (the line's first content, or after `- `), in column `column`. */
  private map(first: number, column: number, depth: number): Read<YMap> {
    if (depth > MAX_FAST_DEPTH) decline();
    const base = this.top;
    const pending = this.pending as YEntry[];
    // Duplicates found by a scan while the map is small: a Set per map was a tenth of what this reader allocated.
    let keys: Set<string> | undefined;
    let keyAt = first;
    let end: number;
    for (;;) {
      KEY.lastIndex = keyAt;
      if (!KEY.test(this.text)) decline();
      const colon = KEY.lastIndex - 1;
      const key = internKey(this.text.slice(keyAt, colon));
      if (keys === undefined && this.top - base >= SCANNED_KEYS) keys = new Set(pending.slice(base, this.top).map((e) => e.key));
      if ((keys === undefined ? hasKey(pending, base, this.top, key) : keys.has(key)) || NON_STRING_KEY.test(key) || colon - keyAt > 1000) decline();
      keys?.add(key);
      const value = this.mapValue(colon, column, depth);
      pending[this.top++] = new EntryNode(key, this.offset + keyAt, this.offset + colon, value.node);
      end = value.end;
      if (this.line === -1 || this.indent < column) {
        this.closeBlock();
        break;
      }
      if (this.indent > column) decline();
      keyAt = this.line + column;
    }
    return { node: new MapNode(this.offset + first, this.offset + end, false, this.cut(base) as YEntry[]), end };
  }

  /** The value after `key:` (at `colon`), leaving `line` at the next content line after it. */
  private mapValue(colon: number, column: number, depth: number): Read<YNode> {
    const text = this.text;
    let at = colon + 1;
    while (text.charCodeAt(at) === 0x20) at++;
    const c = text.charCodeAt(at);
    if (c === 0x0a || Number.isNaN(c) || c === 0x23) {
      // Nothing on the key's line: a nested block on the next lines, or an empty value.
      const lineEnd = c === 0x23 ? text.indexOf('\n', at) : Number.isNaN(c) ? -1 : at;
      if (lineEnd === -1) this.line = -1;
      else this.skipToContent(lineEnd + 1);
      if (this.line !== -1 && this.indent > column) {
        if (this.indent !== column + 2) decline();
        return this.block(this.line + this.indent, this.indent, depth + 1);
      }
      // An empty value with a comment ends yaml's range after the comment; not worth copying.
      if (c === 0x23 || this.passedComment || (this.line !== -1 && this.indent === column && text.startsWith('-', this.line + column))) decline();
      const empty = this.scalar(colon + 1, colon + 1, null, 'plain', false, true);
      return { node: empty, end: at };
    }
    return this.inlineValue(at, column);
  }

  /** A nested block mapping or list starting at `first`, in column `column`. */
  private block(first: number, column: number, depth: number): Read<YNode> {
    const text = this.text;
    if (text.charCodeAt(first) === 0x2d) {
      const next = text.charCodeAt(first + 1);
      if (next === 0x20) return this.seq(first, column, depth);
      if (next === 0x0a || Number.isNaN(next)) decline();
    }
    return this.map(first, column, depth);
  }

  /** A block list whose first `- ` is at `first`, in column `column`. */
  private seq(first: number, column: number, depth: number): Read<YSeq> {
    if (depth > MAX_FAST_DEPTH) decline();
    const text = this.text;
    const base = this.top;
    let dash = first;
    let end: number;
    for (;;) {
      if (text.charCodeAt(dash) !== 0x2d || text.charCodeAt(dash + 1) !== 0x20) decline();
      const at = dash + 2;
      const c = text.charCodeAt(at);
      let item: Read<YNode>;
      if (c === 0x2d && text.charCodeAt(at + 1) === 0x20) item = this.seq(at, column + 2, depth + 1);
      else {
        KEY.lastIndex = at;
        item = KEY.test(text) ? this.map(at, column + 2, depth + 1) : this.inlineValue(at, column);
      }
      this.pending[this.top++] = item.node;
      end = item.end;
      if (this.line === -1 || this.indent < column) {
        this.closeBlock();
        break;
      }
      if (this.indent > column) decline();
      dash = this.line + column;
    }
    return { node: new SeqNode(this.offset + first, this.offset + end, false, this.cut(base) as YNode[]), end };
  }

  /**
   * A one-line value at `at`: a plain or quoted scalar, `!ref` and one, or an empty `[]`/`{}`;
   * then an optional comment and the line's end. `column` is its owner's (a deeper next line
   * would continue the value).
   */
  private inlineValue(at: number, column: number): Read<YNode> {
    const text = this.text;
    const lineEnd = text.indexOf('\n', at);
    const stop = lineEnd === -1 ? text.length : lineEnd;
    const ref = text.startsWith('!ref ', at);
    const start = ref ? at + 5 : at;
    const c = text.charCodeAt(start);
    let node: YNode;
    let after: number;
    if (c === 0x22 || c === 0x27) {
      const close = c === 0x22 ? closingDoubleQuote(text, start + 1, stop) : closingSingleQuote(text, start + 1, stop);
      const raw = text.slice(start + 1, close);
      let value: string;
      if (c === 0x27) value = raw.includes("'") ? raw.replaceAll("''", "'") : raw;
      else if (!raw.includes('\\')) value = raw;
      else if (JSON_ESCAPES.test(raw)) value = JSON.parse(`"${raw}"`) as string;
      else decline();
      after = close + 1;
      node = this.scalar(at, after, this.wellFormed(value), c === 0x22 ? 'double' : 'single', ref);
    } else if (!ref && (c === 0x7c || c === 0x3e)) {
      return this.blockScalar(at, column);
    } else if (!ref && (c === 0x5b || c === 0x7b) && text.charCodeAt(at + 1) === c + 2) {
      // An empty flow collection (`[]`, `{}`): no flow warning is due for it (SRC-5).
      after = at + 2;
      const start = this.offset + at;
      node = c === 0x5b ? new SeqNode(start, start + 2, true, []) : new MapNode(start, start + 2, true, []);
    } else {
      if (!startsPlain(text, start)) decline();
      const hash = text.indexOf(' #', start);
      let valueEnd = hash !== -1 && hash < stop ? hash : stop;
      while (text.charCodeAt(valueEnd - 1) === 0x20) valueEnd--;
      const source = text.slice(start, valueEnd);
      if (source.includes(': ') || source.endsWith(':')) decline();
      // A tagged scalar is a string: yaml resolves no Core type under an unknown tag.
      node = this.scalar(at, valueEnd, ref ? this.wellFormed(source) : resolvePlain(source), 'plain', ref);
      after = valueEnd;
    }
    let i = after;
    while (text.charCodeAt(i) === 0x20) i++;
    if (i < stop && (i === after || text.charCodeAt(i) !== 0x23)) decline();
    if (lineEnd === -1) this.line = -1;
    else this.skipToContent(lineEnd + 1, column);
    if (this.line !== -1 && this.indent > column) decline();
    return { node, end: lineEnd === -1 ? text.length : lineEnd + 1 };
  }

  /**
   * A block scalar (`|`, `|-`, `>`, `>-`) at `at` whose content lines sit deeper than
   * `column`: its value is what yaml's own block-scalar resolver makes of the same token
   * (folding and chomping are its rules, not copied here). Declines a keep chomp (`+`), an
   * indentation indicator, a comment after the header, leading blank lines and lines of spaces.
   */
  private blockScalar(at: number, column: number): Read<YScalar> {
    const text = this.text;
    const headerEnd = text.indexOf('\n', at);
    const header = text.slice(at, headerEnd === -1 ? text.length : headerEnd);
    if (!BLOCK_HEADER.test(header) || headerEnd === -1) decline();
    let lineStart = headerEnd + 1;
    let contentEnd = lineStart;
    let first = true;
    for (;;) {
      let i = lineStart;
      while (text.charCodeAt(i) === 0x20) i++;
      const c = text.charCodeAt(i);
      if (Number.isNaN(c) && i === lineStart) break;
      if (c === 0x0a || Number.isNaN(c)) {
        // A blank line: content only if a deeper line follows (then yaml keeps it as `\n`).
        if (first || i !== lineStart) decline();
        lineStart = i + 1;
        continue;
      }
      if (i - lineStart <= column) break;
      first = false;
      const lineEnd = text.indexOf('\n', i);
      if (lineEnd === -1) {
        contentEnd = text.length;
        lineStart = text.length;
        break;
      }
      contentEnd = lineEnd + 1;
      lineStart = lineEnd + 1;
    }
    if (first) decline();
    const resolved = yamlModule().CST.resolveAsScalar(
      {
        type: 'block-scalar',
        offset: at,
        indent: column,
        props: [
          { type: 'block-scalar-header', offset: at, indent: column, source: header },
          { type: 'newline', offset: headerEnd, indent: column, source: '\n' },
        ],
        source: text.slice(headerEnd + 1, contentEnd),
      },
      true,
      decline,
    );
    if (resolved === null) decline();
    const value = this.wellFormed(resolved.value);
    const style = header.startsWith('|') ? 'literal' : 'folded';
    const node = this.scalar(resolved.range[0], resolved.range[1], value, style, false);
    if (contentEnd === text.length) this.line = -1;
    else this.skipToContent(contentEnd, column);
    if (this.line !== -1 && this.indent > column) decline();
    return { node, end: resolved.range[2] };
  }

  /** Comment lines after a block's last item end yaml's range of that block or of one around it, depending on their indentation; left to yaml. */
  private closeBlock(): void {
    if (this.passedComment) decline();
  }

  /** The block's list: what was pending from `base`, at its exact length. */
  private cut(base: number): (YEntry | YNode)[] {
    const list = this.pending.slice(base, this.top);
    this.top = base;
    return list;
  }

  private scalar(start: number, end: number, value: YScalar['value'], style: YScalar['style'], ref: boolean, empty = false): YScalar {
    return new ScalarNode(this.offset + start, this.offset + end, value, style, ref, empty);
  }

  private wellFormed(value: string): string {
    if (this.refuseLoneSurrogates && !value.isWellFormed()) decline();
    return value;
  }
}

/**
 * Keys are the same few dozen words in every source of a package: one string for each instead
 * of one per entry, since a cold build keeps every tree alive to the end. Bounded, so a long
 * session (watch, the language server) of ever new keys cannot grow it.
 */
const KEYS = new Map<string, string>();
const MAX_KEYS = 4096;

function internKey(key: string): string {
  const known = KEYS.get(key);
  if (known !== undefined) return known;
  if (KEYS.size < MAX_KEYS) KEYS.set(key, key);
  return key;
}

/** Up to this many keys a map's duplicate check scans its entries. */
const SCANNED_KEYS = 16;

function hasKey(entries: readonly YEntry[], from: number, to: number, key: string): boolean {
  for (let i = from; i < to; i++) if (entries[i]!.key === key) return true;
  return false;
}

/** A plain scalar may not start with an indicator, nor with `-`, `?` or `:` followed by a space (nor, here, with a space or be empty). */
function startsPlain(text: string, at: number): boolean {
  const c = text[at];
  if (c === undefined || ' \n[]{},#&*!|>\'"%@`'.includes(c)) return false;
  if (c === '-' || c === '?' || c === ':') {
    const next = text.charCodeAt(at + 1);
    return next !== 0x20 && next !== 0x0a && !Number.isNaN(next);
  }
  return true;
}

function closingDoubleQuote(text: string, from: number, stop: number): number {
  for (let i = from; i < stop; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5c) i++;
    else if (c === 0x22) return i;
  }
  return decline();
}

function closingSingleQuote(text: string, from: number, stop: number): number {
  for (let i = text.indexOf("'", from); i !== -1 && i < stop; i = text.indexOf("'", i + 2)) {
    if (text.charCodeAt(i + 1) !== 0x27) return i;
  }
  return decline();
}

/** What yaml's Core schema makes of a plain scalar; numbers JSON cannot hold are the slow path's to report. */
function resolvePlain(source: string): YScalar['value'] {
  const c = source.charCodeAt(0);
  // Only these can start a null, bool or number (`~`, digits, `+-.`, n/N, t/T, f/F).
  if (!(c === 0x7e || (c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e || 'nNtTfF'.includes(source[0]!))) return source;
  // `~` alone is null; a letter starts only the null and bool words.
  if (c === 0x7e) return source === '~' ? null : source;
  if (c > 0x40) return CORE_WORDS.has(source) ? CORE_WORDS.get(source)! : source;
  // Decimal numbers as those tags resolve them (`parseInt(s, 10)`, `parseFloat(s)`); the rarer forms (0x, 0o, exponents, .inf, .nan) through yaml's own tags.
  if (CORE_INT.test(source)) return finite(parseInt(source, 10));
  if (CORE_FLOAT.test(source)) return finite(parseFloat(source));
  for (const tag of coreScalarTags()) {
    if (!tag.test!.test(source)) continue;
    const resolved = tag.resolve(source, decline, {});
    // Some resolvers (bool) hand back a Scalar node to keep the source's spelling.
    const value = yamlModule().isScalar(resolved) ? resolved.value : resolved;
    if (typeof value === 'number') return finite(value);
    if (typeof value === 'bigint') return Number(value);
    return value as YScalar['value'];
  }
  return source;
}

function finite(value: number): number {
  return Number.isFinite(value) ? value : decline();
}
