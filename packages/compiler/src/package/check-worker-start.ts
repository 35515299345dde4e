import { existsSync } from 'node:fs';
import type { MessagePort, Worker } from 'node:worker_threads';
import { workerThreads } from './worker-threads.js';

/**
 * The second thread of a cold build (check-worker.ts), as started and heard from. Deliberately
 * light (node built-ins only): the CLI starts one before it loads the compiler, so the worker
 * lists and reads sources while this thread is still loading its own (docs/performance.md,
 * "Cold build on two threads").
 */

/**
 * One message of the worker: the i-th entry of `json` (an array of `WorkerEntry`) read the bytes
 * `data[ends[i - 1] ?? 0 .. ends[i]]`. One buffer per batch, transferred rather than copied:
 * receiving a few thousand small buffers one by one cost the main thread about as much as
 * checking their files (docs/performance.md, round six).
 */
export interface WorkerBatch {
  json: string;
  data: ArrayBuffer;
  ends: number[];
}

/** One file as the worker read it. */
export interface WorkerEntry {
  file: string;
  /** The bytes' SHA-256 (hex), taken there so this thread does not hash them again; absent for a one-shot build, which keeps none. */
  digest?: string;
  stamp: string;
  /** JSON has no Infinity: a file read without a trusted stamp comes back with `null`. */
  changedAt: number | null;
}

/** What a worker started on a manifest found to check: its real path and the sources, in discovery order. */
export interface WorkerListing {
  manifest: string;
  files: string[];
}

/**
 * Below this many sources a worker started on a manifest lists them and stops: a small build is
 * over before a second thread has loaded the compiler (measured in docs/performance.md).
 */
export const EARLY_MIN_SOURCES = 500;

/**
 * A running worker: each takes the next file from the shared counter. It holds the process open
 * only while someone waits for it (`finished`), so an early worker the build never uses (a usage
 * error, a build served from the persistent cache) does not delay the exit.
 */
export class CheckWorker {
  readonly counter = new Int32Array(new SharedArrayBuffer(4));
  /** When the worker started: its reads are stamped no earlier (the read cache's race check). */
  readonly started = Date.now();
  /** Resolves to the listing of a worker started on a manifest (undefined when it found none), at once for a list of files. */
  readonly listing: Promise<WorkerListing | undefined>;
  readonly #finished: Promise<void>;
  readonly #worker: Worker;
  /** The worker's batches: taken synchronously (`take`), so this thread receives them between its own files. */
  readonly #batches: MessagePort;

  /** `digest`: the build compares digests (not one-shot), so the worker takes each file's. */
  constructor(script: URL, work: { files: readonly string[] } | { manifest: string }, digest: boolean) {
    const { MessageChannel, Worker } = workerThreads();
    const { port1, port2 } = new MessageChannel();
    this.#batches = port1;
    this.#worker = new Worker(script, {
      workerData: { ...work, counter: this.counter, min: EARLY_MIN_SOURCES, digest, batches: port2 },
      transferList: [port2],
    });
    this.#worker.unref();
    let listed: (l: WorkerListing | undefined) => void = () => {};
    this.listing = 'files' in work ? Promise.resolve(undefined) : new Promise((resolve) => (listed = resolve));
    this.#finished = new Promise<void>((resolve) => {
      const end = (): void => {
        listed(undefined);
        resolve();
      };
      this.#worker.on('message', (message: WorkerListing | 'done') => {
        if (message === 'done') end();
        else listed(message);
      });
      this.#worker.on('error', end);
      this.#worker.on('exit', end);
    });
  }

  /** The next batch the worker has posted, if any, without waiting. */
  take(): WorkerBatch | undefined {
    return workerThreads().receiveMessageOnPort(this.#batches)?.message as WorkerBatch | undefined;
  }

  /**
   * Waits (holding the process open) until the worker has posted its last batch; the batches
   * stay to be taken. The worker posts every batch before it says it is done, so once this
   * resolves `take` has all of them.
   */
  async finished(): Promise<void> {
    this.#worker.ref();
    try {
      await this.#finished;
    } finally {
      this.#worker.unref();
    }
  }

  /** Takes every remaining file away from the worker, ends it and drops what it sent but nobody took. */
  stop(): void {
    Atomics.store(this.counter, 0, 2 ** 30);
    void this.#worker.terminate();
    this.#batches.close();
  }
}

/**
 * A worker on `manifest` (a path as given; the worker resolves it), or undefined where none can
 * start. `oneShot`: the build it serves is one-shot (`CompilerOptions.oneShot`), so it takes no digests.
 */
export function startCheckWorker(manifest: string, oneShot = false): CheckWorker | undefined {
  const script = workerScript();
  if (script === undefined) return undefined;
  try {
    return new CheckWorker(script, { manifest }, !oneShot);
  } catch {
    return undefined;
  }
}

/** The compiled worker beside this module; absent when running from sources (tests) or a bundle without it. */
export function workerScript(): URL | undefined {
  const here = new URL('./check-worker.js', import.meta.url);
  if (here.protocol === 'file:' && existsSync(here)) return here;
  try {
    const resolved = new URL(import.meta.resolve('@berrypack/compiler/check-worker'));
    return existsSync(resolved) ? resolved : undefined;
  } catch {
    return undefined;
  }
}
