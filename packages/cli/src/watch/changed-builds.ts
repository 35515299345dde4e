import type { BuildResult } from '@berrypack/compiler';
import { ChangeWatcher } from '@berrypack/compiler/internal-cli';

/**
 * The builds of one watch session, each told which files changed since the one before, from file
 * events (ChangeWatcher): a rebuild then stats only those, not every file the previous build read
 * (10,000 at N = 10,000). Where events cannot be trusted (the first build after a folder's watch
 * started, links, a platform other than Linux) the build is told nothing and checks every file.
 *
 * Right after the session's first build, one more build runs unseen (nothing is printed or
 * written): it is the one that checks every file after the watches started, so the user's first
 * edit is already told what changed, and it runs the rebuild's code once before that edit does.
 */
export function changedFileBuilds(
  manifest: string,
  build: (changedFiles: ReadonlySet<string> | undefined) => BuildResult,
  watcher = new ChangeWatcher(),
): { build(): BuildResult; close(): void } {
  // After a build that threw, the changes it took may not have been read: the next checks every file.
  let trusted = true;
  let started = false;
  let closed = false;
  const run = (): BuildResult => {
    const changed = watcher.take();
    const told = trusted ? changed : undefined;
    trusted = false;
    const result = build(told);
    trusted = true;
    watcher.watchFolders(result.files);
    return result;
  };
  return {
    build() {
      const result = run();
      // What each file is (one lstat for a file first seen or changed), after the build's output
      // and before the next build: a rebuild starts at least a debounce later.
      setImmediate(() => {
        watcher.cover(manifest, result.files);
        if (started || closed) return;
        started = true;
        try {
          const unseen = run();
          watcher.cover(manifest, unseen.files);
        } catch {
          // The next build checks every file (`trusted`) and reports what is wrong.
        }
      });
      return result;
    },
    close: () => {
      closed = true;
      watcher.close();
    },
  };
}
