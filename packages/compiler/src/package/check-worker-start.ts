import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type { CodeRoutineResult } from '../code/types.js';
import type { RecordedAnswer } from './answer-recorder.js';
import type { PackedChecked } from './checked-wire.js';

/**
 * The second thread of a cold build (check-worker.ts), as started and heard from. Deliberately
 * light (node built-ins only): the CLI starts one before it loads the compiler, so the worker
 * loads its modules and checks sources while this thread is still loading its own
 * (docs/performance.md, "Cold build on two threads").
 */

/** One message of the worker: `bytes[i]` is the file of the i-th entry of `json` (an array of `WorkerEntry`). */
export interface WorkerBatch {
  json: string;
  bytes: Uint8Array[];
}

/** One file as the worker read and checked it; a code routine's analysis with the answers it read (by digest). */
export interface WorkerEntry {
  file: string;
  stamp: string;
  /** JSON has no Infinity: a file read without a trusted stamp comes back with `null`. */
  changedAt: number | null;
  checked: PackedChecked;
  /** `root`: the package root the analysis resolved imports against (realpath'd). */
  code?: { root: string; log: RecordedAnswer[]; result: CodeRoutineResult };
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
  readonly received: WorkerBatch[] = [];
  /** Resolves to the listing of a worker started on a manifest (undefined when it found none), at once for a list of files. */
  readonly listing: Promise<WorkerListing | undefined>;
  readonly #finished: Promise<void>;
  readonly #worker: Worker;

  constructor(script: URL, work: { files: readonly string[]; dir: string } | { manifest: string }) {
    this.#worker = new Worker(script, { workerData: { ...work, counter: this.counter, min: EARLY_MIN_SOURCES } });
    this.#worker.unref();
    let listed: (l: WorkerListing | undefined) => void = () => {};
    this.listing = 'files' in work ? Promise.resolve(undefined) : new Promise((resolve) => (listed = resolve));
    this.#finished = new Promise<void>((resolve) => {
      const end = (): void => {
        listed(undefined);
        resolve();
      };
      this.#worker.on('message', (message: WorkerBatch | WorkerListing | 'done') => {
        if (message === 'done') end();
        else if ('files' in message) listed(message);
        else this.received.push(message);
      });
      this.#worker.on('error', end);
      this.#worker.on('exit', end);
    });
  }

  /** Waits (holding the process open) until the worker has taken its last file. */
  async finished(): Promise<void> {
    this.#worker.ref();
    try {
      await this.#finished;
    } finally {
      this.stop();
    }
  }

  /** Takes every remaining file away from the worker and ends it. */
  stop(): void {
    Atomics.store(this.counter, 0, 2 ** 30);
    void this.#worker.terminate();
  }
}

/** A worker on `manifest` (a path as given; the worker resolves it), or undefined where none can start. */
export function startCheckWorker(manifest: string): CheckWorker | undefined {
  const script = workerScript();
  if (script === undefined) return undefined;
  try {
    return new CheckWorker(script, { manifest });
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
