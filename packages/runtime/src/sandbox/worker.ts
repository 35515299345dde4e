/**
 * Sandbox worker: runs code routines in fresh QuickJS VMs, off the host's event loop.
 *
 * This file must stay self-contained (only `node:` imports and type-only imports): when the
 * runtime runs from its TypeScript sources (vitest), the pool strips its types and starts it
 * from a `data:` URL, where relative imports cannot resolve. quickjs-wasi itself is imported
 * by the absolute URL the host resolved.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { JSValueHandle, QuickJS } from 'quickjs-wasi';
import type { FromWorker, GuestOp, InvokeMessage, RawResult, ToWorker, WorkerData } from './protocol.js';

type Engine = typeof import('quickjs-wasi');

const RUNNER_FILENAME = '<berrypack-runner>';
const MASK64 = (1n << 64n) - 1n;

const data = workerData as WorkerData;
const watch = new BigInt64Array(data.watch);
const runs = new Map<number, Run>();
/** The live runs of each shared memory budget (InvokeMessage.budget) in this worker. */
const budgets = new Map<number, Set<Run>>();
/**
 * The linear memory of a fresh VM (about 1.3 MiB with quickjs-wasi 3.7), measured on every VM
 * this worker creates; what a run whose VM is still being created counts for meanwhile.
 */
let freshBytes = 1.5 * 1024 * 1024;
/** The engine's limit is a 32-bit size_t, and 0 would mean no limit at all. */
const MAX_LIMIT = 2 ** 32 - 1;
const engine: Promise<Engine> = import(data.quickjsUrl) as Promise<Engine>;
let JSException: Engine['JSException'] | undefined;
engine.then(
  (e) => (JSException = e.JSException),
  () => undefined,
);

if (parentPort === null) throw new Error('the sandbox worker must run in a worker thread');
const port = parentPort;
port.on('message', (message: ToWorker) => {
  try {
    receive(message);
  } catch (e) {
    port.postMessage({ t: 'fatal', message: `sandbox worker failed: ${describeHostError(e)}` } satisfies FromWorker);
  }
});

function post(message: FromWorker): void {
  port.postMessage(message);
}

function receive(message: ToWorker): void {
  switch (message.t) {
    case 'invoke': {
      const run = new Run(message);
      runs.set(message.id, run);
      run.start().catch((e: unknown) => run.finish(failure('internal', `the sandbox could not start: ${describeHostError(e)}`)));
      return;
    }
    case 'admit':
      if (message.ok) runs.get(message.id)?.deliver('admit', message.seq, true, JSON.stringify({ callId: message.callId, executionId: message.executionId }));
      else runs.get(message.id)?.deliver('admit', message.seq, false, JSON.stringify({ code: message.code, message: message.message }));
      return;
    case 'settle':
      if (message.ok) runs.get(message.id)?.deliver('settle', message.seq, true, message.value);
      else runs.get(message.id)?.deliver('settle', message.seq, false, JSON.stringify({ code: message.code, message: message.message }));
      return;
    case 'cancel':
      runs.get(message.id)?.cancel();
      return;
  }
}

function failure(code: Extract<RawResult, { ok: false }>['code'], message: string, extra?: Partial<Extract<RawResult, { ok: false }>>): RawResult {
  return {
    ok: false,
    code,
    message,
    stack: extra?.stack,
    name: extra?.name,
    guestCode: extra?.guestCode,
    importer: extra?.importer,
    specifier: extra?.specifier,
  };
}

function describeHostError(e: unknown): string {
  if (e instanceof Error) return `${e.name}: ${e.message}`;
  return String(e);
}

/**
 * Seeds derived from the invocation's seed. Every bit of the number counts (its float64
 * bits are the splitmix64 state), so distinct seeds give distinct sequences.
 */
