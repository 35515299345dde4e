import { Sweeper } from './package/cache/sweeper.js';
import { PREFETCH_MIN_PATHS, StatPrefetch, type StampFields } from './package/cache/stat-prefetch.js';
import { closeSync, constants, fstatSync, openSync, readdirSync, readFileSync, readSync, realpathSync, statSync, type Stats } from 'node:fs';

export type EntryKind = 'file' | 'directory' | 'symlink' | 'other';

/**
 * All file-system access of the compiler goes through a host, so bundlers can supply
 * their own reads and watchers learn exactly what was read.
 */
export interface CompilerHost {
  /** Throws (with a Node `code` such as ENOENT) when the file cannot be read. */
  readFile(path: string): Uint8Array;
  /** Entries of a directory, without following symbolic links. Throws when unreadable. */
  readdir(path: string): { name: string; kind: EntryKind }[];
  /** Follows symbolic links; undefined when the path does not exist. */
  stat(path: string): { kind: 'file' | 'directory' | 'other'; size: number } | undefined;
  /** Resolves symbolic links; throws when the path does not exist or loops. */
  realpath(path: string): string;
  /**
   * Optional, for rebuilds that skip unchanged files: the bytes with a stamp of the file's
   * identity and times, and the current stamp without reading (undefined when not a regular
   * file). A host without them is read in full on every build.
   */
  readStamped?(path: string): { bytes: Uint8Array; stamp: string; changedAt: number };
  stamp?(path: string): string | undefined;
  /** Optional: the stamp of a directory (its listing changes its times), undefined when not a directory. */
  dirStamp?(path: string): { stamp: string; changedAt: number } | undefined;
}

function stampOf(s: Stats): string {
  return `${s.dev}:${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`;
}

/**
 * Reads through one descriptor, so the stamp describes the bytes read. A file written while
 * it is read gets a new mtime, so its stamp is either racy or differs next time: never trusted.
 */
function readStamped(p: string): { bytes: Uint8Array; stamp: string; changedAt: number } {
  // Non-blocking, so a path swapped for a FIFO since it was checked fails instead of hanging.
  const fd = openSync(p, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const s = fstatSync(fd);
    if (!s.isFile()) return { bytes: readFileSync(fd), stamp: '', changedAt: Infinity };
    const bytes = Buffer.allocUnsafe(s.size);
    let read = 0;
    while (read < s.size) {
      const n = readSync(fd, bytes, read, s.size - read, null);
      if (n === 0) break;
      read += n;
    }
    if (read < s.size) return { bytes: bytes.subarray(0, read), stamp: '', changedAt: Infinity };
    return { bytes, stamp: stampOf(s), changedAt: Math.max(s.mtimeMs, s.ctimeMs) };
  } finally {
    closeSync(fd);
  }
}

export const nodeHost: CompilerHost = {
  readFile: (p) => readFileSync(p),
  readdir: (p) =>
    readdirSync(p, { withFileTypes: true }).map((e) => ({
      name: e.name,
      kind: e.isSymbolicLink() ? 'symlink' : e.isDirectory() ? 'directory' : e.isFile() ? 'file' : 'other',
    })),
  stat: (p) => {
    try {
      // Without an exception for a missing path: a rebuild replays probes of paths that do not
      // exist (a nested plugin.json per listed directory, module candidates), and building the
      // error cost far more than the stat.
      const s = statSync(p, { throwIfNoEntry: false });
      return s === undefined ? undefined : { kind: s.isFile() ? 'file' : s.isDirectory() ? 'directory' : 'other', size: s.size };
    } catch {
      return undefined;
    }
  },
  realpath: (p) => realpathSync.native(p),
  readStamped,
  stamp: (p) => {
    const s = statSync(p, { throwIfNoEntry: false });
    return s?.isFile() ? stampOf(s) : undefined;
  },
  dirStamp: (p) => {
    let s: Stats | undefined;
    try {
      s = statSync(p, { throwIfNoEntry: false });
    } catch {
      return undefined;
    }
    return s?.isDirectory() ? { stamp: stampOf(s), changedAt: Math.max(s.mtimeMs, s.ctimeMs) } : undefined;
  },
};

/** nodeHost's own stamp: a host whose `stamp` is another function (one that counts calls) is asked through it. */
const NODE_STAMP = nodeHost.stamp;

/** Wraps a host and records every file and directory it was asked about, for watch mode. */
export class TrackingHost implements CompilerHost {
  readonly files = new Set<string>();
  readonly directories = new Set<string>();

  constructor(
    private readonly inner: CompilerHost = nodeHost,
    private readonly cache?: ReadCache,
  ) {}

