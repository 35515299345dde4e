import { Worker } from 'node:worker_threads';
import { GUEST_RUNNER_SOURCE } from './guest-runner.js';
import type { Sandbox, SandboxError, SandboxErrorCode, SandboxHost, SandboxInvocation, SandboxResult } from './types.js';
import type { FromWorker, GuestOp, InvokeMessage, RawResult, ToWorker, WorkerData } from './protocol.js';
import { jsonDepthExceeds, MAX_JSON_DEPTH } from './json-depth.js';
import { locateImport, mapStack } from './source-map.js';
import { workerAssets, type WorkerAssets } from './worker-assets.js';

/**
 * The interrupt handler runs thousands of times a second while guest code runs, so a slice
 * still running this long after its deadline means the engine stopped polling it; only
 * then is the worker (and every routine in it) terminated.
 */
const WATCHDOG_GRACE_MS = 2000;
const WATCHDOG_INTERVAL_MS = 250;
const MAX_TIMER_MS = 2 ** 31 - 1;

interface Active {
  id: number;
  invocation: SandboxInvocation;
  host: SandboxHost;
  slot: Slot;
  tools: Set<string>;
  resolve: (result: SandboxResult) => void;
  timer: NodeJS.Timeout | undefined;
  done: boolean;
  /** The shared memory budget it counts in, if any. */
  budget: Budget | undefined;
}

/**
 * Invocations that share a memory budget (one execution): they all run in one worker, which
 * accounts their VMs together (worker.ts). The entry lives while any of them does.
 */
interface Budget {
  key: string;
  id: number;
  slot: Slot;
  live: number;
}

interface Slot {
  index: number;
  worker: Worker;
  /** [busy invocation id (0 = none), epoch ms by which its slice must end], written by the worker. */
  watch: BigInt64Array;
  active: Map<number, Active>;
  dead: boolean;
}

function fail(code: SandboxErrorCode, message: string): SandboxResult {
  return { ok: false, error: { code, message } };
}

/** What a host tool failure looks like to the guest: a code and a message, nothing else of the host's. */
function hostFailure(e: unknown, fallback: string): { code: string; message: string } {
  if (e !== null && typeof e === 'object') {
    const r = e as { code?: unknown; message?: unknown };
    return {
      code: typeof r.code === 'string' ? r.code : 'failed',
      message: typeof r.message === 'string' ? r.message : fallback,
    };
  }
  return { code: 'failed', message: typeof e === 'string' ? e : fallback };
}

/** JSON text of a host value for the guest, or a failure when it has none. */
function toJsonText(value: unknown): { ok: true; text: string | undefined } | { ok: false; code: string; message: string } {
  if (value === undefined) return { ok: true, text: undefined };
  try {
    const text: unknown = JSON.stringify(value);
    if (typeof text === 'string' && !jsonDepthExceeds(text)) return { ok: true, text };
  } catch {
    // fall through: cycles and BigInts are not JSON either
  }
  return { ok: false, code: 'not-json', message: `the value is not JSON (or nests deeper than ${MAX_JSON_DEPTH} levels)` };
}

function checkInvocation(inv: SandboxInvocation): SandboxResult | undefined {
  const paths = new Set<string>();
  for (const m of inv.modules) {
    if (typeof m.path !== 'string' || typeof m.source !== 'string') return fail('load', 'every module needs a path and a source');
    if (paths.has(m.path)) return fail('load', `module '${m.path}' is given twice`);
    paths.add(m.path);
  }
  if (!paths.has(inv.entry)) return fail('load', `the entry '${inv.entry}' is not one of the modules`);
  for (const key of ['cpuMs', 'memoryBytes', 'timeoutMs', 'outputBytes'] as const) {
    const v = inv.limits[key];
    if (typeof v !== 'number' || !(v > 0)) return fail('internal', `limits.${key} must be a positive number`);
  }
  if (!Number.isFinite(inv.clock.epochMs)) return fail('internal', 'clock.epochMs must be a finite number');
  if (typeof inv.seed !== 'number' || Number.isNaN(inv.seed)) return fail('internal', 'seed must be a number');
  if (inv.memoryBudget !== undefined && typeof inv.memoryBudget !== 'string') return fail('internal', 'memoryBudget must be a string');
  if (!inv.tools.every((t) => typeof t === 'string')) return fail('internal', 'tools must be strings');
  return undefined;
}

export class WorkerPool implements Sandbox {
  private readonly slots: (Slot | undefined)[];
  private readonly budgets = new Map<string, Budget>();
  private nextId = 1;
  private nextBudget = 1;
  private closed = false;
  private watchdog: NodeJS.Timeout | undefined;

