import { lstatSync, renameSync, truncateSync } from 'node:fs';
import path from 'node:path';

/** `<plugin-name>.<12 hex>.berry.json`, and nothing that could leave a directory. */
const BUNDLE_NAME = /^[^/\\]+\.[0-9a-f]{12}\.berry\.json$/;

/**
 * For a bundler that writes the bundle itself (webpack, Rspack, Rollup, Vite) in a watch session:
 * renames the bundle `previous` this session wrote into `dir` to `next`, the name of the bundle
 * that supersedes it, just before the host writes `next`. The host's write then overwrites a
 * file it finds in place of creating one (on ext4 about 1.8 ms against 7.4 ms for a new 2.6 MB
 * file, docs/performance.md), and a session leaves one bundle per package, as `writeBundle`'s
 * `replaces` does for the CLI's watch mode and the esbuild plugin.
 *
 * Only a file that is surely the superseded bundle moves: both names are bundle names, they
 * differ, `previous` is a regular file with no other hard link (another link would keep the old
 * bytes under the old name, which is harmless, but the rename would not reuse anything), and
 * nothing is at `next` yet (never replaces a file). Until the host writes, the file under `next`
 * holds the old bytes, which a loader refuses (they do not hash to `next`'s id). The host must
 * not take the existing file for the new one: the caller makes sure it writes (webpack and
 * Rspack skip an existing file for an asset marked `immutable`).
 *
 * A host that compares before writing would read the old file back: webpack when its length is
 * the new bundle's, Rspack always. So the file is emptied first when its length is `size` (the
 * new bundle's length), or always when `size` is not given. Emptying costs the main thread what
 * the host's own `open(O_TRUNC)` costs on the thread pool (freeing the old blocks, about 2-3 ms
 * for 2.6 MB on the bench machine), so it is done only where a comparison would cost more.
 *
 * @returns whether the file was renamed.
 */
export function handOverBundle(dir: string, previous: string, next: string, size?: number): boolean {
  if (previous === next || !BUNDLE_NAME.test(previous) || !BUNDLE_NAME.test(next)) return false;
  const from = path.join(dir, previous);
  const to = path.join(dir, next);
  let length: number;
  try {
    const stat = lstatSync(from);
    if (!stat.isFile() || stat.nlink !== 1 || exists(to)) return false;
    renameSync(from, to);
    length = stat.size;
  } catch {
    // Gone, or not ours to move: the host writes a new file, as it would without a hand-over.
    return false;
  }
  if (size !== undefined && size !== length) return true;
  try {
    truncateSync(to, 0);
  } catch {
    // The host's write replaces the old bytes all the same.
  }
  return true;
}

function exists(file: string): boolean {
  try {
    lstatSync(file);
    return true;
  } catch {
    return false;
  }
}
