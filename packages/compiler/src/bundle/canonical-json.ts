/**
 * RFC 8785 JSON Canonicalization Scheme (JCS), the byte format of every bundle (BND-1).
 *
 * JCS was designed so that ECMAScript already does most of the work: strings are escaped
 * exactly as `JSON.stringify` escapes them and numbers are written as `Number#toString`
 * writes them. What is left is sorting keys by UTF-16 code units (what the default
 * `Array#sort` does) and refusing everything JSON.stringify would silently drop or coerce,
 * because a bundle must hold exactly the value that was built.
 */
import { firstLoneSurrogate } from '../text/first-lone-surrogate.js';

/**
 * Fragment bytes are cut from 32 KB chunks, one ArrayBuffer for about twenty fragments
 * instead of Node's pool of 8 KB: a cold build encodes every file and routine, and every
 * ArrayBuffer costs time to make and to track for the collector (3,000 cold allocations of
 * 1.5 KB: 36-48 ms from Node's pool, 11-17 ms from 32 KB chunks). As with Node's pool, a chunk
 * lives while any fragment cut from it does; larger fragments get their own buffer.
 */
const CHUNK = 32 * 1024;
let chunk: Buffer | undefined;
let chunkUsed = 0;

function fragmentBuffer(size: number): Buffer {
  if (size > CHUNK / 4) return Buffer.allocUnsafeSlow(size);
  if (chunk === undefined || chunkUsed + size > CHUNK) {
    chunk = Buffer.allocUnsafeSlow(CHUNK);
    chunkUsed = 0;
  }
  const bytes = chunk.subarray(chunkUsed, chunkUsed + size);
  chunkUsed += size;
  return bytes;
}

/**
 * `prefix` and `text` in UTF-8, one after the other. A fragment that surely fits what is left
 * of the chunk (three bytes for every UTF-16 unit at most) is encoded straight into it, one pass
 * over the text; any other is measured first (`Buffer.byteLength`, a second pass).
 */
function encodeFragment(prefix: string, text: string): Uint8Array {
  const most = 3 * (prefix.length + text.length);
  if (chunk !== undefined && most <= CHUNK / 4 && chunkUsed + most < CHUNK) {
    const start = chunkUsed;
    chunkUsed += chunk.write(prefix, chunkUsed);
    chunkUsed += chunk.write(text, chunkUsed);
    return chunk.subarray(start, chunkUsed);
  }
  const at = Buffer.byteLength(prefix);
  const bytes = fragmentBuffer(at + Buffer.byteLength(text));
  if (at > 0) bytes.write(prefix, 0);
  bytes.write(text, at);
  return bytes;
}

/**
 * Text that is already canonical JSON, spliced into the output verbatim. The assembler keeps
 * one per captured entry, so a rebuild re-serializes only the entries that changed. The text
 * is trusted: a non-canonical fragment yields a bundle that `readBundle` refuses.
 */
export class RawJson {
  /** Undefined once `release` let it go: the bytes hold it then. */
  #text: string | undefined;
  #prefix = '';
  #bytes: Uint8Array | undefined;

  constructor(text: string) {
    this.#text = text;
  }

