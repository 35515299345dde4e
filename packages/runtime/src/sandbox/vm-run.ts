/**
 * One invocation in its own fresh QuickJS VM: created, given the runner and the routine's
 * modules, run in slices (the first call, then each answer from the host) and disposed when
 * it has a result.
 */
import type { JSValueHandle, QuickJS } from 'quickjs-wasi';
import { GUEST_RUNNER_FILENAME, type GuestConfig } from './guest-runner.js';
import { guestFailure, outputResult, readGuestMessage } from './guest-messages.js';
import { seedsOf } from './guest-environment.js';
import { classify, SliceClock } from './interrupts.js';
import { ModuleLoader } from './module-loader.js';
import type { FromWorker, InvokeMessage, RawResult, WorkerData } from './protocol.js';
import { describeHostError, failure } from './raw-result.js';
import { freshVmBytes, joinBudget, leaveBudget, measuredFreshVm, othersHold, othersIn, setMemoryLimit, type BudgetMember } from './shared-memory.js';
import type { VmSource } from './vm-image.js';

export type Engine = typeof import('quickjs-wasi');

/** What a run needs of its worker. */
export interface RunHost {
  engine: Promise<Engine>;
  data: WorkerData;
  /** Where the run's fresh VM comes from. */
  vms: VmSource;
  watch: BigInt64Array;
  post(message: FromWorker): void;
  /** The run has ended (finished or cancelled): the worker forgets it. */
  ended(id: number): void;
  /** quickjs-wasi's JSException class, once the engine has loaded. */
  jsException(): Engine['JSException'] | undefined;
}

/** One host answer for the guest's dispatch: an admission, a settlement, or both (`answer`, with the receipt JSON) of request `seq`. */
export interface Delivery {
  kind: 'admit' | 'settle' | 'answer';
  seq: number;
  ok: boolean;
  payload: string | undefined;
  receipt?: string;
}

export class Run implements BudgetMember {
  private vm: QuickJS | undefined;
  /** The VM's WASM linear memory: what it holds of the host's memory (it only ever grows). */
  private memory: { buffer: ArrayBuffer } | undefined;
  /** The other runs of its memory budget, itself included; undefined when it is a budget of its own. */
  private readonly shared: Set<BudgetMember> | undefined;
  /** The engine's current limit, in bytes. */
  private limit: number;
  /** What the other live VMs of its budget held when the current slice began. */
  private othersHeld = { bytes: 0, count: 0 };
  private start_: JSValueHandle | undefined;
  /** The VM is done with: its memory may serve another (vm-image.ts). */
  private release: (() => void) | undefined;
  /** Guest code is running: the VM must not be released now. */
  private inSlice = false;
  private dispatch: JSValueHandle | undefined;
  /** The guest strings of the answer kinds, made once per VM rather than once per answer. */
  private readonly kinds: Partial<Record<Delivery['kind'], JSValueHandle>> = {};
  private readonly modules: ModuleLoader;
  private readonly clock: SliceClock;
  private phase: 'init' | 'run' = 'init';
  private started = false;
  private outstanding = 0;
  private result: RawResult | undefined;
  private finished = false;

  constructor(
    private readonly msg: InvokeMessage,
    private readonly host: RunHost,
  ) {
    this.modules = new ModuleLoader(msg.modules);
    this.clock = new SliceClock(host.watch, msg.id, msg.limits);
    this.limit = msg.limits.memoryBytes;
    if (msg.budget !== 0) this.shared = joinBudget(msg.budget, this);
  }

  /** Bytes of host memory its VM holds: its whole linear memory, or a fresh VM's while it is created. */
  held(): number {
    if (this.finished) return 0;
    return this.memory?.buffer.byteLength ?? freshVmBytes();
  }

  /** What the other live VMs of its budget hold. */
  private others(): { bytes: number; count: number } {
    return othersIn(this.shared, this);
  }

