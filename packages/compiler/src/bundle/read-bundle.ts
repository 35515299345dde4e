import { canonicalJson } from './canonical-json.js';
import { checkFormat, checkResourceEntries, contentView, type BundleContent, type BundleFormat, type BundleResource } from './content-view.js';
import { isDigest, sha256Hex } from './digest.js';
import { abbreviate, describeError, isObject, kindOf, refuse, Refused, type BundleError } from './refusal.js';
import type { BundleCode } from '../diagnostics/codes/bundle.js';
import { CODES } from '../diagnostics/codes.js';
import { firstInvalidUtf8 } from '../text/first-invalid-utf8.js';

export type { BundleContent, BundleFileEntry, BundleFormat, BundleResource } from './content-view.js';
export type { BundleError } from './refusal.js';

export interface LoadedBundle {
  id: string;
  format: BundleFormat;
  /** The content as a reader uses it, whatever its format stored it as (texts inline, files with digests). */
  content: BundleContent;
  /** The content exactly as the file holds it, which `id` is the digest of: what an importer embeds. */
  stored: Record<string, unknown>;
  /** The file's bytes, exactly as read. */
  bytes: Uint8Array;
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
/** Bytes of `{"content":`, which canonical order puts before the content's own text. */
const HEAD_LENGTH = 11;

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
    const tailLength = `,"format":"${envelope.format}","id":"${envelope.id}"}`.length;
    const digest = `sha256-${sha256Hex(input.subarray(HEAD_LENGTH, input.length - tailLength))}`;
    if (digest !== envelope.id) {
      throw refuse('BP4009', `Unexpected id ${envelope.id}, expected ${digest} (the content's digest): the bundle was changed after it was built`);
    }
    step = 'BP4010';
    if (options.expectedId !== undefined && options.expectedId !== envelope.id) {
      throw refuse('BP4010', `Unexpected bundle ${envelope.id}, expected ${options.expectedId}: this is not the bundle that was imported`);
    }
    step = 'BP4012';
    const content = contentView(envelope.format, envelope.content);
    step = 'BP4015';
    const blobs = readBlobs(checkResourceEntries(envelope.content, 'content'), options.readBlob);
    return { ok: true, bundle: { id: envelope.id, format: envelope.format, content, stored: envelope.content, bytes: input }, blobs };
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
  format: BundleFormat;
  content: Record<string, unknown>;
}

function checkEnvelope(parsed: unknown): Envelope {
  if (!isObject(parsed)) throw refuse('BP4004', `Unexpected ${kindOf(parsed)}, expected a bundle envelope {content, format, id}`);
  // The format comes first: a newer format may well have another envelope, and "written by a
  // newer berrypack" is the message that helps then.
  const format = checkFormat(parsed['format']);
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
  return { id, format, content };
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

function readBlobs(entries: readonly BundleResource[], readBlob: ((hex: string) => Uint8Array | undefined) | undefined): Map<string, Uint8Array> {
  const blobs = new Map<string, Uint8Array>();
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

function snippet(text: string, at: number): string {
  return at >= text.length ? 'end of file' : `${JSON.stringify(text.slice(at, at + 16))}`;
}
