import type { CompilerHost, ReadCache } from '../host.js';
import type { SourceCache } from './cache/source-cache.js';
import { unpackChecked, type PackedChecked } from './checked-wire.js';
import { CheckWorker, workerScript } from './check-worker-start.js';

/**
 * Whether a worker thread may be used at all (before listing any file): unless turned off
 * (`parallel: false`), when the worker script is there.
 */
export function parallelAllowed(parallel?: boolean): boolean {
  return parallel !== false && workerScript() !== undefined;
}

/**
 * Below this many sources to check, a worker started only now costs more than it saves: it
 * loads the compiler and yaml and warms its own JIT (about 150 ms on the machine of
 * docs/performance.md) while this thread checks on, and this thread then parses what it sent.
 * Measured there. A worker started before this thread loaded the compiler (the CLI's) pays
 * from `EARLY_MIN_SOURCES`.
 */
export const PARALLEL_MIN_SOURCES = 2000;

/** Whether `count` sources are worth a worker: always with `parallel: true`, else from the threshold. */
export function worthAThread(count: number, parallel?: boolean): boolean {
  return count > 0 && (parallel === true || (parallel === undefined && count >= PARALLEL_MIN_SOURCES));
}

/** A worker on `files`, or undefined where none can start. */
export function startOnFiles(files: readonly string[]): CheckWorker | undefined {
  const script = workerScript();
  if (script === undefined || files.length === 0) return undefined;
  try {
    return new CheckWorker(script, { files });
  } catch {
    return undefined;
  }
}

/**
 * Reads and checks `files` on this thread while `worker` checks them too, each taking the next
 * file from their shared counter, and leaves every result in the source cache (and the
 * worker's reads in the read cache, when given one), so the (synchronous) build that follows
 * finds them there. Best effort: a worker that fails leaves its files to the build, which reads
 * and checks them as usual. Returns how many files the worker checked.
 */
export async function checkInParallel(
  worker: CheckWorker,
  files: readonly string[],
  host: CompilerHost,
  reads: ReadCache | undefined,
  sources: SourceCache,
): Promise<number> {
  const { counter } = worker;
  for (;;) {
    const i = Atomics.add(counter, 0, 1);
    if (i >= files.length) break;
    try {
      sources.check(files[i]!, host.readFile(files[i]!));
    } catch {
      // Left to the build, as above.
    }
  }
  await worker.finished();
  let count = 0;
  for (const batch of worker.received) {
    const entries = JSON.parse(batch.json) as { file: string; stamp: string; changedAt: number | null; checked: PackedChecked }[];
    entries.forEach((r, i) => {
      const bytes = batch.bytes[i]!;
      // JSON has no Infinity: a file read without a trusted stamp comes back with `null`.
      reads?.prime(r.file, bytes, r.stamp, r.changedAt ?? Infinity, worker.started);
      sources.prime(r.file, bytes, unpackChecked(r.checked));
    });
    count += entries.length;
  }
  return count;
}