  /** The canonical text; after `release`, decoded again from the bytes (a rebuild of a changed container asks it, a cold build never does). */
  get text(): string {
    if (this.#text !== undefined) return this.#text;
    const bytes = this.#bytes!;
    return (this.#text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8', Buffer.byteLength(this.#prefix)));
  }

  /** The text in UTF-8, encoded once: a rebuild copies unchanged fragments' bytes instead of encoding them again. */
  get bytes(): Uint8Array {
    return this.prefixed('');
  }

  /**
   * `prefix` (the `,` or `,"key":` before it in its container) and the text, in UTF-8. One
   * encoding is kept, for the last prefix asked: a fragment sits at one place in a bundle.
   */
  prefixed(prefix: string): Uint8Array {
    if (this.#bytes === undefined || this.#prefix !== prefix) {
      const text = this.text;
      // Written in place rather than encoding `prefix + text`: the joined string would be one more copy of every file's text.
      this.#bytes = encodeFragment(prefix, text);
      this.#prefix = prefix;
      this.#key = undefined;
    }
    return this.#bytes;
  }

  #key: string | undefined;
  #comma = false;

  /**
   * `prefixed` for the value of `key` in an object, `comma` when an entry comes before it:
   * asked again with the same key, it answers without quoting the key again (a rebuild asks
   * it of every routine of the package).
   */
  entry(key: string, comma: boolean): Uint8Array {
    if (this.#bytes !== undefined && this.#key === key && this.#comma === comma) return this.#bytes;
    const bytes = this.prefixed(`${comma ? ',' : ''}${JSON.stringify(key)}:`);
    this.#key = key;
    this.#comma = comma;
    return bytes;
  }

  /**
   * Lets go of the text once it is encoded: the bytes alone stay alive. For the assembler's
   * per-file fragments, which together hold every text of the package a second time; a
   * cold build keeps them all until it writes, and the collector copies every live string.
   */
  release(): this {
    if (this.#bytes !== undefined) this.#text = undefined;
    return this;
  }

  /** The canonical text of `value`, kept for splicing. */
  static of(value: unknown): RawJson {
    return new RawJson(canonicalJson(value));
  }
}

/**
 * Deeper than any bundle the compiler builds; past it a value is refused, which also turns a
 * cyclic value into a clear error instead of a stack overflow.
 */
export const MAX_JSON_DEPTH = 1000;

/**
 * A lone-surrogate escape (`\ud800` to `\udfff`) in JSON text: an odd run of backslashes before
 * `ud8` to `udf`. After an even run (`C:\\udir`) the backslashes are escaped text, not an escape.
 */
const LONE_SURROGATE_ESCAPE = /(?<!\\)(?:\\\\)*\\ud[89a-f]/;

/**
 * Thrown inside the serializer and never seen outside: each enclosing container adds its
 * segment while the stack unwinds, so the happy path carries no path bookkeeping at all.
 */
class Refusal {
  readonly segments: (string | number)[] = [];
  constructor(
    readonly found: string,
    readonly expected: string,
  ) {}
}

/**
 * The RFC 8785 canonical form of a JSON value: object keys sorted by UTF-16 code units, no
 * whitespace, ECMAScript number and string serialization. `RawJson` values are spliced in.
 *
 * @throws TypeError naming the offending value and where it is ("Unexpected NaN at $.a[2],
 *   expected a JSON value") for `undefined` (also as a property value), functions, symbols,
 *   bigints, non-finite numbers, objects that are not plain objects or arrays (Map, Date,
 *   Uint8Array, class instances), strings or keys with lone surrogates, and nesting deeper
 *   than {@link MAX_JSON_DEPTH}.
 */
export function canonicalJson(value: unknown): string {
  try {
    return value instanceof RawJson ? value.text : (fastCanonicalJson(value) ?? serialize(value, 0));
  } catch (error) {
    if (error instanceof Refusal) {
      throw new TypeError(`Unexpected ${error.found} at ${formatJsonPath(error.segments.reverse())}, expected ${error.expected}`);
    }
    throw error;
  }
}

/**
 * The canonical form of `value` as pieces to concatenate, the same bytes as `canonicalJson`:
 * containers whose children are `RawJson` fragments are written around the fragments' cached
 * UTF-8 bytes, and everything else as canonical text.
 *
 * @throws TypeError as `canonicalJson` does, with the same message.
 */
export function canonicalPieces(value: unknown): (string | Uint8Array)[] {
  const out: (string | Uint8Array)[] = [];
  try {
    piecesOf(value, out);
  } catch (error) {
    // The whole value again, for the message with the offending value's full path.
    if (error instanceof TypeError) canonicalJson(value);
    throw error;
  }
  return out;
}

function piecesOf(value: unknown, out: (string | Uint8Array)[]): void {
  if (value instanceof RawJson) {
    out.push(value.bytes);
    return;
  }
  if (!holdsFragments(value)) {
    out.push(canonicalJson(value));
    return;
  }
  if (Array.isArray(value)) {
    out.push('[');
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      // A fragment carries its separator in its cached bytes: one piece, nothing to encode.
      if (item instanceof RawJson) {
        out.push(item.prefixed(i > 0 ? ',' : ''));
        continue;
      }
      if (i > 0) out.push(',');
      piecesOf(item, out);
    }
    out.push(']');
    return;
  }
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object);
  sortKeys(keys);
  out.push('{');
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (object[key] === undefined || !key.isWellFormed()) {
      out.length = 0;
      out.push(canonicalJson(value));
      return;
    }
    const child = object[key];
    if (child instanceof RawJson) out.push(child.entry(key, i > 0));
    else {
      out.push(`${i > 0 ? ',' : ''}${JSON.stringify(key)}:`);
      piecesOf(child, out);
    }
  }
  out.push('}');
}

/** A plain array or object with a fragment among its children or grandchildren. */
function holdsFragments(value: unknown, depth = 0): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) {
    for (const child of value) if (child instanceof RawJson || (depth === 0 && holdsFragments(child, 1))) return true;
    return false;
  }
  if (!isPlainObject(value)) return false;
  // Without Object.values: a rebuild asks this of every entry of the larger lists (exports, requirements).
  const object = value as Record<string, unknown>;
  for (const key in object) {
    const child = object[key];
    if (child instanceof RawJson || (depth === 0 && holdsFragments(child, 1))) return true;
  }
  return false;
}

