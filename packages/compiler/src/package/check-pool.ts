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
 * Reads and checks `files` on this thread and on one worker thread at once, each taking the
 * next file from a shared counter, and leaves every result in the read and source caches, so
 * the (synchronous) build that follows finds them there. Best effort: a worker that cannot
 * start or fails leaves its files to the build, which reads and checks them as usual.
 */
/**
 * Whether a worker thread may be used at all (before listing any file): only when asked for
 * (`parallel: true`) and the worker script is there. Not by default: measured on 2 cores, the
 * main thread's deserializing of the worker's located trees costs about what parsing them does,
 * so two threads took 20 % longer at 1,000 sources and as long at 10,000 (docs/performance.md).
 */
export function parallelAllowed(parallel?: boolean): boolean {
  return parallel === true && workerScript() !== undefined;
}

/** @returns how many files the worker thread checked. */
export async function checkInParallel(
  files: readonly string[],
  host: CompilerHost,
  reads: ReadCache,
  sources: SourceCache,
  parallel?: boolean,
): Promise<number> {
  if (!parallelAllowed(parallel) || files.length === 0) return 0;
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
      reads.prime(r.file, bytes, r.stamp, r.changedAt ?? Infinity, started);
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