function seedsOf(seed: number): { mathInitNs: bigint; cryptoSeed: number; fill: (bytes: Uint8Array) => void } {
  const bits = new BigUint64Array(new Float64Array([seed]).buffer)[0] ?? 0n;
  let state = bits;
  const next = (): bigint => {
    state = (state + 0x9e3779b97f4a7c15n) & MASK64;
    let z = state;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK64;
    return z ^ (z >> 31n);
  };
  // QuickJS seeds Math.random's xorshift64* once, from the wall clock in microseconds at
  // context creation; the clock reads the seed then, and the invocation's clock after.
  const mathMicros = (next() % (1n << 53n)) + 1n;
  const cryptoSeed = Number(next() & 0xffffffffn) | 0;
  return {
    mathInitNs: mathMicros * 1000n,
    cryptoSeed,
    fill(bytes) {
      for (let i = 0; i < bytes.length; i += 8) {
        let r = next();
        for (let k = 0; k < 8 && i + k < bytes.length; k++) {
          bytes[i + k] = Number(r & 0xffn);
          r >>= 8n;
        }
      }
    },
  };
}

/** POSIX join of a relative specifier onto its importer's directory; undefined when it is not relative or leaves the root. */
function resolveRelative(importer: string, specifier: string): string | undefined {
  if (!(specifier.startsWith('./') || specifier.startsWith('../'))) return undefined;
  const parts = importer.split('/');
  parts.pop();
  for (const part of specifier.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (parts.length === 0) return undefined;
      parts.pop();
    } else {
      parts.push(part);
    }
  }
  return parts.join('/');
}

/** quickjs-wasi sets the limit only at creation; its runtime takes a new one at any time (JS_SetMemoryLimit). */
function setMemoryLimit(vm: QuickJS, bytes: number): void {
  const exports = (vm as unknown as { exports?: { qjs_set_memory_limit?: (limit: number) => void } }).exports;
  if (typeof exports?.qjs_set_memory_limit !== 'function') throw new Error('this quickjs-wasi cannot change a memory limit (qjs_set_memory_limit)');
  exports.qjs_set_memory_limit(Math.min(MAX_LIMIT, Math.max(1, Math.floor(bytes))));
}

/** "another live sandbox of its execution holds" / "3 other live sandboxes of its execution hold". */
function othersHold(count: number): string {
  return count === 1 ? 'another live sandbox of its execution holds' : `${count} other live sandboxes of its execution hold`;
}

class Run {
  private vm: QuickJS | undefined;
  /** The VM's WASM linear memory: what it holds of the host's memory (it only ever grows). */
  private memory: { buffer: ArrayBuffer } | undefined;
  /** The other runs of its memory budget, itself included; undefined when it is a budget of its own. */
  private readonly shared: Set<Run> | undefined;
  /** The engine's current limit, in bytes. */
  private limit: number;
  /** What the other live VMs of its budget held when the current slice began. */
  private othersHeld = { bytes: 0, count: 0 };
  private start_: JSValueHandle | undefined;
  private dispatch: JSValueHandle | undefined;
  private readonly sources = new Map<string, string>();
  private readonly wallDeadline: number;
  private cpuLeft: number;
  private sliceDeadline = Infinity;
  private interrupted: 'cpu' | 'timeout' | undefined;
  private phase: 'init' | 'run' = 'init';
  private linking = false;
  private started = false;
  private outstanding = 0;
  private failedImport: { importer: string; specifier: string } | undefined;
  private result: RawResult | undefined;
  private finished = false;

  constructor(private readonly msg: InvokeMessage) {
    for (const m of msg.modules) this.sources.set(m.path, m.source);
    this.wallDeadline = performance.now() + msg.limits.timeoutMs;
    this.cpuLeft = msg.limits.cpuMs;
    this.limit = msg.limits.memoryBytes;
    if (msg.budget !== 0) {
      let shared = budgets.get(msg.budget);
      if (shared === undefined) budgets.set(msg.budget, (shared = new Set()));
      shared.add(this);
      this.shared = shared;
    }
  }

