import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** Helpers shared by the bundler adapters' tests (Rollup, Vite, rolldown, esbuild). */

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const FIXTURES = path.join(ROOT, 'fixtures');

/** The bytes of an emitted file. */
export function readOutput(dir: string, name: string): Uint8Array {
  return new Uint8Array(readFileSync(path.join(dir, name)));
}

let generation = 0;

/** Imports a built ESM file, fresh each time (a rebuilt chunk at the same path is not served from cache). */
export async function importModule<T = Record<string, unknown>>(file: string): Promise<T> {
  return (await import(`${pathToFileURL(file).href}?generation=${++generation}`)) as T;
}

/** The events Rollup's, rolldown's and Vite's watchers share. */
export interface WatchEvent {
  code: string;
  error?: unknown;
  result?: { close(): unknown } | null;
}

export interface Watcher {
  on(name: 'event', listener: (event: WatchEvent) => void): unknown;
  off(name: 'event', listener: (event: WatchEvent) => void): unknown;
}

/**
 * The end of the watcher's next run: resolves on `END`, rejects with the error when the run had an
 * `ERROR` (the watchers emit `END` after it too). Closes each build result on the way, as Rollup
 * and rolldown ask.
 */
export function nextBuild(watcher: Watcher): Promise<void> {
  return new Promise((resolve, reject) => {
    let failed: { error: unknown } | undefined;
    const listener = (event: WatchEvent) => {
      if (event.code === 'BUNDLE_END' || event.code === 'ERROR') void event.result?.close();
      if (event.code === 'ERROR') failed = { error: event.error };
      if (event.code !== 'END') return;
      watcher.off('event', listener);
      if (failed) reject(failed.error);
      else resolve();
    };
    watcher.on('event', listener);
  });
}

/**
 * Applies `change`, then waits for the rebuild it causes (see `nextBuild`). Rollup's watcher
 * (chokidar) registers new paths asynchronously after a build ends, so a file created in a
 * directory it only just began watching can go unnoticed; `change` is applied again every
 * `retryMs` until a build starts. It must therefore be idempotent (write a file, not append).
 */
export async function rebuild(watcher: Watcher, change: () => void, retryMs = 2000): Promise<void> {
  let started = false;
  const onStart = (event: WatchEvent) => {
    if (event.code === 'START' || event.code === 'BUNDLE_START') started = true;
  };
  watcher.on('event', onStart);
  const done = nextBuild(watcher);
  const timer = setInterval(() => {
    if (!started) change();
  }, retryMs);
  try {
    change();
    await done;
  } finally {
    clearInterval(timer);
    watcher.off('event', onStart);
  }
}
