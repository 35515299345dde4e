import type { CompilerHost, ReadCache } from '../host.js';
import type { SourceCache } from './cache/source-cache.js';
import type { CodeContext } from '../code/index.js';
import { CheckWorker, workerScript, type WorkerBatch, type WorkerEntry } from './check-worker-start.js';
import { codeInput, type RoutineCodeCache } from './steps/analyze-code.js';

/**
 * Whether `prepare` may use a worker thread at all (before reading any file): one the caller
 * started already, or `parallel: true`; never with `parallel: false`; only when the worker
 * script is there.
 */
export function parallelAllowed(parallel: boolean | undefined, started: boolean): boolean {
  return parallel !== false && (started || parallel === true) && workerScript() !== undefined;
}

/**
 * Whether `count` sources get a worker: only with `parallel: true`. By default every build stays
 * on one thread: with the frontmatter fast path a source costs this thread less to check than a
 * worker's start-up, JIT warm-up and hand-back save on two cores, measured at 100, 1,000 and
 * 10,000 sources (docs/performance.md, "Cold build: one thread by default").
 */
export function worthAThread(count: number, parallel?: boolean): boolean {
  return count > 0 && parallel === true;
}

/** A worker on `files`, or undefined where none can start; `oneShot` as in `startCheckWorker`. */
export function startOnFiles(files: readonly string[], oneShot: boolean): CheckWorker | undefined {
  const script = workerScript();
  if (script === undefined || files.length === 0) return undefined;
  try {
    return new CheckWorker(script, { files }, !oneShot);
  } catch {
    return undefined;
  }
}

/** The code analysis of the checked sources, done beside the check (steps/analyze-code.ts). */
export interface CodeStep {
  manifestDir: string;
  ctx: CodeContext;
  cache: RoutineCodeCache;
}

/**
 * Checks `files` on this thread while `worker` reads them too, each thread taking the next file
 * from their shared counter: this thread reads its own, and between its files takes in the
 * worker's batches (the bytes) and checks those files from the bytes; every code routine is
 * analyzed here. Leaves every result in the source cache and the code routines' cache (and the
 * worker's reads in the read cache, when given one), so the (synchronous) build that follows
 * finds them there and only resolves and assembles. Best effort: a worker that fails leaves its
 * files to the build, which reads, checks and analyzes them as usual. Returns how many files the
 * worker read.
 */
export async function checkInParallel(
  worker: CheckWorker,
  files: readonly string[],
  host: CompilerHost,
  reads: ReadCache | undefined,
  sources: SourceCache,
  code: CodeStep,
): Promise<number> {
  const { counter } = worker;
  let count = 0;
  const receive = (): void => {
    for (let batch = worker.take(); batch !== undefined; batch = worker.take()) count += primeBatch(batch, worker.started, reads, sources, code);
  };
  for (;;) {
    const i = Atomics.add(counter, 0, 1);
    if (i >= files.length) break;
    try {
      checkOne(files[i]!, host.readFile(files[i]!), undefined, sources, code);
    } catch {
      // Left to the build, as above.
    }
    // Between its own files this thread takes in what the worker sent, so receiving is shared
    // out by the counter like checking is, instead of waiting for this thread at the end.
    receive();
  }
  await worker.finished();
  receive();
  // Everything it sent is taken: end it and close its port.
  worker.stop();
  reads?.trustPrimed();
  return count;
}

/** Leaves one batch of the worker's reads in the caches, each file checked; returns how many files it held. */
function primeBatch(batch: WorkerBatch, started: number, reads: ReadCache | undefined, sources: SourceCache, code: CodeStep): number {
  const entries = JSON.parse(batch.json) as WorkerEntry[];
  entries.forEach((r, i) => {
    const start = i === 0 ? 0 : batch.ends[i - 1]!;
    const bytes = new Uint8Array(batch.data, start, batch.ends[i]! - start);
    reads?.prime(r.file, bytes, r.stamp, r.changedAt ?? Infinity, started);
    try {
      checkOne(r.file, bytes, r.digest, sources, code);
    } catch {
      // Left to the build, as this thread's own files are.
    }
  });
  return entries.length;
}

/** Checks one source and analyzes it if it is a code routine, leaving both results in their caches. */
function checkOne(file: string, bytes: Uint8Array, digest: string | undefined, sources: SourceCache, code: CodeStep): void {
  const routine = sources.check(file, bytes, digest).routine;
  const input = routine && codeInput(routine, code.manifestDir);
  if (input !== undefined) code.cache.analyze(routine!, input, code.ctx);
}