  readFile(path: string): Uint8Array {
    this.files.add(path);
    // Once per build, like stat and realpath below: each importer of a module, each replayed
    // analysis gets the same bytes without another change check.
    let read = this.#reads.get(path);
    if (read === undefined) {
      try {
        read = this.cache ? this.cache.read(path) : this.inner.readFile(path);
      } catch (error) {
        read = { error };
      }
      this.#reads.set(path, read);
    }
    if (!(read instanceof Uint8Array)) throw read.error;
    return read;
  }

  readdir(path: string): { name: string; kind: EntryKind }[] {
    this.directories.add(path);
    return this.inner.readdir(path);
  }

  // One build asks about the same paths many times (each importer of a module, each replayed
  // analysis): it gets one answer per path, which is also one consistent view of the disk.
  readonly #stats = new Map<string, { kind: 'file' | 'directory' | 'other'; size: number } | undefined>();
  readonly #reals = new Map<string, string | { error: unknown }>();
  readonly #reads = new Map<string, Uint8Array | { error: unknown }>();

  stat(path: string): { kind: 'file' | 'directory' | 'other'; size: number } | undefined {
    let s = this.#stats.get(path);
    if (s === undefined && !this.#stats.has(path)) {
      s = this.inner.stat(path);
      this.#stats.set(path, s);
    }
    // A missing file matters to a watcher too: creating it must trigger a rebuild.
    if (s?.kind !== 'directory') this.files.add(path);
    return s;
  }

  realpath(path: string): string {
    let real = this.#reals.get(path);
    if (real === undefined) {
      try {
        real = this.inner.realpath(path);
      } catch (error) {
        real = { error };
      }
      this.#reals.set(path, real);
    }
    if (typeof real !== 'string') throw real.error;
    return real;
  }

  /** Those of `files` this build found missing: stat found nothing, or a read failed for want of the file. */
  missing(): string[] {
    const missing: string[] = [];
    for (const path of this.files) {
      const read = this.#reads.get(path);
      if (read instanceof Uint8Array || this.#stats.get(path) !== undefined) continue;
      const code = (read?.error as NodeJS.ErrnoException | undefined)?.code;
      if (read === undefined || code === 'ENOENT' || code === 'ENOTDIR') missing.push(path);
    }
    return missing.sort();
  }

  dirStamp(path: string): { stamp: string; changedAt: number } | undefined {
    // Checking a directory's stamp stands for listing it: a watcher must still see it.
    this.directories.add(path);
    return this.inner.dirStamp?.(path);
  }
}

/**
 * A host that serves a file unchanged since the last build (same device, inode, size and
 * times) from memory, as the same bytes object, so per-file caches can skip hashing too.
 * A file changed within the timestamp granularity of its read is "racy" (a second write in
 * the same tick would keep its stamp): it is read again next time, as git does.
 */
export class ReadCache {
  #entries = new Map<string, { stamp: string; bytes: Uint8Array; fields?: number[] }>();
  #live = new Sweeper();
  /** Set for one build whose watcher reported what changed (`assumeUnchanged`). */
  #reported: { root: string; changed: ReadonlySet<string> } | undefined;
  /** Stamps taken together at the start of one build (`prefetchStamps`). */
  #stamps: StampFields | undefined;
  readonly #prefetch = new StatPrefetch();
  /** Files primed since the last `trustPrimed` (or build). */
  #primed = new Set<string>();
  /**
   * Files primed by a `prepare` that ended in this turn of the event loop: a build that starts
   * before the turn ends (the CLI's, right after `prepare`) serves them without a stat, as if it
   * had read them itself a moment earlier; any later build checks their stamps as usual.
   */
  #fresh: ReadonlySet<string> | undefined;
  hits = 0;
  misses = 0;

  constructor(readonly inner: CompilerHost) {}

  /** A host that replaces `readFile` but inherits nodeHost's stamped reads (`{ ...nodeHost, readFile }`) is read through its own `readFile`. */
  get enabled(): boolean {
    const { readStamped, stamp, readFile } = this.inner;
    return readStamped !== undefined && stamp !== undefined && (readStamped !== nodeHost.readStamped || readFile === nodeHost.readFile);
  }

  /**
   * For the next build of `root` (until called again): a watcher reported `changed` as every file
   * that changed since the previous build of `root`, so a file that build read and that is not in
   * it is served from memory without a stat. Undefined: every file's stamp is checked.
   */
  assumeUnchanged(root: string, changed: Iterable<string> | undefined): void {
    this.#reported = changed === undefined ? undefined : { root, changed: new Set(changed) };
    this.#stamps = undefined;
  }