  /** Bytes of host memory its VM holds: its whole linear memory, or a fresh VM's while it is created. */
  held(): number {
    if (this.finished) return 0;
    return this.memory?.buffer.byteLength ?? freshBytes;
  }

  /** What the other live VMs of its budget hold. */
  private others(): { bytes: number; count: number } {
    let bytes = 0;
    let count = 0;
    if (this.shared !== undefined) {
      for (const run of this.shared) {
        if (run === this) continue;
        bytes += run.held();
        count++;
      }
    }
    return { bytes, count };
  }

  async start(): Promise<void> {
    // A shared budget that cannot hold one more fresh VM refuses it before it is created.
    const { memoryBytes } = this.msg.limits;
    const others = this.others();
    const room = memoryBytes - others.bytes;
    if (others.count > 0 && (room < freshBytes || (this.msg.input?.length ?? 0) > room)) {
      const needs =
        room < freshBytes ? `a new sandbox needs about ${freshBytes}` : `the invocation input alone is ${this.msg.input?.length ?? 0} characters long`;
      this.finish(
        failure(
          'memory',
          `the routine could not start: ${othersHold(others.count)} ${others.bytes} of the ${memoryBytes} bytes of memory its sandboxes share (limits.memoryBytes), and ${needs}`,
        ),
      );
      return;
    }
    const { QuickJS: Engine, EvalFlags, MAX_STACK_SIZE } = await engine;
    const seeds = seedsOf(this.msg.seed);
    const epochNs = BigInt(Math.max(0, Math.floor(this.msg.epochMs))) * 1_000_000n;
    // quickjs-wasi passes a proxy of the instance's memory, usable once the instance exists.
    let linear: { buffer: ArrayBuffer } | undefined;
    const vm = await Engine.create({
      wasm: data.wasm,
      wasi: (memory: { buffer: ArrayBuffer }) => {
        linear = memory;
        return {
          clock_time_get: (id: number, _precision: bigint, ptr: number) => {
            // Realtime (0) seeds Math.random during creation, then is the invocation's clock;
            // monotonic (1) is constant, so performance.now() is 0 and timeOrigin the clock.
            const value = id === 0 && this.phase === 'init' ? seeds.mathInitNs : epochNs;
            new DataView(memory.buffer).setBigUint64(ptr, value, true);
            return 0;
          },
          random_get: (ptr: number, len: number) => {
            seeds.fill(new Uint8Array(memory.buffer, ptr, len));
            return 0;
          },
          // No IO: whatever the engine would print is counted as written and dropped.
          fd_write: (_fd: number, iovs: number, iovsLen: number, written: number) => {
            const view = new DataView(memory.buffer);
            let n = 0;
            for (let i = 0; i < iovsLen; i++) n += view.getUint32(iovs + i * 8 + 4, true);
            view.setUint32(written, n, true);
            return 0;
          },
        };
      },
      memoryLimit: Math.min(MAX_LIMIT, this.msg.limits.memoryBytes),
      maxStackSize: MAX_STACK_SIZE,
      timezoneOffset: 0,
      interruptHandler: () => this.shouldInterrupt(),
      moduleLoader: {
        normalize: (importer: string, specifier: string) => this.normalize(importer, specifier),
        load: (path: string) => {
          const source = this.linking ? this.sources.get(path) : undefined;
          if (source === undefined) throw `module '${path}' is not part of the routine`;
          return source;
        },
      },
    });
    this.phase = 'run';
    this.memory = linear;
    if (linear !== undefined) freshBytes = linear.buffer.byteLength;
    if (this.finished) {
      vm.dispose();
      return;
    }
    this.vm = vm;

    this.enter(
      () => {
        const factory = vm.evalCode(data.runner, RUNNER_FILENAME);
        const send = vm.newFunction('send', (...args) => this.onSend(args));
        const config = vm.newString(
          JSON.stringify({
            tools: this.msg.tools,
            catalog: this.msg.catalog,
            outcome: this.msg.outcome,
            ports: this.msg.ports,
            outputBytes: this.msg.limits.outputBytes,
            cryptoSeed: seeds.cryptoSeed,
          }),
        );
        const input = this.msg.input === undefined ? vm.undefined : vm.newString(this.msg.input);
        const api = vm.callFunction(factory, vm.undefined, send, config, input);
        this.start_ = api.getProp('start');
        this.dispatch = api.getProp('dispatch');
        for (const h of [api, input, config, send, factory]) h.dispose();
      },
      (e) => failure('internal', `the sandbox could not start: ${describeHostError(e)}`),
    );

    let namespace: JSValueHandle | undefined;
    const entrySource = this.sources.get(this.msg.entry) ?? '';
    this.enter(
      () => {
        this.linking = true;
        try {
          namespace = vm.evalCode(entrySource, this.msg.entry, EvalFlags.TYPE_MODULE);
        } finally {
          this.linking = false;
        }
      },
      (e) => this.loadFailure(e),
    );

    if (namespace === undefined || this.start_ === undefined) return;
    const ns = namespace;
    const start = this.start_;
    this.started = true;
    this.enter(
      () => {
        vm.callFunction(start, vm.undefined, ns).dispose();
        ns.dispose();
      },
      (e) => this.escaped(e, 'the sandbox could not call the routine'),
    );
  }

