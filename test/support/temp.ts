import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './cli.js';

/** A fresh directory under the OS temp dir; removed by `cleanup`. */
export function tempDir(prefix = 'berrypack-'): string {
  return mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Copies `fixtures/<name>` (or several) into a temp dir, keeping their relative layout. */
export function copyFixtures(names: readonly string[], into = tempDir()): string {
  for (const name of names) cpSync(path.join(ROOT, 'fixtures', name), path.join(into, name), { recursive: true });
  return into;
}

/** Every file below `dir`, relative, sorted. */
export function listFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, e.name);
      if (e.isDirectory()) walk(full);
      else out.push(path.relative(dir, full).split(path.sep).join('/'));
    }
  };
  walk(dir);
  return out.sort();
}

/** Recreates a tree file by file in the given order (to show creation order does not matter). */
export function recreate(from: string, to: string, order: 'forward' | 'reverse', transform?: (rel: string, bytes: Buffer) => Buffer): void {
  const files = listFiles(from);
  for (const rel of order === 'forward' ? files : [...files].reverse()) {
    const target = path.join(to, rel);
    mkdirSync(path.dirname(target), { recursive: true });
    const bytes = readFileSync(path.join(from, rel));
    writeFileSync(target, transform ? transform(rel, bytes) : bytes);
  }
}

export function cleanup(...dirs: string[]): void {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}

export function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}
