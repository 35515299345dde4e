import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  fsync,
  fsyncSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
  writevSync,
} from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isSha256Hex } from './digest.js';
import type { BundleFile } from './envelope.js';
import { readBundle, type ReadBundleResult } from './read-bundle.js';

/**
 * Writes the blobs to `outDir/blobs/sha256/<hex>`, then the bundle file to
 * `outDir/<fileName>`, each atomically (a temporary file in the same directory, fsync,
 * rename), so a reader never sees a partial file and a bundle never appears before its
 * blobs. Files that already hold identical bytes are left alone, which keeps watchers quiet
 * and caches warm. On failure the temporary files are removed and the error is rethrown;
 * blobs already written stay, which is harmless: they are named by their content.
 *
 * With `durable: false` (rebuilds in watch mode) nothing is fsynced: the renames stay atomic, so
 * a killed build still leaves no partial file; only a power loss could, and the loader refuses
 * a torn bundle (its id is its digest).
 *
 * With `replaces` (the file name of the bundle this one supersedes in `outDir`, in a watch
 * session), that older bundle is taken over: renamed to the temporary name and overwritten in
 * place, so a session leaves one bundle rather than one per edit, and the write reuses the old
 * file's blocks (on the machine of docs/performance.md a new 4.6 MB file costs about 10 ms, an
 * overwrite under 1 ms). A name that is not a bundle's, or a file that is gone, is ignored.
 *
 * @returns the bundle file's absolute path.
 */
export function writeBundle(outDir: string, bundle: BundleFile, options: { durable?: boolean; replaces?: string | undefined } = {}): string {
  const durable = options.durable ?? true;
  const { dir, blobDir, file } = destination(outDir, bundle);
  if (blobDir !== undefined) {
    for (const [hex, bytes] of bundle.blobs) writeFileAtomic(path.join(blobDir, hex), [bytes], durable);
    if (durable) syncDirectory(blobDir);
  }
  const old = options.replaces;
  const recycled = old !== undefined && old !== bundle.fileName && path.basename(old) === old && old.endsWith('.berry.json') ? path.join(dir, old) : undefined;
  // In its parts when it has them: nothing joins the whole file just to write it.
  writeFileAtomic(file, bundle.parts ?? [bundle.bytes], durable, recycled);
  if (durable) syncDirectory(dir);
  return file;
}

/** How many temporary files writeBundleAsync holds open at once: well under the usual limits on open files (256 on macOS). */
const OPEN_AT_ONCE = 64;

/**
 * `writeBundle(outDir, bundle)` (durable, nothing taken over) with its waits for the disk run
 * together: the bundle and the blobs (up to 64 at a time) are written to their temporary files
 * and fsynced at once on libuv's thread pool, each batch of blobs then renamed; once every blob
 * is in place their directory is synced, and only then is the bundle renamed and its directory
 * synced. So the bundle still never appears before its blobs, and a failure removes the
 * temporary files and rejects, as `writeBundle` throws. One fsync after another cost about 1 ms
 * each on the machine of docs/performance.md, 100 ms for the 100 blobs of N = 10,000.
 *
 * @returns the bundle file's absolute path.
 */
export async function writeBundleAsync(outDir: string, bundle: BundleFile): Promise<string> {
  const { dir, blobDir, file } = destination(outDir, bundle);
  const blobs: Staged[] = [];
  let main: Staged | undefined;
  try {
    // The bundle's own fsync waits alongside the first batch of blobs.
    main = stage(file, bundle.parts ?? [bundle.bytes]);
    let bundleSync = main ? [main] : [];
    const pending = [...bundle.blobs];
    if (blobDir !== undefined) {
      while (pending.length > 0) {
        for (const [hex, bytes] of pending.splice(0, OPEN_AT_ONCE)) {
          const staged = stage(path.join(blobDir, hex), [bytes]);
          if (staged) blobs.push(staged);
        }
        await syncAll([...bundleSync, ...blobs]);
        bundleSync = [];
        while (blobs.length > 0) commit(blobs.shift()!);
      }
      await syncDirectoryAsync(blobDir);
    }
    await syncAll(bundleSync);
    if (main) {
      const staged = main;
      main = undefined;
      commit(staged);
    }
    await syncDirectoryAsync(dir);
    return file;
  } catch (error) {
    for (const staged of main ? [...blobs, main] : blobs) abandon(staged);
    throw error;
  }
}

