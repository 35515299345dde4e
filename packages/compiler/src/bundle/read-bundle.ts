import { CODES } from '../diagnostics/codes.js';
import type { BundleCode } from '../diagnostics/codes/bundle.js';
import { canonicalJson } from './canonical-json.js';
import { isDigest, sha256Hex } from './digest.js';
import { BUNDLE_FORMAT } from './envelope.js';
import { firstInvalidUtf8 } from '../text/first-invalid-utf8.js';

/** An inline text file of the bundle (a source, a code module, the manifest). */
export interface BundleFileEntry {
  readonly path: string;
  readonly mediaType: string;
  /** `sha256-<hex>` of the UTF-8 bytes of `text`. */
  readonly digest: string;
  /** Length of `text` in UTF-8 bytes. */
  readonly size: number;
  readonly text: string;
}

/** A resource captured byte-exact as the blob `blobs/sha256/<hex of digest>`. */
export interface BundleResource {
  readonly uri: string;
  readonly path: string;
  readonly mediaType: string;
  readonly digest: string;
  readonly size: number;
}

/**
 * The parsed `content` of a bundle. The loader checks `files` and `resources` (when present);
 * the rest belongs to the package compiler (docs/bundle-format.md, "Content").
 */
export interface BundleContent {
  readonly files?: readonly BundleFileEntry[];
  readonly resources?: readonly BundleResource[];
  readonly [key: string]: unknown;
}

export interface LoadedBundle {
  id: string;
  format: string;
  content: BundleContent;
  /** The file's bytes, exactly as read. */
  bytes: Uint8Array;
}

export interface BundleError {
  code: BundleCode;
  /** `BND-n`. */
  rule: string;
  /** Names what did not match: "Unexpected …, expected …". */
  message: string;
}

export type ReadBundleResult =
  | {
      ok: true;
      bundle: LoadedBundle;
      /**
       * The verified blob of every resource by hex digest when `readBlob` was given, empty
       * otherwise: use these bytes rather than a second read that nobody verified.
       */
      blobs: Map<string, Uint8Array>;
    }
  | { ok: false; error: BundleError };

export interface ReadBundleOptions {
  /** The id the caller already knows (an importer's module embeds it); anything else is refused. */
  expectedId?: string | undefined;
  /**
   * Returns the blob named by a resource digest's hex, or undefined when there is none; may throw
   * when it cannot be read. Given, every resource is verified now; otherwise call `verifyBlob`
   * before using a resource.
   */
  readBlob?: ((hex: string) => Uint8Array | undefined) | undefined;
}

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();
const NEWER_FORMAT = /^berrypack\/([0-9]+)$/;
/** Bytes of `{"content":`, which canonical order puts before the content's own text. */
const HEAD_LENGTH = 11;

class Refused {
  constructor(readonly error: BundleError) {}
}

function refuse(code: BundleCode, message: string): Refused {
  return new Refused({ code, rule: CODES[code].rule, message });
}

/**
 * Reads and verifies a bundle (BND-4): strict UTF-8, JSON, the envelope, its format, the id's
 * form, canonical bytes, the id against the content's digest and `expectedId`, every inline
 * file, and every resource blob when `readBlob` is given. Everything is checked before it
 * returns `ok`; the first failed check is reported. Never throws.
 */
export function readBundle(input: Uint8Array, options: ReadBundleOptions = {}): ReadBundleResult {
  // Where an unforeseen exception is reported: the step that was running.
  let step: BundleCode = 'BP4002';
  try {
    if (!(input instanceof Uint8Array)) throw refuse('BP4002', `Unexpected ${typeof input}, expected the bundle's bytes (a Uint8Array)`);
    const text = decodeStrict(input);
    step = 'BP4003';
    const parsed = parseJson(text, input);
    step = 'BP4004';
    const envelope = checkEnvelope(parsed);
    step = 'BP4008';
    checkCanonical(parsed, text);
    step = 'BP4009';
    // The text is canonical and the envelope's keys are known, so the content's canonical bytes
    // are the file minus a fixed head and tail: hash them in place rather than serialize again.
    const tailLength = `,"format":"${BUNDLE_FORMAT}","id":"${envelope.id}"}`.length;
    const digest = `sha256-${sha256Hex(input.subarray(HEAD_LENGTH, input.length - tailLength))}`;
    if (digest !== envelope.id) {
      throw refuse('BP4009', `Unexpected id ${envelope.id}, expected ${digest} (the content's digest): the bundle was changed after it was built`);
    }
    step = 'BP4010';
    if (options.expectedId !== undefined && options.expectedId !== envelope.id) {
      throw refuse('BP4010', `Unexpected bundle ${envelope.id}, expected ${options.expectedId}: this is not the bundle that was imported`);
    }
    step = 'BP4012';
    checkFiles(envelope.content);
    step = 'BP4015';
    const blobs = checkResources(envelope.content, options.readBlob);
    return { ok: true, bundle: { id: envelope.id, format: BUNDLE_FORMAT, content: envelope.content, bytes: input }, blobs };
  } catch (error) {
    if (error instanceof Refused) return { ok: false, error: error.error };
    return { ok: false, error: { code: step, rule: CODES[step].rule, message: `Unexpected failure while verifying the bundle: ${describeError(error)}` } };
  }
}

