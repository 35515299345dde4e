import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import type { Worker } from 'node:worker_threads';
import type { BundleFile } from '../bundle/envelope.js';
import { workerThreads } from './worker-threads.js';
import type { BuildResult, CompilerOptions } from './types.js';

/**
 * One-shot builds compiled on a worker thread (offload-worker.ts), started before the host asks
 * for them: an adapter that knows a build's manifest early (webpack's entries, when its plugin is
 * applied) starts the compile there, so it runs on the second core while the host sets itself up,
 * and the host's load takes the result. Only the host's own thread does what the worker's result
 * cannot answer: a result nobody started, a worker that failed or died, a watch build.
 * Light (Node built-ins only): adapters load it with their factory, before the compiler.
 */
export interface Offload {
  /** Starts the worker now (it loads the compiler), for a compile asked for later. */
  warm(): void;
  /** Starts compiling `manifest` on the worker, unless it is started already (a no-op where no worker can start). */
  compile(manifest: string): void;
  /**
   * The result of the compile of `manifest` started before, taken once: undefined when none was
   * started, or the worker failed, died or threw (the caller then compiles on its own thread).
   */
  take(manifest: string): Promise<BuildResult | undefined>;
  /**
   * A host build starts: a result started before the previous start and still not taken belongs to
   * a build that did not ask for it, and is dropped (its files may have changed since).
   */
  expire(): void;
  /** Drops every result and ends the worker. */
  close(): void;
}

/** What the host's thread sends: the manifest to build. */
export interface OffloadRequest {
  manifest: string;
}

/** What the worker sends back for a manifest: its result (the bundle as `WireBundle`), or why it threw. */
export type OffloadReply =
  { manifest: string; result: Omit<BuildResult, 'bundle'> & { bundle: WireBundle | undefined } } | { manifest: string; failed: string };

/** A bundle as it crosses threads: the joined file, without the parts or the text (made from the bytes). */
export interface WireBundle {
  id: string;
  fileName: string;
  bytes: Uint8Array;
  blobs: Map<string, Uint8Array>;
}

let answered = 0;

/** How many builds workers of this module have answered in this process: a probe for tests that the worker did the compile. */
export function offloadedBuilds(): number {
  return answered;
}

interface Job {
  result: Promise<BuildResult | undefined>;
  settle(result: BuildResult | undefined): void;
  settled: boolean;
  /** Started before the latest `expire`. */
  stale: boolean;
}

/**
 * Whether a worker takes one-shot compiles: only with `BERRYPACK_OFFLOAD=1` in the environment
 * and two cores or more. Off by default: on the shared 2-core bench machine (load 2-4) the
 * worker's start and its contention with the host's thread cost more than the overlap saved,
 * in every interleaved series but one (docs/performance.md, round nine, wt-offload).
 */
export function offloadWanted(setting = process.env.BERRYPACK_OFFLOAD, cores = os.availableParallelism()): boolean {
  return setting === '1' && cores >= 2;
}

/** undefined where the options cannot cross threads (a custom host, an early check worker) or no worker script is installed. */
export function createOffload(options: CompilerOptions, script: string | URL | undefined = offloadScript()): Offload | undefined {
  if (script === undefined || options.host !== undefined || options.checkWorker !== undefined) return undefined;
  let worker: Worker | undefined;
  // Started and not taken (a take removes its job), and started and not answered.
  const jobs = new Map<string, Job>();
  // The worker answers in the order it was asked.
  const running: Job[] = [];
  let waiting = 0;

  const fail = (from: Worker) => {
    if (from !== worker) return;
    worker = undefined;
    for (const job of running.splice(0)) job.settle(undefined);
    void from.terminate();
  };
  const spawn = (): Worker | undefined => {
    try {
      const { Worker } = workerThreads();
      // V8's own young generation: capped at 3 MB (as the CLI's one-shot build keeps its process's
      // semi-spaces at 1 MB), the worker's compile took about 80 ms longer at N = 10,000 and no less
      // at 1,000 (docs/performance.md, round nine, wt-offload).
      const started = new Worker(script, { workerData: { options } });
      // It holds the process open only while a load awaits it (take).
      started.unref();
      started.on('message', (reply: OffloadReply) => {
        const job = running.shift();
        if ('result' in reply) answered++;
        job?.settle('result' in reply ? fromWire(reply.result) : undefined);
      });
      started.on('error', () => fail(started));
      // A reply this thread could not read leaves its job unanswered: the worker is given up.
      started.on('messageerror', () => fail(started));
      started.on('exit', () => fail(started));
      return started;
    } catch {
      return undefined;
    }
  };
  // Ended once nothing is pending or waiting to be taken: its heap is freed on its own thread
  // while the host finishes, not at the process's exit.
  const idle = () => {
    if (jobs.size > 0 || waiting > 0 || worker === undefined) return;
    const ending = worker;
    worker = undefined;
    for (const job of running.splice(0)) job.settle(undefined);
    void ending.terminate();
  };

  return {
    warm() {
      worker ??= spawn();
    },
    compile(manifest) {
      if (jobs.has(manifest)) return;
      worker ??= spawn();
      if (worker === undefined) return;
      let settle!: (result: BuildResult | undefined) => void;
      const job: Job = { result: new Promise((resolve) => (settle = resolve)), settle: (r) => ((job.settled = true), settle(r)), settled: false, stale: false };
      jobs.set(manifest, job);
      running.push(job);
      const request: OffloadRequest = { manifest };
      worker.postMessage(request);
    },
    async take(manifest) {
      const job = jobs.get(manifest);
      if (job === undefined) return undefined;
      jobs.delete(manifest);
      const held = !job.settled ? worker : undefined;
      if (held !== undefined && waiting++ === 0) held.ref();
      try {
        return await job.result;
      } finally {
        if (held !== undefined && --waiting === 0) held.unref();
        idle();
      }
    },
    expire() {
      for (const [manifest, job] of jobs) {
        if (job.stale) {
          jobs.delete(manifest);
          job.settle(undefined);
        } else job.stale = true;
      }
      idle();
    },
    close() {
      for (const job of jobs.values()) job.settle(undefined);
      jobs.clear();
      idle();
    },
  };
}

/** The result as the host's thread uses it: the bundle's text is decoded from its bytes when asked for. */
function fromWire(result: Extract<OffloadReply, { result: unknown }>['result']): BuildResult {
  const wire = result.bundle;
  if (wire === undefined) return { ...result, bundle: undefined };
  let text: string | undefined;
  const bundle: BundleFile = {
    id: wire.id,
    fileName: wire.fileName,
    bytes: wire.bytes,
    get text() {
      return (text ??= Buffer.from(wire.bytes.buffer, wire.bytes.byteOffset, wire.bytes.byteLength).toString('utf8'));
    },
    blobs: wire.blobs,
  };
  return { ...result, bundle };
}

/** The installed worker script (`@berrypack/compiler/offload-worker`); absent in a copy without it. */
function offloadScript(): string | undefined {
  try {
    const file = createRequire(import.meta.url).resolve('@berrypack/compiler/offload-worker');
    return existsSync(file) ? file : undefined;
  } catch {
    return undefined;
  }
}