  /**
   * For the next build of `root` (until `assumeUnchanged`), with no list of changed files: the
   * stamps of every file the previous build of `root` read, taken now on two threads (see
   * `StatPrefetch`) instead of one at a time as they are read. Only on Node's file system.
   */
  prefetchStamps(root: string): void {
    if (this.inner.stamp !== NODE_STAMP || !this.enabled) return;
    const paths = this.#live.keysOf(root);
    if (paths.length >= PREFETCH_MIN_PATHS) this.#stamps = this.#prefetch.stat(paths);
  }

  read(path: string): Uint8Array {
    const inner = this.inner;
    if (inner.readStamped === undefined || inner.stamp === undefined || !this.enabled) return inner.readFile(path);
    const known = this.#entries.get(path);
    const reported = this.#reported;
    const unchanged = reported !== undefined && !reported.changed.has(path) && this.#live.usedBy(reported.root, path);
    this.#live.use(path);
    if (
      known !== undefined &&
      (unchanged || this.#fresh?.has(path) === true || (inner.stamp === NODE_STAMP ? this.#sameNodeStamp(path, known) : inner.stamp(path) === known.stamp))
    ) {
      this.hits++;
      return known.bytes;
    }
    this.misses++;
    const started = Date.now();
    const read = inner.readStamped(path);
    if (read.stamp !== '' && !racy(read.changedAt, started)) this.#entries.set(path, { stamp: read.stamp, bytes: read.bytes });
    else this.#entries.delete(path);
    return read.bytes;
  }

  #sameNodeStamp(path: string, known: { stamp: string; fields?: number[] }): boolean {
    const taken = this.#stamps?.get(path);
    if (taken === undefined) return sameNodeStamp(path, known);
    if (taken === null) return false;
    const f = (known.fields ??= known.stamp.split(':').map(Number));
    return taken[0] === f[0] && taken[1] === f[1] && taken[2] === f[2] && taken[3] === f[3] && taken[4] === f[4];
  }

  /** Bytes read elsewhere (a worker thread) at `started`, with their stamp: served like this cache's own reads. */
  prime(path: string, bytes: Uint8Array, stamp: string, changedAt: number, started: number): void {
    if (!this.enabled) return;
    this.misses++;
    if (stamp === '' || racy(changedAt, started)) return;
    this.#entries.set(path, { stamp, bytes });
    this.#primed.add(path);
  }

  /** The files primed so far are served without a stat until this turn of the event loop ends (see `#fresh`). */
  trustPrimed(): void {
    const fresh = this.#primed;
    this.#primed = new Set();
    this.#fresh = fresh;
    setImmediate(() => {
      if (this.#fresh === fresh) this.#fresh = undefined;
    }).unref();
  }

  /** After a build of `root`: forgets files no latest build read, so a watch session stays bounded. */
  sweep(root: string): void {
    this.#primed.clear();
    this.#fresh = undefined;
    this.#live.sweep(root, this.#entries);
  }
}

/**
 * `nodeHost.stamp(path) === known.stamp` without formatting a new stamp: the fields of the
 * stat compared as numbers (formatting the two times took about as long as the stat itself).
 */
function sameNodeStamp(path: string, known: { stamp: string; fields?: number[] }): boolean {
  const s = statSync(path, { throwIfNoEntry: false });
  if (s === undefined || !s.isFile()) return false;
  // A stamp's numbers print and parse back exactly (shortest round-trip form).
  const f = (known.fields ??= known.stamp.split(':').map(Number));
  return s.dev === f[0] && s.ino === f[1] && s.size === f[2] && s.mtimeMs === f[3] && s.ctimeMs === f[4];
}

// A file's times come from the kernel's coarse clock, which can trail Date.now() (5 ms seen on
// Linux 6.18; a jiffy is 10 ms at HZ=100): a write right after a read that started just past the
// tick could still carry the file's previous tick, so the window reaches that much further back.
const FILE_CLOCK_LAG_MS = 20;

/**
 * Whether a file changed at `changedAt` (its mtime or ctime) may change again without a new
 * stamp after a read that started at `started`: within one timestamp tick and the file clock's
 * lag. ext4, xfs, btrfs and tmpfs keep nanoseconds but follow the kernel's coarse clock (a few
 * ms); a time on a whole second comes from a file system that keeps seconds (or two, FAT), so the
 * tick is taken as 2 s.
 */
export function racy(changedAt: number, started: number): boolean {
  const tick = changedAt % 1000 === 0 ? 2000 : 100;
  return changedAt > started - tick - FILE_CLOCK_LAG_MS;
}