function isPlainObject(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Native JSON.stringify is several times faster than any serializer written in JavaScript,
 * and it already writes canonical strings and numbers; it only needs objects whose keys are
 * in canonical order and values it would not drop or coerce. So `prepare` checks the value
 * and swaps in sorted copies where needed (sharing every subtree that is already canonical),
 * and `RawJson` fragments travel as placeholder strings that are replaced afterwards.
 * Returns undefined when the output needs a closer look, which `serialize` (exact, but
 * slower) then gives.
 */
function fastCanonicalJson(value: unknown): string | undefined {
  const fragments: string[] = [];
  const out = JSON.stringify(prepare(value, 0, fragments));
  // Well-formed JSON.stringify writes a lone surrogate as a lowercase `\udxxx` escape; the
  // exact serializer then reports where it is.
  if (escapesLoneSurrogate(out)) return undefined;
  return fragments.length === 0 ? out : spliceFragments(out, fragments);
}

/**
 * `JSON.stringify(value)` for a value its maker built canonical (`sortedJson`: keys in canonical
 * order; only strings, finite numbers, booleans, null, arrays and plain objects), which is then
 * its canonical text with no check of each value. Undefined when the text holds a lone
 * surrogate's escape: `canonicalJson` refuses that, naming where it is.
 */
export function trustedJson(value: unknown): string | undefined {
  const out = JSON.stringify(value);
  return escapesLoneSurrogate(out) ? undefined : out;
}

/**
 * What `canonicalJson(value)` would give `JSON.stringify`: `value` checked, with sorted copies of
 * objects whose keys are out of order. Undefined when only the exact path writes it (a `RawJson`
 * fragment, an object with array-index keys out of order).
 *
 * @throws for what `canonicalJson` refuses (the message then names no path: ask `canonicalJson`).
 */
export function canonicalValue(value: unknown): unknown {
  const fragments: string[] = [];
  const prepared = prepare(value, 0, fragments);
  return fragments.length === 0 ? prepared : undefined;
}

function escapesLoneSurrogate(json: string): boolean {
  return json.includes('\\ud') && LONE_SURROGATE_ESCAPE.test(json);
}

/** Starts every placeholder; random so that ordinary text practically never looks like one. */
let placeholderPrefix = '';

function placeholder(fragments: string[], text: string): string {
  if (placeholderPrefix === '') placeholderPrefix = `\u0000berrypack-raw-${Math.random().toString(36).slice(2)}:`;
  fragments.push(text);
  return placeholderPrefix + (fragments.length - 1);
}

function spliceFragments(out: string, fragments: readonly string[]): string | undefined {
  // JSON.stringify writes U+0000 as `\u0000`, and a placeholder is a whole string value.
  const pieces = out.split(`"\\u0000${placeholderPrefix.slice(1)}`);
  // A string in the data that happens to equal a placeholder adds a piece: the count then
  // disagrees and the exact serializer takes over, so correctness never rests on chance.
  if (pieces.length - 1 !== fragments.length) return undefined;
  let result = pieces[0]!;
  for (let i = 1; i < pieces.length; i++) {
    const piece = pieces[i]!;
    const end = piece.indexOf('"');
    const fragment = fragments[Number(piece.slice(0, end))];
    if (fragment === undefined) return undefined;
    result += fragment + piece.slice(end + 1);
  }
  return result;
}

/** Digits-only keys that JavaScript objects always enumerate first, in numeric order. */
const ARRAY_INDEX = /^(?:0|[1-9][0-9]{0,9})$/;

/**
 * `value` checked, with every object whose keys are out of canonical order replaced by a
 * sorted copy; the same object when nothing needed to change.
 */
function prepare(value: unknown, depth: number, fragments: string[]): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      if (value - value === 0) return value;
      return serialize(value, depth);
    case 'object': {
      if (value === null) return value;
      if (Array.isArray(value)) return prepareArray(value, depth, fragments);
      if (value instanceof RawJson) return placeholder(fragments, value.text);
      const proto: unknown = Object.getPrototypeOf(value);
      if (proto === Object.prototype || proto === null || Object.getPrototypeOf(proto) === null) {
        return prepareObject(value as Record<string, unknown>, depth, fragments);
      }
      return serialize(value, depth);
    }
    default:
      // Refuses it, with the same message as the exact path.
      return serialize(value, depth);
  }
}

