import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type { CompilerHost, ReadCache } from '../host.js';
import type { SourceCache } from './cache/source-cache.js';
import { unpackChecked, type PackedChecked } from './checked-wire.js';

/** One message of the worker: `bytes[i]` is the file of `entries[i]`, which arrive as JSON text. */
export interface WorkerBatch {
  json: string;
  bytes: Uint8Array[];
  /** Only for the type of `json`: what it parses to. */
  entries?: { file: string; stamp: string; changedAt: number | null; checked: PackedChecked }[];
}

/**
 * Whether a worker thread may be used at all (before listing any file): unless turned off
 * (`parallel: false`), when the worker script is there.
 */
export function parallelAllowed(parallel?: boolean): boolean {
  return parallel !== false && workerScript() !== undefined;
}

/**
 * Below this many sources to check, a second thread costs more than it saves: it loads the
 * compiler and yaml and warms its own JIT (about 150 ms on the machine of docs/performance.md)
 * while this thread checks on, and this thread then parses what it sent. Measured there.
 */
export const PARALLEL_MIN_SOURCES = 2000;

/** Whether `count` sources are worth a worker: always with `parallel: true`, else from the threshold. */
export function worthAThread(count: number, parallel?: boolean): boolean {
  return count > 0 && (parallel === true || (parallel === undefined && count >= PARALLEL_MIN_SOURCES));
}

/**
 * Reads and checks `files` on this thread and on one worker thread at once, each taking the
 * next file from a shared counter, and leaves every result in the source cache (and the
 * worker's reads in the read cache, when given one), so the (synchronous) build that follows
 * finds them there. Best effort: a worker that cannot start or fails leaves its files to the
 * build, which reads and checks them as usual. Returns how many files the worker checked.
 */
export async function checkInParallel(files: readonly string[], host: CompilerHost, reads: ReadCache | undefined, sources: SourceCache): Promise<number> {
  if (files.length === 0) return 0;
  const script = workerScript()!;
  const counter = new Int32Array(new SharedArrayBuffer(4));
  const started = Date.now();
  let worker: Worker;
  try {
    worker = new Worker(script, { workerData: { files, counter } });
  } catch {
    return 0;
  }
  const received: WorkerBatch[] = [];
  const finished = new Promise<void>((resolve) => {
    worker.on('message', (message: WorkerBatch | 'done') => {
      if (message === 'done') resolve();
      else received.push(message);
    });
    worker.on('error', () => resolve());
    worker.on('exit', () => resolve());
  });
  for (;;) {
    const i = Atomics.add(counter, 0, 1);
    if (i >= files.length) break;
    try {
      sources.check(files[i]!, host.readFile(files[i]!));
    } catch {
      // Left to the build, as above.
    }
  }
  await finished;
  void worker.terminate();
  let count = 0;
  for (const batch of received) {
    const entries = JSON.parse(batch.json) as NonNullable<WorkerBatch['entries']>;
    entries.forEach((r, i) => {
      const bytes = batch.bytes[i]!;
      // JSON has no Infinity: a file read without a trusted stamp comes back with `null`.
      reads?.prime(r.file, bytes, r.stamp, r.changedAt ?? Infinity, started);
      sources.prime(r.file, bytes, unpackChecked(r.checked));
    });
    count += entries.length;
  }
  return count;
}

/** The compiled worker beside this module; absent when running from sources (tests) or a bundle without it. */
function workerScript(): URL | undefined {
  const here = new URL('./check-worker.js', import.meta.url);
  if (here.protocol === 'file:' && existsSync(here)) return here;
  try {
    const resolved = new URL(import.meta.resolve('@berrypack/compiler/check-worker'));
    return existsSync(resolved) ? resolved : undefined;
  } catch {
    return undefined;
  }
}
