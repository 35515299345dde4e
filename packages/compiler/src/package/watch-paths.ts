import path from 'node:path';

/**
 * What to hand a watcher that watches each directory's whole subtree (Rollup's chokidar): the
 * directories a build listed, and only the files outside all of them, since the files inside
 * are covered. Rollup re-adds every registered path to its watcher on each rebuild (a stat and
 * an lstat each), so this turns about one path per source into one per directory.
 */
export function subtreeWatchPaths(files: readonly string[], directories: readonly string[]): string[] {
  const listed = new Set(directories);
  const outside = files.filter((file) => {
    for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
      if (listed.has(dir)) return false;
      if (path.dirname(dir) === dir) return true;
    }
  });
  return [...directories, ...outside];
}
