import path from 'node:path';

/**
 * What to hand a watcher that watches each directory's whole subtree (Rollup's chokidar): the
 * outermost of the directories a build listed, and only the files outside all of them, since
 * the rest is covered. Rollup re-adds every registered path to its watcher twice per rebuild,
 * and chokidar walks a re-added directory's subtree again (a readdir and a stat per entry): a
 * nested directory registered beside its parent would be walked once more per level.
 */
export function subtreeWatchPaths(files: readonly string[], directories: readonly string[]): string[] {
  const listed = new Set(directories);
  const covered = (entry: string) => {
    for (let dir = path.dirname(entry); ; dir = path.dirname(dir)) {
      if (listed.has(dir)) return true;
      if (path.dirname(dir) === dir) return false;
    }
  };
  return [...directories.filter((dir) => !covered(dir)), ...files.filter((file) => !covered(file))];
}
