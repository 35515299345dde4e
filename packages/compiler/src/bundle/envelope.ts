import { canonicalPieces } from './canonical-json.js';
import { BUNDLE_FORMATS } from './content-view.js';
import { isDigest, isSha256Hex } from './digest.js';
import { HashChain } from './hash-chain.js';

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
  /**
   * The same bytes as consecutive parts (their concatenation is `bytes`), for writing or hashing
   * without joining them first. Optional: a hand-made bundle has only `bytes`.
   */
  parts?: readonly Uint8Array[];
}

/** NAME-4; anything else could also put a path separator into the file name. */
const PLUGIN_NAME = /^[a-z0-9.-]+$/;

const encoder = new TextEncoder();
/** The envelope's keys in canonical order put `content` first, so its text is a plain prefix. */
const HEAD = encoder.encode('{"content":');

/**
 * Builds the bundle envelope around `content` (BND-1, BND-2). The content is serialized once,
 * as parts: runs of cached fragments are joined once and reused by later builds while every
 * fragment of the run is the same object, so a rebuild after one edit copies the runs the edit
 * touched, hashes the parts for the id and joins the whole file only when `bytes` is asked for.
 *
 * @param content a JSON object; `RawJson` values inside it are spliced in verbatim.
 * @param blobs resource bytes by the hex of their SHA-256, as the content's `resources` list them
 *   (not hashed again here; the loader checks every one it reads).
 * @param chain the package's hash chain in a compiler that builds it again (watch mode): the id
 *   is then hashed only from the first part that changed since the chain's previous bundle.
 * @throws TypeError when `content` is not a JSON object (see `canonicalJson`), the plugin name is
 *   not a valid package name, or a blob key is not 64 lowercase hex digits.
 */
export function createBundle(pluginName: string, content: unknown, blobs: ReadonlyMap<string, Uint8Array> = new Map(), chain?: HashChain): BundleFile {
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
  const contentParts = joinRuns(pieces);
  const id = `sha256-${(chain ?? new HashChain(false)).digest(contentParts)}`;
  // The id only ever goes into the ASCII tail.
  const parts = [HEAD, ...contentParts, encoder.encode(`,"format":"${BUNDLE_FORMAT}","id":"${id}"}`)];
  let bytes: Uint8Array | undefined;
  let text: string | undefined;
  return {
    id,
    fileName: bundleFileName(pluginName, id),
    parts,
    // Joined when asked for: a rebuild that only needs the id, or writes the parts, never copies the whole file.
    get bytes(): Uint8Array {
      return (bytes ??= joinParts(parts));
    },
    get text(): string {
      const b = this.bytes;
      return (text ??= Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8'));
    },
    blobs: new Map(blobs),
  };
}

/**
 * Fragments joined per run of this many: a rebuild copies about this many fragments per edited
 * one (about 80 KB at N = 1,000), and the id hashes a few dozen parts rather than thousands.
 */
const RUN = 64;
/** Each joined run by its first fragment's bytes, with the fragments it joined. */
const joinedRuns = new WeakMap<Uint8Array, { run: readonly Uint8Array[]; joined: Uint8Array }>();

/** `pieces` as UTF-8 parts: consecutive texts encoded together, cached fragment bytes joined by runs. */
function joinRuns(pieces: readonly (string | Uint8Array)[]): Uint8Array[] {
  const parts: Uint8Array[] = [];
  let text = '';
  let run: Uint8Array[] = [];
  const endRun = () => {
    if (run.length > 0) parts.push(joinRun(run));
    run = [];
  };
  for (const piece of pieces) {
    if (typeof piece === 'string') {
      endRun();
      text += piece;
      continue;
    }
    if (text !== '') parts.push(Buffer.from(text, 'utf8'));
    text = '';
    run.push(piece);
    if (run.length === RUN) endRun();
  }
  endRun();
  if (text !== '') parts.push(Buffer.from(text, 'utf8'));
  return parts;
}

function joinRun(run: readonly Uint8Array[]): Uint8Array {
  if (run.length === 1) return run[0]!;
  const known = joinedRuns.get(run[0]!);
  // Fragment bytes are never changed in place: the same objects are the same bytes.
  if (known !== undefined && known.run.length === run.length && known.run.every((piece, i) => piece === run[i])) return known.joined;
  const joined = joinParts(run, Buffer.allocUnsafeSlow(byteLength(run)));
  joinedRuns.set(run[0]!, { run, joined });
  return joined;
}

/**
 * The parts copied into `bytes`: by default one plain Uint8Array (not a Buffer: a caller's
 * `bytes.slice()` must copy, as it does for a Uint8Array) over memory that is not zero-filled
 * first, since the parts fill every byte (a rebuild's 26 MB at N = 10,000 joined in 5–14 ms
 * against 11–14 ms: where the allocator hands back fresh pages, faulting them in costs the same).
 */
function joinParts(parts: readonly Uint8Array[], bytes = unfilledBytes(byteLength(parts))): Uint8Array {
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.length;
  }
  return bytes;
}

function unfilledBytes(length: number): Uint8Array {
  // allocUnsafeSlow gives an ArrayBuffer of its own (never the shared pool's), of exactly this length.
  return new Uint8Array(Buffer.allocUnsafeSlow(length).buffer, 0, length);
}

function byteLength(parts: readonly Uint8Array[]): number {
  let length = 0;
  for (const part of parts) length += part.length;
  return length;
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
