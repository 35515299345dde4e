import { lstatSync, statfsSync, statSync, watch, type FSWatcher } from 'node:fs';
import path from 'node:path';

/**
 * Linux file systems whose every change is made by this kernel, so inotify sees it (`statfs`'s
 * type). Not among them: network and FUSE file systems (NFS, CIFS, sshfs), 9p (WSL 2's Windows
 * drives), virtiofs and vboxsf (a host's folders in a VM or Docker Desktop), where a change made
 * on the other side raises no event while a stat would still see it.
 */
const LOCAL_FILE_SYSTEMS = new Set([
  0xef53, // ext2, ext3, ext4
  0x58465342, // xfs
  0x9123683e, // btrfs
  0x01021994, // tmpfs
  0x794c7630, // overlayfs (containers)
  0xf2f52010, // f2fs
  0x2fc12fc1, // zfs
]);

/**
 * Whether a watch of `dir` reports every change to its files before the write returns: only
 * inotify does (on macOS FSEvents, and on Windows its notifications, may arrive after a build
 * that follows the edit at once has started), and only on a local file system.
 */
export function eventsAreComplete(dir: string): boolean {
  if (process.platform !== 'linux') return false;
  try {
    return LOCAL_FILE_SYSTEMS.has(Number(statfsSync(dir).type));
  } catch {
    return false;
  }
}

/**
 * Which of the files a watch session's builds read changed since the previous compile, from the
 * kernel's file events (`fs.watch` on each directory holding such a file), for the compiler's
 * `changedFiles`. esbuild does not tell a plugin what changed, and the CLI's `--watch` only knows
 * that something did, so without this every rebuild's compile stats every file of the package
 * again (1,021 at N = 1,000).
 *
 * The kernel queues an event before the write that causes it returns, so an edit made before
 * the build has been read from the watch descriptor once the event loop has polled between the
 * two (esbuild's onResolve or onLoad come a later turn of the loop than the `rebuild()` call; the
 * CLI starts a rebuild from `setImmediate`, after a poll). Where events could be missing, `take`
 * says it cannot tell and the compile stats every file, as before:
 * - changes between a compile's reads and the start of a new directory's watch (the compile
 *   after a new watch stats everything);
 * - a file that is a symbolic link (its target's directory is not watched) or has another hard
 *   link (a write through the other name raises no event here): while the build reads one (a
 *   link is looked for when a file is first read and after each event naming it; a hard link
 *   made later to an unchanged file goes unseen, as it does for Rollup's and webpack's watchers);
 * - a watched directory replaced or moved (checked by its identity on every `take`), a watch
 *   error, an event without a file name;
 * - a folder outside Linux or on a file system another machine can change (`eventsAreComplete`):
 *   its files are never taken as unchanged.
 * Not detected: an overflow of the kernel's event queue (more than `max_queued_events`, 16,384
 * by default, changes in the watched folders while the event loop is busy), which libuv drops
 * unseen for every `fs.watch` user, Rollup's and webpack's watchers included.
 */
export class ChangeWatcher {
  // Per watched directory: its watch and its device and inode when the watch started.
  readonly #watches = new Map<string, { watch: FSWatcher; id: string }>();
  // Folders not to try again: on a file system whose events are incomplete, or refused a watch.
  readonly #refused = new Set<string>();
  // Per file seen in a build: a plain file events can stand for, missing (a probe: the compiler
  // checks those itself on every build), or neither.
  readonly #kinds = new Map<string, 'plain' | 'missing' | 'other'>();
  #changed = new Set<string>();
  // Something may have changed unseen since the previous `take`.
  #blind = true;
  // Per manifest: every file of its latest build is plain (or missing) and in a watched directory.
  readonly #covered = new Map<string, boolean>();
  #closed = false;

  /** `complete`: whether a folder's watch can be trusted (see `eventsAreComplete`; replaceable for tests). */
  constructor(private readonly complete: (dir: string) => boolean = eventsAreComplete) {}

  /**
   * The files changed since the previous call, or undefined when the watcher cannot tell (then
   * every file must be checked). Call it right before the compile it is for.
   */
  take(): Set<string> | undefined {
    const changed = this.#changed;
    this.#changed = new Set();
    for (const file of changed) this.#kinds.delete(file);
    let blind = this.#blind || this.#covered.size === 0 || [...this.#covered.values()].includes(false);
    for (const [dir, { id }] of this.#watches) {
      if (identity(dir) !== id) {
        this.#unwatch(dir);
        blind = true;
      }
    }
    this.#blind = false;
    return blind ? undefined : changed;
  }

  /** After a compile of `manifest`: watches the directories of the files it read (`files`, absolute paths). */
  cover(manifest: string, files: readonly string[]): void {
    if (this.#closed) return;
    let covered = true;
    for (const file of files) {
      let kind = this.#kinds.get(file);
      if (kind === undefined) {
        kind = kindOf(file);
        this.#kinds.set(file, kind);
      }
      if (kind === 'other' || (kind === 'plain' && !this.#watched(path.dirname(file)))) covered = false;
    }
    this.#covered.set(manifest, covered);
  }

  /**
   * Before a compile that will read `files` (absolute paths): watches their directories, so that
   * the compile after it can take its changes from events. What those files are (`cover`) is
   * checked after that compile, off the build's path.
   */
  watchFolders(files: readonly string[]): void {
    if (this.#closed) return;
    let previous: string | undefined;
    for (const file of files) {
      const dir = path.dirname(file);
      if (dir !== previous) this.#watched(dir);
      previous = dir;
    }
  }

  close(): void {
    this.#closed = true;
    for (const dir of [...this.#watches.keys()]) this.#unwatch(dir);
  }

  #watched(dir: string): boolean {
    if (this.#watches.has(dir)) return true;
    if (this.#refused.has(dir)) return false;
    const id = identity(dir);
    if (id === undefined) return false;
    if (!this.complete(dir)) {
      this.#refused.add(dir);
      return false;
    }
    try {
      // Not persistent: an idle context must not keep the process alive.
      const watcher = watch(dir, { persistent: false }, (_event, name) => {
        if (typeof name === 'string' && name !== '') this.#changed.add(path.join(dir, name));
        else this.#blind = true;
      });
      watcher.on('error', () => {
        this.#unwatch(dir);
        this.#blind = true;
      });
      this.#watches.set(dir, { watch: watcher, id });
    } catch {
      // Out of watches (ENOSPC), unreadable: this directory's files keep being checked.
      this.#refused.add(dir);
      return false;
    }
    // What changed before this watch started was not seen: the next compile checks every file.
    this.#blind = true;
    return true;
  }

  #unwatch(dir: string): void {
    const known = this.#watches.get(dir);
    if (known === undefined) return;
    this.#watches.delete(dir);
    try {
      known.watch.close();
    } catch {
      // Already closed by its error.
    }
  }
}

function identity(dir: string): string | undefined {
  try {
    const s = statSync(dir, { throwIfNoEntry: false });
    return s?.isDirectory() ? `${s.dev}:${s.ino}` : undefined;
  } catch {
    // Not a directory any more (ENOTDIR), unreadable: not the folder that was watched.
    return undefined;
  }
}

function kindOf(file: string): 'plain' | 'missing' | 'other' {
  try {
    const s = lstatSync(file, { throwIfNoEntry: false });
    if (s === undefined) return 'missing';
    return s.isFile() && s.nlink === 1 ? 'plain' : 'other';
  } catch (error) {
    // A probe below a file: the compiler probes those again on every build, as it does missing files.
    return (error as NodeJS.ErrnoException).code === 'ENOTDIR' ? 'missing' : 'other';
  }
}
