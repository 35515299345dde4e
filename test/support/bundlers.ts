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
 * Applies `change`, then waits until the watcher has rebuilt for it and settled: the end of the
 * last build that started after the change, with no new one starting within `settleMs`. One edit
 * can reach the watcher as several events (a new file's `add` and `change`, an event arriving
 * while a build runs), each starting a build; a build that started before the change, or one
 * that started before the watcher saw all of it, does not show its result, so the outcome is
 * the last build's (its error, if it failed). Rollup's watcher (chokidar) registers new paths
 * asynchronously after a build ends, so a file created in a directory it only just began
 * watching can go unnoticed; `change` is applied again every `retryMs` until a build starts. It
 * must therefore be idempotent (write a file, not append).
 */
export async function rebuild(watcher: Watcher, change: () => void, retryMs = 2000, settleMs = 400): Promise<void> {
  let started = false;
  let failed: { error: unknown } | undefined;
  let quiet: ReturnType<typeof setTimeout> | undefined;
  let listener: ((event: WatchEvent) => void) | undefined;
  const settled = new Promise<void>((resolve, reject) => {
    listener = (event: WatchEvent) => {
      if (event.code === 'BUNDLE_END' || event.code === 'ERROR') void event.result?.close();
      if (event.code === 'START' || event.code === 'BUNDLE_START') {
        started = true;
        failed = undefined;
        clearTimeout(quiet);
      }
      if (!started) return;
      if (event.code === 'ERROR') failed = { error: event.error };
      if (event.code === 'END') {
        clearTimeout(quiet);
        quiet = setTimeout(() => (failed ? reject(failed.error) : resolve()), settleMs);
      }
    };
  });
  watcher.on('event', listener!);
  const timer = setInterval(() => {
    if (!started) change();
  }, retryMs);
  try {
    change();
    await settled;
  } finally {
    clearInterval(timer);
    clearTimeout(quiet);
    watcher.off('event', listener!);
  }
}
