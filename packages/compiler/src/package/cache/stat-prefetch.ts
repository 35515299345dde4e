import { statSync } from 'node:fs';
import type { MessagePort, Worker } from 'node:worker_threads';
import { workerThreads } from '../worker-threads.js';

/**
 * The stamp fields of a regular file (device, inode, size, mtime, ctime) for many paths at once,
 * taken by this thread and a helper thread together: a rebuild without a watcher's list of
 * changed files must stat every file it read last time (1,021 at N = 1,000, 3–4 µs each on a
 * VM), and two threads halve that wait on a machine with a free core. Either thread takes
 * chunks of paths from a shared counter, so when the helper is slow to wake (a loaded machine)
 * this thread does the rest itself and waits at most for the chunk the helper holds.
 */
export interface StampFields {
  /** The five fields of `path`; null when it is not a regular file, undefined when it was not asked about. */
  get(path: string): ArrayLike<number> | null | undefined;
}

/** Below this many paths a helper thread does not pay for its wake-up. */
export const PREFETCH_MIN_PATHS = 64;
const CHUNK = 32;
const FIELDS = 6;
/** How long to wait for a chunk the helper holds before stating it here instead. */
const WAIT_MS = 0.5;

// Control words: the generation being worked on, the next chunk to claim, stop, and the helper's start.
const SEQ = 0;
const NEXT = 1;
const STOP = 2;
const READY = 3;

/** The helper: waits for a generation, claims chunks, stats them into the shared results. */
const HELPER = `
const { statSync } = require('node:fs');
const { workerData, receiveMessageOnPort } = require('node:worker_threads');
const { port, control } = workerData;
const ctl = new Int32Array(control);
Atomics.store(ctl, ${READY}, 1);
let paths = [], res, done, seen = 0;
for (;;) {
  Atomics.wait(ctl, ${SEQ}, seen);
  if (Atomics.load(ctl, ${STOP}) !== 0) break;
  seen = Atomics.load(ctl, ${SEQ});
  for (let m = receiveMessageOnPort(port); m !== undefined; m = receiveMessageOnPort(port)) {
    paths = m.message.paths; res = new Float64Array(m.message.res); done = new Int32Array(m.message.done);
  }
  for (;;) {
    if (Atomics.load(ctl, ${SEQ}) !== seen) break;
    const c = Atomics.add(ctl, ${NEXT}, 1);
    if (c * ${CHUNK} >= paths.length) break;
    const end = Math.min(paths.length, (c + 1) * ${CHUNK});
    for (let i = c * ${CHUNK}; i < end; i++) {
      let s;
      try { s = statSync(paths[i], { throwIfNoEntry: false }); } catch { s = undefined; }
      const o = i * ${FIELDS};
      if (s !== undefined && s.isFile()) { res[o] = s.dev; res[o + 1] = s.ino; res[o + 2] = s.size; res[o + 3] = s.mtimeMs; res[o + 4] = s.ctimeMs; res[o + 5] = 1; }
      else res[o + 5] = 0;
    }
    Atomics.store(done, c, seen);
    Atomics.notify(done, c);
  }
}
`;

interface Helper {
  worker: Worker;
  port: MessagePort;
  ctl: Int32Array;
  /** Whose path list and buffers it has: one helper serves every package of the process in turn. */
  owner: StatPrefetch | undefined;
}

let helper: Helper | undefined | null;

function startHelper(): Helper | null {
  try {
    const control = new SharedArrayBuffer(4 * 4);
    const { MessageChannel, Worker } = workerThreads();
    const { port1, port2 } = new MessageChannel();
    const worker = new Worker(HELPER, { eval: true, workerData: { port: port2, control }, transferList: [port2] });
    // Never keeps a process alive, and a failure only means this thread stats alone.
    worker.unref();
    port1.unref();
    const started: Helper = { worker, port: port1, ctl: new Int32Array(control), owner: undefined };
    worker.on('error', () => (helper = null));
    worker.on('exit', () => (helper = null));
    return started;
  } catch {
    return null;
  }
}

/**
 * The paths of one package's previous build, with the shared buffers the helper fills. The list
 * is sent to the helper only when it changes (a file added or removed).
 */
export class StatPrefetch {
  #paths: readonly string[] = [];
  #index = new Map<string, number>();
  #res: Float64Array<ArrayBufferLike> = new Float64Array(0);
  #done: Int32Array<ArrayBufferLike> = new Int32Array(0);
  #seq = 0;