  private normalize(importer: string, specifier: string): string {
    // Static imports resolve while the entry module links; anything later is import().
    if (!this.linking) throw `import() is not available in code routines: '${specifier}' was not loaded`;
    const path = resolveRelative(importer, specifier);
    if (path === undefined || !this.sources.has(path)) {
      this.failedImport ??= { importer, specifier };
      throw path === undefined
        ? `cannot import '${specifier}' from '${importer}': only relative paths to the routine's own modules can be imported`
        : `cannot import '${specifier}' from '${importer}': '${path}' is not one of the routine's modules`;
    }
    return path;
  }

  private loadFailure(e: unknown): RawResult {
    const failed = this.failedImport;
    if (failed !== undefined) {
      const message = e instanceof Error ? e.message : String(e);
      return failure('load', message, { importer: failed.importer, specifier: failed.specifier });
    }
    if (e instanceof Error) return failure('load', `${e.name}: ${e.message}`, { stack: e.stack, name: e.name });
    return failure('load', String(e));
  }

  private shouldInterrupt(): boolean {
    // Once the routine has a result (or was cancelled), none of its leftover jobs may run.
    if (this.result !== undefined || this.finished) return true;
    const now = performance.now();
    const cpuOut = now >= this.sliceDeadline;
    const wallOut = now >= this.wallDeadline;
    if (!cpuOut && !wallOut) return false;
    this.interrupted = cpuOut && (!wallOut || this.sliceDeadline <= this.wallDeadline) ? 'cpu' : 'timeout';
    return true;
  }

  /**
   * Every entry into guest code: the CPU deadline is set for the whole slice, the job queue
   * included (a loop after an awaited tool call runs in a job), and the slice is published
   * to the host's watchdog in case the engine ever stops polling the interrupt handler.
   */
  private enter(step: () => void, onError: (e: unknown) => RawResult): void {
    const vm = this.vm;
    if (this.finished || vm === undefined || this.result !== undefined) return;
    if (this.shared !== undefined) {
      try {
        this.applyBudget(vm);
      } catch (e) {
        this.finish(failure('internal', `the sandbox could not apply the memory budget: ${describeHostError(e)}`));
        return;
      }
    }
    const begin = performance.now();
    this.sliceDeadline = begin + this.cpuLeft;
    // Deadline before id, so the host never pairs this slice's id with an older deadline.
    Atomics.store(watch, 1, BigInt(Math.ceil(Date.now() + Math.max(0, Math.min(this.cpuLeft, this.wallDeadline - begin, 8.64e15)))));
    Atomics.store(watch, 0, BigInt(this.msg.id));
    try {
      step();
      vm.executePendingJobs();
    } catch (e) {
      this.result ??= this.classify(e, onError);
    } finally {
      Atomics.store(watch, 0, 0n);
      this.cpuLeft -= performance.now() - begin;
      this.sliceDeadline = Infinity;
    }
    if (this.result === undefined && this.started && this.outstanding === 0) {
      this.result = failure('timeout', 'the routine is waiting for a promise that nothing can settle: no tool call, catalog, receive or emit is pending');
    }
    if (this.result !== undefined) this.finish(this.result);
  }