  async start(): Promise<void> {
    // A shared budget that cannot hold one more fresh VM refuses it before it is created.
    const { memoryBytes } = this.msg.limits;
    const others = this.others();
    const room = memoryBytes - others.bytes;
    const fresh = freshVmBytes();
    if (others.count > 0 && (room < fresh || (this.msg.input?.length ?? 0) > room)) {
      const needs = room < fresh ? `a new sandbox needs about ${fresh}` : `the invocation input alone is ${this.msg.input?.length ?? 0} characters long`;
      this.finish(
        failure(
          'memory',
          `the routine could not start: ${othersHold(others.count)} ${others.bytes} of the ${memoryBytes} bytes of memory its sandboxes share (limits.memoryBytes), and ${needs}`,
        ),
      );
      return;
    }
    const { EvalFlags } = await this.host.engine;
    const seeds = seedsOf(this.msg.seed);
    const created = await this.host.vms.create({
      seed: this.msg.seed,
      epochMs: this.msg.epochMs,
      memoryBytes: this.msg.limits.memoryBytes,
      creating: () => this.phase === 'init',
      handlers: {
        // Once the routine has a result (or was cancelled), none of its leftover jobs may run.
        interruptHandler: () => this.result !== undefined || this.finished || this.clock.expired(),
        moduleLoader: {
          normalize: (importer: string, specifier: string) => this.modules.normalize(importer, specifier),
          load: (path: string) => this.modules.load(path),
        },
      },
    });
    const { vm } = created;
    this.phase = 'run';
    this.memory = created.memory;
    this.release = created.release;
    measuredFreshVm(created.memory.buffer.byteLength);
    if (this.finished) {
      created.runner?.dispose();
      vm.dispose();
      created.release();
      return;
    }
    this.vm = vm;

    this.enter(
      () => {
        const factory = created.runner ?? vm.evalCode(this.host.data.runner, GUEST_RUNNER_FILENAME);
        const send = vm.newFunction('send', (...args) => this.onSend(args));
        const config: GuestConfig = {
          tools: this.msg.tools,
          catalog: this.msg.catalog,
          outcome: this.msg.outcome,
          ports: this.msg.ports,
          outputBytes: this.msg.limits.outputBytes,
          cryptoSeed: seeds.cryptoSeed,
        };
        const configText = vm.newString(JSON.stringify(config));
        const input = this.msg.input === undefined ? vm.undefined : vm.newString(this.msg.input);
        const api = vm.callFunction(factory, vm.undefined, send, configText, input);
        this.start_ = api.getProp('start');
        this.dispatch = api.getProp('dispatch');
        for (const h of [api, input, configText, send, factory]) h.dispose();
      },
      (e) => failure('internal', `the sandbox could not start: ${describeHostError(e)}`),
    );

    let namespace: JSValueHandle | undefined;
    const entrySource = this.modules.source(this.msg.entry) ?? '';
    this.enter(
      () => {
        namespace = this.modules.link(() => vm.evalCode(entrySource, this.msg.entry, EvalFlags.TYPE_MODULE));
      },
      (e) => this.modules.failure(e),
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

  /** Every entry into guest code: one slice (interrupts.ts), then the result if it has one. */
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
    try {
      this.inSlice = true;
      this.clock.slice(() => {
        step();
        vm.executePendingJobs();
      });
    } catch (e) {
      this.result ??= classify(e, this.clock.interrupted, this.msg.limits, this.othersHeld, onError);
    } finally {
      this.inSlice = false;
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

  /**
   * An exception that left guest code through the engine rather than through the runner:
   * some native stack overflows (a deeply nested JSON.parse) cannot be caught in the guest.
   * Only guest code runs at these points, so it is the routine's error.
   */
  private escaped(e: unknown, what: string): RawResult {
    const JSException = this.host.jsException();
    if (JSException !== undefined && e instanceof JSException) {
      return failure('thrown', `${e.name}: ${e.message}`, { stack: e.stack, name: e.name });
    }
    return failure('internal', `${what}: ${describeHostError(e)}`);
  }

  private onSend(args: JSValueHandle[]): JSValueHandle {
    const vm = this.vm;
    if (vm === undefined) throw 'the sandbox is gone';
    const message = readGuestMessage(args);
    if (this.result !== undefined || message === undefined) return vm.undefined;
    switch (message.kind) {
      case 'call':
        this.outstanding++;
        this.host.post({ t: 'call', id: this.msg.id, seq: message.seq, name: message.name, input: message.input });
        break;
      case 'op':
        this.outstanding++;
        this.host.post({
          t: 'op',
          id: this.msg.id,
          seq: message.seq,
          op: message.op,
          value: message.value,
          kind: message.publication,
          answers: message.answers,
        });
        break;
      case 'done':
        this.result = outputResult(message.text, this.msg.limits.outputBytes);
        break;
      case 'fail':
        this.result = guestFailure(message.text);
        break;
    }
    return vm.undefined;
  }

  /** A host answer to a request the guest made; runs the guest until it waits again. */
  deliver(answer: Delivery): void {
    const vm = this.vm;
    const dispatch = this.dispatch;
    if (vm === undefined || dispatch === undefined || this.finished) return;
    const { kind, seq, receipt } = answer;
    if (kind !== 'admit' || !answer.ok) this.outstanding--;
    let { ok, payload } = answer;
    // A string this long cannot fit in the guest's heap; refusing it here keeps the engine's
    // own (unlimited) staging buffer from growing to its size.
    const room = this.msg.limits.memoryBytes - this.others().bytes;
    if (payload !== undefined && payload.length > room) {
      ok = false;
      payload = JSON.stringify({ code: 'output-too-large', message: 'the value is larger than the memory the sandbox has left' });
    }
    this.enter(
      () => {
        const k = (this.kinds[kind] ??= vm.newString(kind));
        const handles = [vm.newNumber(seq), payload === undefined ? vm.undefined : vm.newString(payload)];
        if (receipt !== undefined) handles.push(vm.newString(receipt));
        vm.callFunction(dispatch, vm.undefined, k, handles[0]!, ok ? vm.true : vm.false, ...handles.slice(1)).dispose();
        for (const h of handles) h.dispose();
      },
      (e) => this.escaped(e, 'the sandbox could not deliver a result to the routine'),
    );
  }

  cancel(): void {
    this.finished = true;
    this.host.ended(this.msg.id);
    this.leave();
    this.dispose();
  }

  finish(result: RawResult): void {
    if (this.finished) return;
    this.finished = true;
    this.host.ended(this.msg.id);
    this.leave();
    this.dispose();
    this.host.post({ t: 'done', id: this.msg.id, result });
  }

  private leave(): void {
    if (this.shared !== undefined) leaveBudget(this.msg.budget, this.shared, this);
  }

  private dispose(): void {
    const vm = this.vm;
    this.vm = undefined;
    this.memory = undefined;
    if (vm === undefined) return;
    try {
      this.start_?.dispose();
      this.dispatch?.dispose();
      for (const h of Object.values(this.kinds)) h.dispose();
    } catch {
      // A VM that trapped may fail to free; it is unreachable either way and the GC takes its memory.
    }
    vm.dispose();
    // After vm.dispose() no handle of it reaches its instance again; a VM left mid-slice keeps its memory.
    if (!this.inSlice) this.release?.();
  }
}