/**
 * Checks a resource's blob against its entry; undefined when it matches. Call it before
 * using a resource of a bundle read without `readBlob`.
 */
export function verifyBlob(resource: BundleResource, bytes: Uint8Array): BundleError | undefined {
  if (bytes.length !== resource.size) {
    return refuse(
      'BP4015',
      `Unexpected size ${bytes.length} for the blob of resource ${JSON.stringify(resource.uri)}, expected ${resource.size}: the blob was changed or replaced`,
    ).error;
  }
  const digest = `sha256-${sha256Hex(bytes)}`;
  if (digest !== resource.digest) {
    return refuse(
      'BP4015',
      `Unexpected digest ${digest} for the blob of resource ${JSON.stringify(resource.uri)}, expected ${resource.digest}: the blob was changed or replaced`,
    ).error;
  }
  return undefined;
}

/** V8's longest string, in UTF-16 code units: a larger file cannot be decoded as text at all. */
const MAX_TEXT_BYTES = 0x1fff_ffe8;

function decodeStrict(input: Uint8Array): string {
  if (input.length > MAX_TEXT_BYTES) throw refuse('BP4002', `Unexpected bundle file of ${input.length} bytes, expected at most ${MAX_TEXT_BYTES}`);
  try {
    return decoder.decode(input);
  } catch {
    throw refuse('BP4002', `Unexpected invalid UTF-8 at byte ${firstInvalidUtf8(input)}, expected a UTF-8 bundle file`);
  }
}

function parseJson(text: string, input: Uint8Array): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    if (text.charCodeAt(0) === 0xfeff) throw refuse('BP4003', 'Unexpected byte order mark, expected a bundle file starting with `{`');
    if (error instanceof SyntaxError) {
      throw refuse('BP4003', `Unexpected JSON syntax (${error.message}), expected a bundle file (${input.length} bytes read; a truncated file?)`);
    }
    // V8 parses iteratively, but an engine may still give up on extreme nesting.
    throw refuse('BP4003', `Unexpected JSON that cannot be parsed (${describeError(error)}), expected a bundle file`);
  }
}

interface Envelope {
  id: string;
  content: BundleContent;
}

function checkEnvelope(parsed: unknown): Envelope {
  if (!isObject(parsed)) throw refuse('BP4004', `Unexpected ${kindOf(parsed)}, expected a bundle envelope {content, format, id}`);
  // The format comes first: a newer format may well have another envelope, and "written by a
  // newer berrypack" is the message that helps then.
  const format = parsed['format'];
  if (format !== BUNDLE_FORMAT) {
    const version = typeof format === 'string' ? NEWER_FORMAT.exec(format) : null;
    if (version !== null && Number(version[1]) > 1) {
      throw refuse('BP4006', `Unexpected format ${format}, expected ${BUNDLE_FORMAT}: the bundle was written by a newer berrypack; upgrade to load it`);
    }
    throw refuse(
      'BP4005',
      `Unexpected format ${format === undefined ? '(none)' : JSON.stringify(format)}, expected ${JSON.stringify(BUNDLE_FORMAT)}: this is not a berrypack bundle`,
    );
  }
  for (const key of Object.keys(parsed)) {
    if (key !== 'content' && key !== 'format' && key !== 'id') {
      throw refuse('BP4004', `Unexpected key ${JSON.stringify(key)} in the envelope, expected only content, format and id`);
    }
  }
  if (!('content' in parsed)) throw refuse('BP4004', 'Missing `content` in the envelope, expected content, format and id');
  if (!('id' in parsed)) throw refuse('BP4004', 'Missing `id` in the envelope, expected content, format and id');
  const content = parsed['content'];
  if (!isObject(content)) throw refuse('BP4004', `Unexpected ${kindOf(content)} as content, expected an object`);
  const id = parsed['id'];
  if (!isDigest(id)) {
    throw refuse(
      'BP4007',
      `Unexpected id ${typeof id === 'string' ? JSON.stringify(abbreviate(id, 80)) : kindOf(id)}, expected sha256- and 64 lowercase hex digits`,
    );
  }
  return { id, content: content };
}

function checkCanonical(parsed: unknown, text: string): void {
  let canonical: string;
  try {
    canonical = canonicalJson(parsed);
  } catch (error) {
    // Only a value no canonical file can hold gets here (a `\ud800` escape, extreme nesting).
    throw refuse('BP4008', `${describeError(error)}: the bundle is not canonical JSON`);
  }
  if (canonical === text) return;
  let at = 0;
  while (at < text.length && text.charCodeAt(at) === canonical.charCodeAt(at)) at++;
  throw refuse(
    'BP4008',
    `Unexpected ${snippet(text, at)} at character ${at + 1}, expected ${snippet(canonical, at)} (canonical JSON, RFC 8785): a reformatted or edited bundle is a changed bundle`,
  );
}