/** Checks the names, makes the folders: the bundle's folder, its blob folder when it has blobs, and the bundle's path. */
function destination(outDir: string, bundle: BundleFile): { dir: string; blobDir: string | undefined; file: string } {
  // A hand-made BundleFile must not write outside outDir.
  if (path.basename(bundle.fileName) !== bundle.fileName || bundle.fileName.includes('\\') || !bundle.fileName.endsWith('.berry.json')) {
    throw new TypeError(`Unexpected bundle file name ${JSON.stringify(bundle.fileName)}, expected <plugin-name>.<hex>.berry.json`);
  }
  for (const hex of bundle.blobs.keys()) {
    if (!isSha256Hex(hex)) throw new TypeError(`Unexpected blob key ${JSON.stringify(hex)}, expected 64 lowercase hex digits`);
  }
  const dir = path.resolve(outDir);
  mkdirSync(dir, { recursive: true });
  const blobDir = bundle.blobs.size > 0 ? path.join(dir, 'blobs', 'sha256') : undefined;
  if (blobDir !== undefined) mkdirSync(blobDir, { recursive: true });
  return { dir, blobDir, file: path.join(dir, bundle.fileName) };
}

/**
 * Reads and verifies a bundle file (see `readBundle`), resolving resource blobs from
 * `blobs/sha256/<hex>` beside it. Never throws: an unreadable file is BP4001.
 */
export function loadBundleFile(file: string | URL, options: { expectedId?: string | undefined } = {}): ReadBundleResult {
  const filePath = typeof file === 'string' ? path.resolve(file) : fileURLToPath(file);
  let bytes: Uint8Array;
  try {
    bytes = readRegularFile(filePath);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code !== undefined && code !== 'ENOTREG' ? code : error instanceof Error ? error.message : String(error);
    return { ok: false, error: { code: 'BP4001', rule: 'BND-4', message: `Unexpected ${reason} reading ${filePath}, expected a readable bundle file` } };
  }
  const blobDir = path.join(path.dirname(filePath), 'blobs', 'sha256');
  return readBundle(bytes, {
    expectedId: options.expectedId,
    // readBundle only asks for well-formed hex digests, so the name cannot leave blobDir.
    readBlob: (hex) => {
      try {
        return readRegularFile(path.join(blobDir, hex));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
    },
  });
}

/**
 * Reads a regular file, refusing anything else without blocking: a FIFO under a bundle's or a
 * blob's name would wait forever for a writer, and a device such as /dev/zero never ends. The
 * check is on the opened descriptor, so a swap between a check and the read cannot slip past.
 */
function readRegularFile(file: string): Uint8Array {
  const fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) {
      const kind = stat.isDirectory()
        ? 'a directory'
        : stat.isFIFO()
          ? 'a FIFO'
          : stat.isCharacterDevice() || stat.isBlockDevice()
            ? 'a device'
            : 'a special file';
      throw Object.assign(new Error(`${kind} (not a regular file)`), { code: 'ENOTREG' });
    }
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

function writeFileAtomic(target: string, parts: readonly Uint8Array[], durable: boolean, recycle?: string): void {
  const staged = stage(target, parts, recycle);
  if (!staged) return;
  try {
    // Without it a crash after the rename can leave an empty file under the final name.
    if (durable) fsyncSync(staged.fd);
  } catch (error) {
    abandon(staged);
    throw error;
  }
  commit(staged);
}

/** A file written to its temporary name and still open, waiting to be renamed over its target. */
interface Staged {
  fd: number;
  temporary: string;
  target: string;
}

/** Writes `parts` to a fresh temporary file beside `target` (or over `recycle`); undefined when `target` already holds them. */
function stage(target: string, parts: readonly Uint8Array[], recycle?: string): Staged | undefined {
  if (holdsBytes(target, parts)) return undefined;
  // Dot-prefixed, so discovery and globs pass over it; the random part keeps two concurrent
  // builds (turbo runs packages in parallel) from sharing a temporary file.
  const temporary = path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  let fd: number | undefined;
  try {
    fd = recycle !== undefined ? takeOver(recycle, temporary) : undefined;
    fd ??= openSync(temporary, 'wx');
    const length = writeParts(fd, parts);
    if (recycle !== undefined) ftruncateSync(fd, length);
    return { fd, temporary, target };
  } catch (error) {
    abandon({ fd, temporary });
    throw error;
  }
}

/** Closes the temporary file and renames it over its target; on failure removes it and throws. */
function commit(staged: Staged): void {
  let fd: number | undefined = staged.fd;
  try {
    closeSync(fd);
    fd = undefined;
    renameSync(staged.temporary, staged.target);
  } catch (error) {
    abandon({ ...staged, fd });
    throw error;
  }
}

/** Closes and removes a temporary file after a failure, keeping the failure the one reported. */
function abandon(staged: { fd: number | undefined; temporary: string }): void {
  if (staged.fd !== undefined) {
    try {
      closeSync(staged.fd);
    } catch {
      // The write error is the one worth reporting.
    }
  }
  try {
    rmSync(staged.temporary, { force: true });
  } catch {
    // Same: report the failure that stopped the write.
  }
}

function fsyncAsync(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fsync(fd, (error) => (error ? reject(error) : resolve())));
}

