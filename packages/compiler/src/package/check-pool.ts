import { existsSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { Worker } from 'node:worker_threads';
import { LineIndex } from '../diagnostics/line-index.js';
import type { CompilerHost, ReadCache } from '../host.js';
import type { CheckedSource, SourceCache } from './source-cache.js';

/** Below this many sources a second thread costs more to start (about 50–100 ms) than it saves. */
export const PARALLEL_MIN_SOURCES = 400;

interface WorkerResult {
  file: string;
  bytes: Uint8Array;
  stamp: string;
  changedAt: number;
  checked: CheckedSource;
}

/**
 * Reads and checks `files` on this thread and on one worker thread at once, each taking the
 * next file from a shared counter, and leaves every result in the read and source caches, so
 * the (synchronous) build that follows finds them there. Best effort: a worker that cannot
 * start or fails leaves its files to the build, which reads and checks them as usual.
 */
/** Whether a worker thread may be used at all (before listing any file): the option, the worker script, an idle core. */
export function parallelAllowed(parallel?: boolean): boolean {
  if (parallel === false || workerScript() === undefined) return false;
  return parallel === true || secondCoreIdle();
}

/** @returns how many files the worker thread checked. */
export async function checkInParallel(files: readonly string[], host: CompilerHost, reads: ReadCache, sources: SourceCache, parallel?: boolean): Promise<number> {
  if (!parallelAllowed(parallel) || files.length === 0) return 0;
  if (parallel === undefined && files.length < PARALLEL_MIN_SOURCES) return 0;
  const script = workerScript()!;
  const counter = new Int32Array(new SharedArrayBuffer(4));
  const started = Date.now();
  let worker: Worker;
  try {
    worker = new Worker(script, { workerData: { files, counter } });
  } catch {
    return 0;
  }
  const received: WorkerResult[] = [];
  const finished = new Promise<void>((resolve) => {
    worker.on('message', (message: WorkerResult[] | 'done') => {
      if (message === 'done') resolve();
      else received.push(...message);
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
  for (const r of received) {
    // Structured cloning keeps the data, not the class: the line index gets its methods back.
    const routine = r.checked.routine;
    if (routine) Object.setPrototypeOf(routine.lines, LineIndex.prototype);
    reads.prime(r.file, r.bytes, r.stamp, r.changedAt, started);
    sources.prime(r.file, r.bytes, r.checked);
  }
  return received.length;
}

/**
 * Whether another core is free now: on a machine busy with other builds the two threads only
 * take turns on one core and the worker's start-up is lost (measured: 30–50 % slower at a load
 * of 2 on 2 cores). Windows reports no load average, so there it is assumed free.
 */
function secondCoreIdle(): boolean {
  const cores = availableParallelism();
  if (cores < 2) return false;
  const [load = 0] = loadavg();
  return load <= cores - 1;
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
