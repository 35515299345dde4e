import path from 'node:path';

/** POSIX path of `file` relative to `dir`: what bundles record, on every platform. */
export function relativePosix(dir: string, file: string): string {
  return path.relative(dir, file).split(path.sep).join('/');
}