function prepareArray(items: readonly unknown[], depth: number, fragments: string[]): unknown {
  const n = items.length;
  if (n === 0) return items;
  if (depth >= MAX_JSON_DEPTH) throw tooDeep();
  let copy: unknown[] | undefined;
  let i = 0;
  try {
    for (; i < n; i++) {
      const item = items[i];
      const prepared = prepare(item, depth + 1, fragments);
      if (prepared !== item) (copy ??= items.slice())[i] = prepared;
    }
  } catch (error) {
    if (error instanceof Refusal) error.segments.push(i);
    throw error;
  }
  return copy ?? items;
}

function prepareObject(object: Record<string, unknown>, depth: number, fragments: string[]): unknown {
  const keys = Object.keys(object);
  const n = keys.length;
  if (n === 0) return object;
  if (depth >= MAX_JSON_DEPTH) throw tooDeep();
  let sorted = true;
  for (let i = 1; i < n; i++) {
    if (keys[i - 1]! > keys[i]!) {
      sorted = false;
      break;
    }
  }
  if (!sorted) {
    // A copy cannot put "10" before "9": such an object is written out by hand.
    if (isDigit(keys[0]!.charCodeAt(0)) && ARRAY_INDEX.test(keys[0]!)) return placeholder(fragments, serialize(object, depth));
    sortKeys(keys);
  }
  let copy: Record<string, unknown> | undefined = sorted ? undefined : {};
  let key = '';
  try {
    for (let i = 0; i < n; i++) {
      key = keys[i]!;
      const child = object[key];
      const prepared = prepare(child, depth + 1, fragments);
      if (!sorted) {
        // Assigning `__proto__` would call the setter instead of creating the key.
        if (key === '__proto__') Object.defineProperty(copy, key, { value: prepared, enumerable: true, writable: true, configurable: true });
        else copy![key] = prepared;
      } else if (prepared !== child) {
        // Spread creates own data properties, so a later assignment to `__proto__` is safe here.
        (copy ??= { ...object })[key] = prepared;
      }
    }
  } catch (error) {
    if (error instanceof Refusal) error.segments.push(key);
    throw error;
  }
  return copy ?? object;
}

function isDigit(unit: number): boolean {
  return unit >= 0x30 && unit <= 0x39;
}

/**
 * Orders keys by UTF-16 code units, as RFC 8785 3.2.3 asks: that is what `<` on strings and
 * the default `Array#sort` compare. Most objects have a handful of keys, where an insertion
 * sort is several times faster than the generic sort.
 */
function sortKeys(keys: string[]): void {
  const n = keys.length;
  if (n > 16) {
    keys.sort();
    return;
  }
  for (let i = 1; i < n; i++) {
    const key = keys[i]!;
    let j = i - 1;
    while (j >= 0 && keys[j]! > key) {
      keys[j + 1] = keys[j]!;
      j--;
    }
    keys[j + 1] = key;
  }
}

function tooDeep(): Refusal {
  return new Refusal(`nesting deeper than ${MAX_JSON_DEPTH} levels`, 'an acyclic JSON value');
}

