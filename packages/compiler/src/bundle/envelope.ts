import { canonicalPieces } from './canonical-json.js';
import { BUNDLE_FORMATS } from './content-view.js';
import { isDigest, isSha256Hex, sha256Hex } from './digest.js';

/** The format this compiler writes, the newest its loader reads (`BUNDLE_FORMATS` lists them all). */
export const BUNDLE_FORMAT = BUNDLE_FORMATS[BUNDLE_FORMATS.length - 1]!;

/** A built bundle, ready to be written (see `writeBundle`) or served. */
export interface BundleFile {
  /** `sha256-<hex>` of the canonical bytes of `content`. */
  id: string;
  /** `<plugin-name>.<first 12 hex of id>.berry.json`. */
  fileName: string;
  /** The file: canonical JSON `{"content":…,"format":"berrypack/2","id":"sha256-…"}` in UTF-8. */
  bytes: Uint8Array;
  /** The same file as text. */
  text: string;
  /** Resource blobs by the hex of their SHA-256, written to `blobs/sha256/<hex>` beside the file. */
  blobs: ReadonlyMap<string, Uint8Array>;
}

/** NAME-4; anything else could also put a path separator into the file name. */
const PLUGIN_NAME = /^[a-z0-9.-]+$/;

const encoder = new TextEncoder();
/** The envelope's keys in canonical order put `content` first, so its text is a plain prefix. */
const HEAD = encoder.encode('{"content":');
const TAIL_LENGTH = `,"format":"${BUNDLE_FORMAT}","id":"sha256-${'0'.repeat(64)}"}`.length;

/**
 * Builds the bundle envelope around `content` (BND-1, BND-2). The content is serialized once:
 * its canonical bytes are hashed for the id and copied into the file as they are.
 *
 * @param content a JSON object; `RawJson` values inside it are spliced in verbatim.
 * @param blobs resource bytes by the hex of their SHA-256, as the content's `resources` list them
 *   (not hashed again here; the loader checks every one it reads).
 * @throws TypeError when `content` is not a JSON object (see `canonicalJson`), the plugin name is
 *   not a valid package name, or a blob key is not 64 lowercase hex digits.
 */
export function createBundle(pluginName: string, content: unknown, blobs: ReadonlyMap<string, Uint8Array> = new Map()): BundleFile {
  const pieces = canonicalPieces(content);
  const first = pieces[0];
  // A loader reads `content.files` and `content.resources`; only an object can carry them.
  if (typeof first !== 'string' || first.charCodeAt(0) !== 0x7b) {
    const shown = typeof first === 'string' ? first : Buffer.from(first ?? []).toString('utf8');
    throw new TypeError(`Unexpected ${shown.slice(0, 20)} as bundle content, expected a JSON object`);
  }
  for (const hex of blobs.keys()) {
    if (!isSha256Hex(hex)) throw new TypeError(`Unexpected blob key ${JSON.stringify(hex)}, expected 64 lowercase hex digits (its SHA-256)`);
  }
  // Copied once into the file's buffer (fragments as their cached bytes); the id only ever goes into the ASCII tail.
  let contentLength = 0;
  for (const piece of pieces) contentLength += typeof piece === 'string' ? Buffer.byteLength(piece, 'utf8') : piece.length;
  const tailLength = TAIL_LENGTH;
  // A plain Uint8Array, not a Buffer: a caller's `bytes.slice()` must copy, as it does for a Uint8Array.
  const bytes = new Uint8Array(HEAD.length + contentLength + tailLength);
  // Buffer's write and copy over the same memory: native, and no view per piece.
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  view.set(HEAD, 0);
  let at = HEAD.length;
  for (const piece of pieces) {
    if (typeof piece === 'string') at += view.write(piece, at, 'utf8');
    else {
      view.set(piece, at);
      at += piece.length;
    }
  }
  const id = `sha256-${sha256Hex(bytes.subarray(HEAD.length, HEAD.length + contentLength))}`;
  const tail = `,"format":"${BUNDLE_FORMAT}","id":"${id}"}`;
  let text: string | undefined;
  encoder.encodeInto(tail, bytes.subarray(HEAD.length + contentLength));
  return {
    id,
    fileName: bundleFileName(pluginName, id),
    bytes,
    // Decoded when asked for: most builds only write the bytes.
    get text(): string {
      return (text ??= Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
    },
    blobs: new Map(blobs),
  };
}

/**
 * `<plugin-name>.<first 12 hex of id>.berry.json`, the one name every entry point uses.
 *
 * @throws TypeError for a name outside NAME-4 (lowercase letters, digits, `-`, `.`) or an id
 *   that is not `sha256-<64 hex>`.
 */
export function bundleFileName(pluginName: string, id: string): string {
  if (!PLUGIN_NAME.test(pluginName)) {
    throw new TypeError(`Unexpected plugin name ${JSON.stringify(pluginName)}, expected lowercase letters, digits, hyphens and periods`);
  }
  if (!isDigest(id)) throw new TypeError(`Unexpected bundle id ${JSON.stringify(id)}, expected sha256- and 64 lowercase hex digits`);
  return `${pluginName}.${id.slice(7, 19)}.berry.json`;
}
