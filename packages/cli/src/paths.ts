import path from 'node:path';

/** Paths in output: relative with `/` inside the current directory, absolute outside it (CONTRACTS.md). */
export function displayPath(file: string, cwd = process.cwd()): string {
  if (!path.isAbsolute(file)) return file.split(path.sep).join('/');
  const rel = path.relative(cwd, file);
  if (rel === '') return '.';
  if (rel.startsWith('..') || path.isAbsolute(rel)) return file;
  return rel.split(path.sep).join('/');
}