  constructor(size: number) {
    this.slots = new Array<Slot | undefined>(Math.max(1, Math.floor(size))).fill(undefined);
  }

  async invoke(invocation: SandboxInvocation, host: SandboxHost): Promise<SandboxResult> {
    try {
      if (this.closed) return fail('internal', 'the sandbox is closed');
      const invalid = checkInvocation(invocation);
      if (invalid !== undefined) return invalid;
      const input = toJsonText(invocation.input);
      if (!input.ok) return fail('not-json', 'the invocation input is not JSON');
      // The engine stages strings in memory its limit does not count (see worker.ts deliver()).
      if (input.text !== undefined && input.text.length > invocation.limits.memoryBytes) {
        return fail('memory', `the invocation input is larger than the memory limit of ${invocation.limits.memoryBytes} bytes`);
      }
      let assets: WorkerAssets;
      try {
        assets = await workerAssets();
      } catch (e) {
        return fail('internal', `the sandbox could not start: ${e instanceof Error ? e.message : String(e)}`);
      }
      if (this.closed) return fail('internal', 'the sandbox is closed');
      return await this.start(invocation, host, input.text, assets);
    } catch (e) {
      return fail('internal', `the sandbox failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  private start(invocation: SandboxInvocation, host: SandboxHost, input: string | undefined, assets: WorkerAssets): Promise<SandboxResult> {
    const key = invocation.memoryBudget;
    let budget = key === undefined ? undefined : this.budgets.get(key);
    const slot = budget !== undefined && !budget.slot.dead ? budget.slot : this.pick(assets);
    if (key !== undefined && (budget === undefined || budget.slot !== slot)) {
      budget = { key, id: this.nextBudget++, slot, live: 0 };
      this.budgets.set(key, budget);
    }
    if (budget !== undefined) budget.live++;
    const id = this.nextId++;
    const message: InvokeMessage = {
      t: 'invoke',
      id,
      modules: invocation.modules.map((m) => ({ path: m.path, source: m.source })),
      entry: invocation.entry,
      input,
      tools: [...new Set(invocation.tools)],
      catalog: invocation.context.catalog === true,
      outcome: invocation.context.outcome === true,
      ports: { input: invocation.context.ports.input === true, output: invocation.context.ports.output === true },
      epochMs: invocation.clock.epochMs,
      seed: invocation.seed,
      limits: {
        cpuMs: invocation.limits.cpuMs,
        memoryBytes: invocation.limits.memoryBytes,
        timeoutMs: invocation.limits.timeoutMs,
        outputBytes: invocation.limits.outputBytes,
      },
      budget: budget?.id ?? 0,
    };
    return new Promise<SandboxResult>((resolve) => {
      const active: Active = { id, invocation, host, slot, tools: new Set(invocation.tools), resolve, timer: undefined, done: false, budget };
      if (slot.active.size === 0) slot.worker.ref();
      slot.active.set(id, active);
      // The worker enforces the wall deadline too while guest code runs; this timer covers a
      // routine that waits for a tool, a message or a promise that never comes.
      active.timer = setTimeout(
        () => {
          this.finish(active, fail('timeout', `the routine did not finish within ${invocation.limits.timeoutMs} ms`));
          this.send(active, { t: 'cancel', id });
        },
        Math.min(invocation.limits.timeoutMs, MAX_TIMER_MS),
      );
      this.startWatchdog();
      slot.worker.postMessage(message satisfies ToWorker);
    });
  }

  private pick(assets: WorkerAssets): Slot {
    let best: Slot | undefined;
    let free = -1;
    for (let i = 0; i < this.slots.length; i++) {
      const slot = this.slots[i];
      if (slot === undefined) {
        if (free < 0) free = i;
      } else if (best === undefined || slot.active.size < best.active.size) {
        best = slot;
      }
    }
    if (best !== undefined && (best.active.size === 0 || free < 0)) return best;
    return this.spawn(free < 0 ? 0 : free, assets);
  }

  private spawn(index: number, assets: WorkerAssets): Slot {
    const watch = new SharedArrayBuffer(16);
    const data: WorkerData = { quickjsUrl: assets.quickjsUrl, wasm: assets.wasm, runner: GUEST_RUNNER_SOURCE, watch };
    const worker = new Worker(assets.script, { workerData: data, name: 'berrypack-sandbox' });
    const slot: Slot = { index, worker, watch: new BigInt64Array(watch), active: new Map(), dead: false };
    this.slots[index] = slot;
    worker.unref();
    worker.on('message', (message: FromWorker) => this.onMessage(slot, message));
    worker.on('error', (e) => this.lose(slot, `the sandbox worker failed: ${e.message}`));
    worker.on('exit', (code) => this.lose(slot, `the sandbox worker exited (code ${code})`));
    return slot;
  }

  private onMessage(slot: Slot, message: FromWorker): void {
    if (message.t === 'fatal') {
      this.kill(slot, 0, message.message);
      return;
    }
    const active = slot.active.get(message.id);
    if (active === undefined || active.done) return;
    switch (message.t) {
      case 'call':
        this.call(active, message.seq, message.name, message.input);
        return;
      case 'op':
        this.op(active, message.seq, message.op, message.value, message.kind, message.answers);
        return;
      case 'done':
        this.finish(active, this.result(active.invocation, message.result));
        return;
    }
  }

  private send(active: Active, message: ToWorker): void {
    if (active.done && message.t !== 'cancel') return;
    if (active.slot.dead) return;
    try {
      active.slot.worker.postMessage(message);
    } catch {
      // The worker is going away; its exit handler fails what it held.
    }
  }

  private call(active: Active, seq: number, name: string, input: string | undefined): void {
    const id = active.id;
    const refuse = (code: string, message: string) => this.send(active, { t: 'admit', id, seq, ok: false, code, message });
    if (!active.tools.has(name)) return refuse('unknown-tool', `'${name}' is not a tool of this routine`);
    const limit = active.invocation.limits.outputBytes;
    if (input !== undefined && Buffer.byteLength(input, 'utf8') > limit) {
      return refuse('output-too-large', `the input of '${name}' is larger than the limit of ${limit} bytes`);
    }
    if (input !== undefined && jsonDepthExceeds(input)) return refuse('not-json', `the input of '${name}' nests deeper than ${MAX_JSON_DEPTH} levels`);
    let value: unknown;
    try {
      value = input === undefined ? undefined : JSON.parse(input);
    } catch {
      return refuse('not-json', `the input of '${name}' is not JSON`);
    }
    let admission: Promise<Awaited<ReturnType<SandboxHost['callTool']>>>;
    try {
      admission = Promise.resolve(active.host.callTool(name, value));
    } catch (e) {
      admission = Promise.reject(e);
    }
    admission.then(
      (admitted) => {
        if (admitted === null || typeof admitted !== 'object') {
          refuse('internal', `the call of '${name}' was admitted without a receipt`);
          return;
        }
        // Observed at once, so a failure that comes before the guest awaits it is handled.
        const outcome = Promise.resolve(admitted.outcome);
        this.send(active, {
          t: 'admit',
          id,
          seq,
          ok: true,
          callId: String(admitted.callId),
          executionId: admitted.executionId === null || admitted.executionId === undefined ? null : String(admitted.executionId),
        });
        outcome.then(
          (out) => this.settle(active, seq, out),
          (e: unknown) => this.send(active, { t: 'settle', id, seq, ok: false, ...hostFailure(e, `the call of '${name}' failed`) }),
        );
      },
      (e: unknown) => {
        const f = hostFailure(e, `the call of '${name}' was not admitted`);
        refuse(f.code, f.message);
      },
    );
  }

  private settle(active: Active, seq: number, value: unknown): void {
    const json = toJsonText(value);
    this.send(
      active,
      json.ok
        ? { t: 'settle', id: active.id, seq, ok: true, value: json.text }
        : { t: 'settle', id: active.id, seq, ok: false, code: json.code, message: `the result is not JSON` },
    );
  }

  private op(active: Active, seq: number, op: GuestOp, value: string | undefined, kind: string | undefined, answers: string | undefined): void {
    const { host, invocation } = active;
    const refuse = (code: string, message: string) => this.send(active, { t: 'settle', id: active.id, seq, ok: false, code, message });
    let pending: Promise<unknown>;
    try {
      if (op === 'catalog') {
        if (!invocation.context.catalog || host.catalog === undefined) return refuse('unavailable', 'context.catalog is not available to this routine');
        pending = Promise.resolve(host.catalog());
      } else if (op === 'outcome') {
        if (invocation.context.outcome !== true || host.outcome === undefined || value === undefined)
          return refuse('unavailable', 'context.outcome is not available to this routine');
        pending = Promise.resolve(host.outcome(value));
      } else if (op === 'receive') {
        if (!invocation.context.ports.input || host.receive === undefined) return refuse('unavailable', 'context.receive is not available to this routine');
        pending = Promise.resolve(host.receive());
      } else {
        if (!invocation.context.ports.output || host.emit === undefined) return refuse('unavailable', 'context.emit is not available to this routine');
        const limit = invocation.limits.outputBytes;
        if (value === undefined) return refuse('not-json', 'context.emit needs a JSON value');
        if (Buffer.byteLength(value, 'utf8') > limit) return refuse('output-too-large', `the emitted value is larger than the limit of ${limit} bytes`);
        if (jsonDepthExceeds(value)) return refuse('not-json', `the emitted value nests deeper than ${MAX_JSON_DEPTH} levels`);
        const parsed: unknown = JSON.parse(value);
        pending = Promise.resolve(
          answers !== undefined ? host.emit(parsed, kind, answers) : kind !== undefined ? host.emit(parsed, kind) : host.emit(parsed),
        ).then(() => undefined);
      }
    } catch (e) {
      pending = Promise.reject(e);
    }
    pending.then(
      (out) => this.settle(active, seq, out),
      (e: unknown) => {
        const f = hostFailure(e, `context.${op} failed`);
        refuse(f.code, f.message);
      },
    );
  }

  private result(invocation: SandboxInvocation, raw: RawResult): SandboxResult {
    if (raw.ok) {
      if (jsonDepthExceeds(raw.output)) return fail('not-json', `output nests deeper than ${MAX_JSON_DEPTH} levels`);
      try {
        return { ok: true, output: JSON.parse(raw.output) as unknown };
      } catch {
        return fail('not-json', 'output is not JSON');
      }
    }
    const error: SandboxError = { code: raw.code, message: raw.message };
    if (raw.stack !== undefined) {
      const mapped = mapStack(raw.stack, invocation.modules);
      if (mapped.location !== undefined) error.location = mapped.location;
      if (mapped.stack !== undefined) error.stack = mapped.stack;
    } else if (raw.importer !== undefined && raw.specifier !== undefined) {
      const location = locateImport(invocation.modules, raw.importer, raw.specifier);
      if (location !== undefined) error.location = location;
    }
    if (raw.guestCode !== undefined) error.thrownCode = raw.guestCode;
    return { ok: false, error };
  }

  private finish(active: Active, result: SandboxResult): void {
    if (active.done) return;
    active.done = true;
    if (active.timer !== undefined) clearTimeout(active.timer);
    const { slot, budget } = active;
    slot.active.delete(active.id);
    if (budget !== undefined && --budget.live === 0 && this.budgets.get(budget.key) === budget) this.budgets.delete(budget.key);
    if (slot.active.size === 0 && !slot.dead) slot.worker.unref();
    this.stopWatchdogWhenIdle();
    active.resolve(result);
  }

  /** The worker is gone (error, exit or terminate): what it held fails, and the next invocation starts a new one. */
  private lose(slot: Slot, message: string): void {
    if (this.slots[slot.index] === slot) this.slots[slot.index] = undefined;
    slot.dead = true;
    for (const active of [...slot.active.values()]) this.finish(active, fail('internal', message));
  }

  private kill(slot: Slot, busy: number, message: string): void {
    if (slot.dead) return;
    const stuck = slot.active.get(busy);
    if (stuck !== undefined) {
      this.finish(stuck, fail('cpu', `the routine did not stop at its CPU limit of ${stuck.invocation.limits.cpuMs} ms; its sandbox worker was stopped`));
    }
    this.lose(slot, message);
    slot.worker.terminate().catch(() => undefined);
  }

  private startWatchdog(): void {
    if (this.watchdog !== undefined) return;
    this.watchdog = setInterval(() => {
      const now = BigInt(Date.now());
      for (const slot of this.slots) {
        if (slot === undefined || slot.dead) continue;
        const busy = Atomics.load(slot.watch, 0);
        if (busy !== 0n && now > Atomics.load(slot.watch, 1) + BigInt(WATCHDOG_GRACE_MS)) {
          this.kill(slot, Number(busy), 'the sandbox worker running this routine was stopped because another routine in it did not yield');
        }
      }
    }, WATCHDOG_INTERVAL_MS);
    this.watchdog.unref();
  }

  private stopWatchdogWhenIdle(): void {
    if (this.watchdog === undefined) return;
    if (this.slots.some((s) => s !== undefined && s.active.size > 0)) return;
    clearInterval(this.watchdog);
    this.watchdog = undefined;
  }

  async close(): Promise<void> {
    this.closed = true;
    const stopping: Promise<unknown>[] = [];
    for (const slot of this.slots) {
      if (slot === undefined) continue;
      this.lose(slot, 'the sandbox was closed');
      stopping.push(slot.worker.terminate().catch(() => undefined));
    }
    if (this.watchdog !== undefined) clearInterval(this.watchdog);
    this.watchdog = undefined;
    await Promise.all(stopping);
  }
}