/** The exact serializer: the reference for the fast path and the one that names what it refuses. */
function serialize(value: unknown, depth: number): string {
  switch (typeof value) {
    case 'string':
      return quote(value);
    case 'number':
      // Number#toString is the ECMAScript serialization JCS specifies; it writes -0 as "0".
      if (value - value === 0) return '' + value;
      throw new Refusal(String(value), 'a JSON value');
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      if (value === null) return 'null';
      if (Array.isArray(value)) return serializeArray(value, depth);
      if (value instanceof RawJson) return value.text;
      const proto: unknown = Object.getPrototypeOf(value);
      // The second test accepts plain objects from another realm (a vm context), whose
      // Object.prototype is a different object but likewise the end of the chain.
      if (proto === Object.prototype || proto === null || Object.getPrototypeOf(proto) === null) {
        return serializeObject(value as Record<string, unknown>, depth);
      }
      throw new Refusal(describeObject(value, proto), 'a JSON value');
    }
    case 'bigint':
      throw new Refusal(`bigint ${value}n`, 'a JSON value');
    case 'function':
      throw new Refusal('function', 'a JSON value');
    case 'symbol':
      throw new Refusal('symbol', 'a JSON value');
    default:
      throw new Refusal('undefined', 'a JSON value');
  }
}

function serializeArray(items: readonly unknown[], depth: number): string {
  const n = items.length;
  if (n === 0) return '[]';
  if (depth >= MAX_JSON_DEPTH) throw tooDeep();
  let i = 0;
  try {
    let out = '[' + serialize(items[0], depth + 1);
    for (i = 1; i < n; i++) out += ',' + serialize(items[i], depth + 1);
    return out + ']';
  } catch (error) {
    if (error instanceof Refusal) error.segments.push(i);
    throw error;
  }
}

function serializeObject(object: Record<string, unknown>, depth: number): string {
  const keys = Object.keys(object);
  const n = keys.length;
  if (n === 0) return '{}';
  if (depth >= MAX_JSON_DEPTH) throw tooDeep();
  if (n > 1) sortKeys(keys);
  let key = keys[0]!;
  try {
    let out = '{' + quoteKey(key) + ':' + serialize(object[key], depth + 1);
    for (let i = 1; i < n; i++) {
      key = keys[i]!;
      out += ',' + quoteKey(key) + ':' + serialize(object[key], depth + 1);
    }
    return out + '}';
  } catch (error) {
    if (error instanceof Refusal) error.segments.push(key);
    throw error;
  }
}

function quote(text: string): string {
  const quoted = JSON.stringify(text);
  // Well-formed JSON.stringify writes a lone surrogate as a lowercase `\udxxx` escape, so
  // the whole text is checked only when the output contains one (or a literal `\ud`).
  if (quoted.includes('\\ud') && !text.isWellFormed()) throw loneSurrogate(text, 'a string');
  return quoted;
}

function quoteKey(key: string): string {
  const quoted = JSON.stringify(key);
  if (quoted.includes('\\ud') && !key.isWellFormed()) throw loneSurrogate(key, 'a property name');
  return quoted;
}

function loneSurrogate(text: string, where: string): Refusal {
  const unit = text.charCodeAt(firstLoneSurrogate(text));
  return new Refusal(`lone surrogate U+${unit.toString(16).toUpperCase()} in ${where}`, 'well-formed Unicode (I-JSON)');
}

function describeObject(value: object, proto: unknown): string {
  const tag = Object.prototype.toString.call(value).slice(8, -1);
  if (tag !== 'Object') return tag;
  let name: unknown;
  try {
    name = (proto as { constructor?: { name?: unknown } }).constructor?.name;
  } catch {
    name = undefined;
  }
  return typeof name === 'string' && name !== '' ? `instance of ${name}` : 'object with a prototype';
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `$.a[2]["b c"]`; a very long path keeps its two ends, which are what a reader looks for. */
function formatJsonPath(segments: readonly (string | number)[]): string {
  const shown = segments.length > 24 ? [...segments.slice(0, 12), null, ...segments.slice(-12)] : segments;
  let out = '$';
  for (const segment of shown) {
    if (segment === null) out += `…(${segments.length - 24} more)…`;
    else if (typeof segment === 'number') out += `[${segment}]`;
    else out += IDENTIFIER.test(segment) ? `.${segment}` : `[${JSON.stringify(segment)}]`;
  }
  return out;
}