function checkFiles(content: BundleContent): void {
  if (!('files' in content)) return;
  const files: unknown = content.files;
  if (!Array.isArray(files)) throw refuse('BP4011', `Unexpected ${kindOf(files)} as content.files, expected a list`);
  for (let i = 0; i < files.length; i++) {
    const entry: unknown = files[i];
    const where = `content.files[${i}]`;
    if (!isObject(entry)) throw refuse('BP4011', `Unexpected ${kindOf(entry)} at ${where}, expected {path, mediaType, digest, size, text}`);
    expectString(entry, 'path', where, 'BP4011');
    expectString(entry, 'mediaType', where, 'BP4011');
    expectDigestAndSize(entry, where, 'BP4011');
    const text = expectString(entry, 'text', where, 'BP4011');
    const file = entry as unknown as BundleFileEntry;
    const bytes = encoder.encode(text);
    const name = `${where} (${JSON.stringify(file.path)})`;
    if (bytes.length !== file.size) {
      throw refuse(
        'BP4012',
        `Unexpected size ${file.size} for ${name}, expected ${bytes.length} (the UTF-8 length of its text): the file was changed after it was built`,
      );
    }
    const digest = `sha256-${sha256Hex(bytes)}`;
    if (digest !== file.digest) {
      throw refuse(
        'BP4012',
        `Unexpected digest ${file.digest} for ${name}, expected ${digest} (the digest of its text): the file was changed after it was built`,
      );
    }
  }
}

function checkResources(content: BundleContent, readBlob: ((hex: string) => Uint8Array | undefined) | undefined): Map<string, Uint8Array> {
  const blobs = new Map<string, Uint8Array>();
  if (!('resources' in content)) return blobs;
  const resources: unknown = content.resources;
  if (!Array.isArray(resources)) throw refuse('BP4013', `Unexpected ${kindOf(resources)} as content.resources, expected a list`);
  const entries: BundleResource[] = [];
  for (let i = 0; i < resources.length; i++) {
    const entry: unknown = resources[i];
    const where = `content.resources[${i}]`;
    if (!isObject(entry)) throw refuse('BP4013', `Unexpected ${kindOf(entry)} at ${where}, expected {uri, path, mediaType, digest, size}`);
    expectString(entry, 'uri', where, 'BP4013');
    expectString(entry, 'path', where, 'BP4013');
    expectString(entry, 'mediaType', where, 'BP4013');
    expectDigestAndSize(entry, where, 'BP4013');
    entries.push(entry as unknown as BundleResource);
  }
  if (readBlob === undefined) return blobs;
  for (const resource of entries) {
    const hex = resource.digest.slice(7);
    // Two resources may share a blob; it is read and hashed once.
    if (blobs.has(hex)) {
      if (blobs.get(hex)!.length !== resource.size) throw new Refused(verifyBlob(resource, blobs.get(hex)!)!);
      continue;
    }
    let bytes: Uint8Array | undefined;
    try {
      bytes = readBlob(hex);
    } catch (error) {
      throw refuse('BP4014', `Unexpected error reading blobs/sha256/${hex} for resource ${JSON.stringify(resource.uri)}: ${describeError(error)}`);
    }
    if (bytes === undefined) {
      throw refuse('BP4014', `Missing blobs/sha256/${hex} for resource ${JSON.stringify(resource.uri)}, expected it beside the bundle`);
    }
    const mismatch = verifyBlob(resource, bytes);
    if (mismatch !== undefined) throw new Refused(mismatch);
    blobs.set(hex, bytes);
  }
  return blobs;
}

function expectString(entry: Record<string, unknown>, key: string, where: string, code: BundleCode): string {
  const value = entry[key];
  if (typeof value !== 'string') throw refuse(code, `Unexpected ${kindOf(value)} as ${where}.${key}, expected a string`);
  return value;
}

function expectDigestAndSize(entry: Record<string, unknown>, where: string, code: BundleCode): void {
  const digest = entry['digest'];
  if (!isDigest(digest)) throw refuse(code, `Unexpected ${kindOf(digest)} as ${where}.digest, expected sha256- and 64 lowercase hex digits`);
  const size = entry['size'];
  if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) {
    throw refuse(code, `Unexpected ${kindOf(size)} as ${where}.size, expected a byte count`);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function kindOf(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'list';
  if (typeof value === 'object') return 'object';
  if (typeof value === 'string') return JSON.stringify(abbreviate(value, 40));
  return String(value);
}

function abbreviate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function snippet(text: string, at: number): string {
  return at >= text.length ? 'end of file' : `${JSON.stringify(text.slice(at, at + 16))}`;
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