  /** Stats every path; the answers hold for one build. */
  stat(paths: readonly string[]): StampFields {
    if (helper === undefined) helper = startHelper();
    this.#use(paths);
    const h = helper;
    const chunks = Math.ceil(paths.length / CHUNK);
    // Set by the helper itself: a synchronous caller (a loop of builds) never turns the event loop.
    const usable = h != null && Atomics.load(h.ctl, READY) === 1;
    if (usable) {
      if (h.owner !== this) {
        // New buffers whenever the helper takes this list up again: a stat it took for an earlier
        // generation and writes late lands in the old ones, never over a newer answer.
        this.#fresh(this.#paths);
        h.port.postMessage({ paths: this.#paths, res: this.#res.buffer, done: this.#done.buffer });
        h.owner = this;
      }
      // A new generation: the helper claims from chunk 0 again, and marks what it did with it.
      Atomics.store(h.ctl, NEXT, 0);
      this.#seq = (Atomics.load(h.ctl, SEQ) + 1) | 0 || 1;
      Atomics.store(h.ctl, SEQ, this.#seq);
      Atomics.notify(h.ctl, SEQ);
    }
    const mine = new Uint8Array(chunks);
    for (;;) {
      const c = usable ? Atomics.add(h.ctl, NEXT, 1) : mine.indexOf(0);
      if (c < 0 || c >= chunks) break;
      mine[c] = 1;
      this.#statChunk(c);
    }
    const index = this.#index;
    const res = this.#res;
    // The helper's chunks: waited for briefly, else stated here (its late answers go unused).
    let local: Map<string, Float64Array> | undefined;
    for (let c = 0; c < chunks; c++) {
      if (mine[c] === 1) continue;
      if (Atomics.load(this.#done, c) !== this.#seq) Atomics.wait(this.#done, c, Atomics.load(this.#done, c), WAIT_MS);
      if (Atomics.load(this.#done, c) === this.#seq) continue;
      local ??= new Map();
      for (let i = c * CHUNK; i < Math.min(paths.length, (c + 1) * CHUNK); i++) {
        const fields = new Float64Array(FIELDS);
        writeStat(fields, 0, this.#paths[i]!);
        local.set(this.#paths[i]!, fields);
      }
    }
    // The helper may still write that chunk later, with a stat older than the next build: the
    // next build gets new buffers, so nothing it writes can pass for a newer answer.
    if (local !== undefined) this.#fresh(this.#paths);
    return {
      get(path) {
        const fields = local?.get(path);
        if (fields !== undefined) return fields[5] === 1 ? fields : null;
        const i = index.get(path);
        if (i === undefined) return undefined;
        if (res[i * FIELDS + 5] !== 1) return null;
        return res.subarray(i * FIELDS, i * FIELDS + 5);
      },
    };
  }

  #use(paths: readonly string[]): void {
    const same = paths.length === this.#paths.length && paths.every((p, i) => p === this.#paths[i]);
    if (!same) this.#fresh(paths);
  }

  #fresh(paths: readonly string[]): void {
    if (paths !== this.#paths) {
      this.#paths = paths;
      this.#index = new Map(paths.map((p, i) => [p, i]));
    }
    // New buffers: a helper still working on the old list writes into the old ones.
    this.#res = new Float64Array(new SharedArrayBuffer(8 * FIELDS * Math.max(1, paths.length)));
    this.#done = new Int32Array(new SharedArrayBuffer(4 * Math.max(1, Math.ceil(paths.length / CHUNK))));
    if (helper != null && helper.owner === this) helper.owner = undefined;
  }

  #statChunk(c: number): void {
    for (let i = c * CHUNK; i < Math.min(this.#paths.length, (c + 1) * CHUNK); i++) writeStat(this.#res, i * FIELDS, this.#paths[i]!);
  }
}

/** The helper's loop body, on this thread: the fields at `o`, the last one 1 for a regular file. */
function writeStat(res: Float64Array, o: number, path: string): void {
  let s;
  try {
    s = statSync(path, { throwIfNoEntry: false });
  } catch {
    s = undefined;
  }
  if (s === undefined || !s.isFile()) {
    res[o + 5] = 0;
    return;
  }
  res[o] = s.dev;
  res[o + 1] = s.ino;
  res[o + 2] = s.size;
  res[o + 3] = s.mtimeMs;
  res[o + 4] = s.ctimeMs;
  res[o + 5] = 1;
}