/** fsyncs every staged file at once; waits for all of them (none still uses its descriptor when a failure closes it), then throws the first failure. */
async function syncAll(files: readonly Staged[]): Promise<void> {
  const failed = (await Promise.allSettled(files.map((staged) => fsyncAsync(staged.fd)))).find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
}

/** The regular file `old`, renamed to `temporary` and opened for writing over; undefined when it cannot be. */
function takeOver(old: string, temporary: string): number | undefined {
  try {
    // Another hard link would see the new bytes too: such a file is left alone.
    const s = lstatSync(old);
    if (!s.isFile() || s.nlink !== 1) return undefined;
    renameSync(old, temporary);
  } catch {
    return undefined;
  }
  try {
    return openSync(temporary, constants.O_WRONLY);
  } catch {
    rmSync(temporary, { force: true });
    return undefined;
  }
}

/** Writes `parts` one after the other from the start of `fd` (one `writev`, a partial write continued); returns the length. */
function writeParts(fd: number, parts: readonly Uint8Array[]): number {
  const length = byteLength(parts);
  let written = writevSync(fd, parts, 0);
  let start = 0;
  for (const part of parts) {
    const end = start + part.length;
    while (written < end) written += writeSync(fd, part, written - start, end - written, written);
    start = end;
  }
  return length;
}

function byteLength(parts: readonly Uint8Array[]): number {
  let length = 0;
  for (const part of parts) length += part.length;
  return length;
}

function holdsBytes(file: string, parts: readonly Uint8Array[]): boolean {
  try {
    const stat = statSync(file);
    if (!stat.isFile() || stat.size !== byteLength(parts)) return false;
    const held = readFileSync(file);
    let at = 0;
    for (const part of parts) {
      if (!held.subarray(at, at + part.length).equals(part)) return false;
      at += part.length;
    }
    return true;
  } catch {
    return false;
  }
}

/** Makes the renames durable where the platform allows it (Windows cannot fsync a directory). */
function syncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Durability of the directory entry is best effort; the files themselves are synced.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** `syncDirectory` on libuv's thread pool. */
async function syncDirectoryAsync(dir: string): Promise<void> {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    await fsyncAsync(fd);
  } catch {
    // As in syncDirectory: best effort.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
