/**
 * The host side of the sandbox: a few worker threads, each running many invocations, started
 * on demand, replaced when one dies. Invocations of one memory budget share a worker
 * (shared-memory.ts); each gets a wall-clock timer here and is answered through host-bridge.ts.
 */
import { Worker } from 'node:worker_threads';
import { checkInvocation, fail, toInvokeMessage, toJsonText } from './check-invocation.js';
import { GUEST_RUNNER_SOURCE } from './guest-runner.js';
import { answerCall, answerOp, toSandboxResult, type BridgeCall } from './host-bridge.js';
import type { FromWorker, ToWorker, WorkerData } from './protocol.js';
import type { Sandbox, SandboxHost, SandboxInvocation, SandboxResult } from './types.js';
import { Watchdog } from './watchdog.js';
import { workerAssets, type WorkerAssets } from './worker-assets.js';

const MAX_TIMER_MS = 2 ** 31 - 1;

interface Active extends BridgeCall {
  slot: Slot;
  resolve: (result: SandboxResult) => void;
  timer: NodeJS.Timeout | undefined;
  done: boolean;
  /** The shared memory budget it counts in, if any. */
  budget: Budget | undefined;
}

/**
 * Invocations that share a memory budget (one execution): they all run in one worker, which
 * accounts their VMs together (shared-memory.ts). The entry lives while any of them does.
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

export class WorkerPool implements Sandbox {
  private readonly slots: (Slot | undefined)[];
  private readonly budgets = new Map<string, Budget>();
  private nextId = 1;
  private nextBudget = 1;
  private closed = false;
  private readonly watchdog = new Watchdog<Slot>(
    () => this.slots,
    (slot, busy) => this.kill(slot, busy, 'the sandbox worker running this routine was stopped because another routine in it did not yield'),
  );

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
      // The engine stages strings in memory its limit does not count (see vm-run.ts deliver()).
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
    const message = toInvokeMessage(invocation, id, input, budget?.id ?? 0);
    return new Promise<SandboxResult>((resolve) => {
      const active: Active = {
        id,
        invocation,
        host,
        slot,
        tools: new Set(invocation.tools),
        reply: (m) => this.send(active, m),
        resolve,
        timer: undefined,
        done: false,
        budget,
      };
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
      this.watchdog.start();
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
    const data: WorkerData = { quickjsUrl: assets.quickjsUrl, wasm: assets.wasm, memoryLimits: assets.memoryLimits, runner: GUEST_RUNNER_SOURCE, watch };
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
        answerCall(active, message.seq, message.name, message.input);
        return;
      case 'op':
        answerOp(active, message.seq, message.op, message.value, message.kind, message.answers);
        return;
      case 'done':
        this.finish(active, toSandboxResult(active.invocation, message.result));
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

  private finish(active: Active, result: SandboxResult): void {
    if (active.done) return;
    active.done = true;
    if (active.timer !== undefined) clearTimeout(active.timer);
    const { slot, budget } = active;
    slot.active.delete(active.id);
    if (budget !== undefined && --budget.live === 0 && this.budgets.get(budget.key) === budget) this.budgets.delete(budget.key);
    if (slot.active.size === 0 && !slot.dead) slot.worker.unref();
    if (!this.slots.some((s) => s !== undefined && s.active.size > 0)) this.watchdog.halt();
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

  async close(): Promise<void> {
    this.closed = true;
    const stopping: Promise<unknown>[] = [];
    for (const slot of this.slots) {
      if (slot === undefined) continue;
      this.lose(slot, 'the sandbox was closed');
      stopping.push(slot.worker.terminate().catch(() => undefined));
    }
    this.watchdog.halt();
    await Promise.all(stopping);
  }
}
