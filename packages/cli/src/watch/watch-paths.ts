import { watch, type FSWatcher } from 'node:fs';
import path from 'node:path';

export interface WatchPathsOptions {
  /** Called for every relevant change, with the changed path. */
  onChange(changed: string): void;
  /** Changes to these paths are not reported (the files a build writes). */
  ignore?(changed: string): boolean;
}

/**
 * Watches the files and directories a build reported. Every watcher is on a directory: an
 * editor that saves by writing a temporary file and renaming it over the original leaves a
 * watcher on the old file deaf, while its directory sees the rename. A directory of
 * `directories` reports any entry (a new routine in a sources folder); for `files` only their
 * own names count. A directory that does not exist yet is awaited in its nearest existing
 * ancestor.
 */
export function watchPaths(files: readonly string[], directories: readonly string[], options: WatchPathsOptions): { close(): void } {
  const wanted = new Map<string, Set<string> | 'any'>();
  for (const dir of directories) wanted.set(dir, 'any');
  for (const file of files) {
    const dir = path.dirname(file);
    const names = wanted.get(dir);
    if (names === 'any') continue;
    wanted.set(dir, (names ?? new Set()).add(path.basename(file)));
  }
  const watchers: FSWatcher[] = [];
  let closed = false;
  const report = (changed: string) => {
    if (!closed && !options.ignore?.(changed)) options.onChange(changed);
  };

  function open(dir: string, accepts: (name: string | null) => boolean): void {
    let watcher: FSWatcher;
    try {
      watcher = watch(dir, { persistent: true }, (_event, name) => {
        if (accepts(name)) report(name === null ? dir : path.join(dir, name));
      });
    } catch (error) {
      const parent = path.dirname(dir);
      const code = (error as NodeJS.ErrnoException).code;
      if ((code === 'ENOENT' || code === 'ENOTDIR') && parent !== dir) {
        const name = path.basename(dir);
        open(parent, (n) => n === null || n === name);
      }
      return;
    }
    // The directory itself went away (or the platform gave up on it): rebuild, which re-registers.
    watcher.on('error', () => {
      watcher.close();
      report(dir);
    });
    watchers.push(watcher);
  }

  for (const [dir, names] of wanted) open(dir, (name) => names === 'any' || name === null || names.has(name));
  return {
    close() {
      closed = true;
      for (const w of watchers) w.close();
    },
  };
}