  /**
   * A slice of a VM in a shared budget may allocate only what the budget's other live VMs leave.
   * They are idle while it runs (a worker runs one slice at a time, and a budget's invocations
   * all run in one worker), so together they stay within the budget: each counts its whole linear
   * memory, which never shrinks, and this one its allocations, which the engine refuses beyond
   * the limit (its own linear memory exceeds them only by the engine's fixed part).
   */
  private applyBudget(vm: QuickJS): void {
    this.othersHeld = this.others();
    const limit = Math.max(1, Math.min(this.msg.limits.memoryBytes, this.msg.limits.memoryBytes - this.othersHeld.bytes));
    if (limit === this.limit) return;
    setMemoryLimit(vm, limit);
    this.limit = limit;
  }

  private classify(e: unknown, onError: (e: unknown) => RawResult): RawResult {
    const { cpuMs, timeoutMs, memoryBytes } = this.msg.limits;
    if (this.interrupted === 'cpu') return failure('cpu', `the routine used more than its ${cpuMs} ms of CPU time`);
    if (this.interrupted === 'timeout') return failure('timeout', `the routine did not finish within ${timeoutMs} ms`);
    if (e instanceof Error && e.name === 'InternalError' && e.message === 'out of memory') {
      const { bytes, count } = this.othersHeld;
      if (count > 0) {
        return failure(
          'memory',
          `the routine needed more than the ${Math.max(0, memoryBytes - bytes)} bytes of memory left to it: ${othersHold(count)} ${bytes} of the ${memoryBytes} bytes its sandboxes share (limits.memoryBytes)`,
        );
      }
      return failure('memory', `the routine needed more than its ${memoryBytes} bytes of memory`);
    }
    // WASM frames run on this thread's stack: native recursion the engine does not bound
    // (a deeply nested JSON.parse) overflows it and unwinds through the VM, which is then unusable.
    if (e instanceof RangeError && /call stack/i.test(e.message)) {
      return failure('thrown', 'RangeError: Maximum call stack size exceeded');
    }
    if (e instanceof Error && e.name === 'RuntimeError') {
      return failure('internal', `the sandbox engine stopped (${e.message}); the routine's VM was discarded`);
    }
    return onError(e);
  }

  /**
   * An exception that left guest code through the engine rather than through the runner:
   * some native stack overflows (a deeply nested JSON.parse) cannot be caught in the guest.
   * Only guest code runs at these points, so it is the routine's error.
   */
  private escaped(e: unknown, what: string): RawResult {
    if (JSException !== undefined && e instanceof JSException) {
      return failure('thrown', `${e.name}: ${e.message}`, { stack: e.stack, name: e.name });
    }
    return failure('internal', `${what}: ${describeHostError(e)}`);
  }

