import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';

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
      const s = statSync(p);
      return { kind: s.isFile() ? 'file' : s.isDirectory() ? 'directory' : 'other', size: s.size };
    } catch {
      return undefined;
    }
  },
  realpath: (p) => realpathSync(p),
};

/** Wraps a host and records every file and directory it was asked about, for watch mode. */
export class TrackingHost implements CompilerHost {
  readonly files = new Set<string>();
  readonly directories = new Set<string>();

  constructor(private readonly inner: CompilerHost = nodeHost) {}

  readFile(path: string): Uint8Array {
    this.files.add(path);
    return this.inner.readFile(path);
  }

  readdir(path: string): { name: string; kind: EntryKind }[] {
    this.directories.add(path);
    return this.inner.readdir(path);
  }

  stat(path: string): { kind: 'file' | 'directory' | 'other'; size: number } | undefined {
    const s = this.inner.stat(path);
    // A missing file matters to a watcher too: creating it must trigger a rebuild.
    if (s?.kind !== 'directory') this.files.add(path);
    return s;
  }

  realpath(path: string): string {
    return this.inner.realpath(path);
  }
}
