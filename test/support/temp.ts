import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { ROOT } from './cli.js';

const made: string[] = [];
// Registered in every test file that imports this module (each file evaluates it afresh), so
// what its tests made goes when the file ends, even when they fail; test/support/temp-check.ts
// fails the run if anything is left.
afterAll(() => cleanup(...made.splice(0)));

/**
 * A fresh directory under the OS temp dir, removed after the test file (or earlier by
 * `cleanup`). Its real path: macOS puts tmpdir behind a symbolic link, and bundlers report real paths.
 */
export function tempDir(prefix = 'berrypack-'): string {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
  made.push(dir);
  return dir;
}

/** Copies `fixtures/<name>` (or several) into a temp dir, keeping their relative layout. */
export function copyFixtures(names: readonly string[], into = tempDir()): string {
  for (const name of names) cpSync(path.join(ROOT, 'fixtures', name), path.join(into, name), { recursive: true });
  return into;
}

/**
 * Copies `fixtures/<name>` to `<into>/<as>` (default: the fixture's last segment), so tests can
 * edit it and packages that import each other keep their relative layout. Returns the copy's path.
 */
export function copyFixture(name: string, into: string, as = path.basename(name)): string {
  const target = path.join(into, as);
  cpSync(path.join(ROOT, 'fixtures', name), target, { recursive: true });
  return target;
}

/** Writes `files` (relative path → text) under `dir`, creating directories as needed. */
export function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    const file = path.join(dir, name);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
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
  // Retried: a host's background writer (Rspack's persistent cache) may still add a file while
  // the directory is removed (ENOTEMPTY under load).
  for (const d of dirs) rmSync(d, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
}

export function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}