  private onSend(args: JSValueHandle[]): JSValueHandle {
    const vm = this.vm;
    if (vm === undefined) throw 'the sandbox is gone';
    const str = (i: number): string | undefined => {
      const h = args[i];
      return h !== undefined && h.isString ? h.toString() : undefined;
    };
    const kind = str(0);
    const seqHandle = args[1];
    const seq = seqHandle !== undefined && seqHandle.isNumber ? seqHandle.toNumber() : 0;
    if (this.result !== undefined) return vm.undefined;
    switch (kind) {
      case 'call': {
        const name = str(2);
        if (name === undefined) break;
        this.outstanding++;
        post({ t: 'call', id: this.msg.id, seq, name, input: str(3) });
        break;
      }
      case 'op': {
        const op = str(2);
        if (op !== 'catalog' && op !== 'receive' && op !== 'emit' && op !== 'outcome') break;
        this.outstanding++;
        post({ t: 'op', id: this.msg.id, seq, op: op satisfies GuestOp, value: str(3), kind: str(4), answers: str(5) });
        break;
      }
      case 'done': {
        const text = str(2) ?? '';
        const limit = this.msg.limits.outputBytes;
        this.result =
          Buffer.byteLength(text, 'utf8') > limit
            ? failure('output-too-large', `output is larger than the limit of ${limit} bytes (UTF-8)`)
            : { ok: true, output: text };
        break;
      }
      case 'fail':
        this.result = this.guestFailure(str(2) ?? '{}');
        break;
    }
    return vm.undefined;
  }

  private guestFailure(text: string): RawResult {
    let report: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(text);
      report = parsed !== null && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
    } catch {
      report = {};
    }
    const s = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
    const kind = s(report['kind']);
    const message = s(report['message']) ?? 'the routine failed';
    if (kind === 'load' || kind === 'not-json' || kind === 'output-too-large') return failure(kind, message);
    const name = s(report['name']);
    return failure('thrown', name !== undefined && name !== '' ? `${name}: ${message}` : message, {
      stack: s(report['stack']),
      name,
      guestCode: s(report['code']),
    });
  }

  /** A host answer to a request the guest made; runs the guest until it waits again. */
  deliver(kind: 'admit' | 'settle', seq: number, ok: boolean, payload: string | undefined): void {
    const vm = this.vm;
    const dispatch = this.dispatch;
    if (vm === undefined || dispatch === undefined || this.finished) return;
    if (kind === 'settle' || !ok) this.outstanding--;
    let text = payload;
    let success = ok;
    // A string this long cannot fit in the guest's heap; refusing it here keeps the engine's
    // own (unlimited) staging buffer from growing to its size.
    const room = this.msg.limits.memoryBytes - this.others().bytes;
    if (text !== undefined && text.length > room) {
      success = false;
      text = JSON.stringify({ code: 'output-too-large', message: 'the value is larger than the memory the sandbox has left' });
    }
    this.enter(
      () => {
        const handles = [vm.newString(kind), vm.newNumber(seq), text === undefined ? vm.undefined : vm.newString(text)];
        const [k, n, p] = handles as [JSValueHandle, JSValueHandle, JSValueHandle];
        vm.callFunction(dispatch, vm.undefined, k, n, success ? vm.true : vm.false, p).dispose();
        for (const h of handles) h.dispose();
      },
      (e) => this.escaped(e, 'the sandbox could not deliver a result to the routine'),
    );
  }

  cancel(): void {
    this.finished = true;
    runs.delete(this.msg.id);
    this.leave();
    this.dispose();
  }

  finish(result: RawResult): void {
    if (this.finished) return;
    this.finished = true;
    runs.delete(this.msg.id);
    this.leave();
    this.dispose();
    post({ t: 'done', id: this.msg.id, result });
  }

  private leave(): void {
    const shared = this.shared;
    if (shared === undefined) return;
    shared.delete(this);
    if (shared.size === 0 && budgets.get(this.msg.budget) === shared) budgets.delete(this.msg.budget);
  }

  private dispose(): void {
    const vm = this.vm;
    this.vm = undefined;
    this.memory = undefined;
    if (vm === undefined) return;
    try {
      this.start_?.dispose();
      this.dispatch?.dispose();
      vm.dispose();
    } catch {
      // A VM that trapped may fail to free; it is unreachable either way and the GC takes its memory.
    }
  }
}
