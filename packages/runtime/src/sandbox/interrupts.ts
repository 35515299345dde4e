/**
 * The CPU and wall-clock budgets of one run, enforced from the engine's interrupt handler,
 * and what an exception that stopped guest code means.
 */
import type { InvokeMessage, RawResult } from './protocol.js';
import { failure } from './raw-result.js';
import { othersHold } from './shared-memory.js';

export type Interrupt = 'cpu' | 'timeout';

export class SliceClock {
  private readonly wallDeadline: number;
  private cpuLeft: number;
  private sliceDeadline = Infinity;
  /** Why the interrupt handler stopped guest code, if it did. */
  interrupted: Interrupt | undefined;

  /**
   * @param watch BigInt64Array shared with the host's watchdog: [id of the run whose guest code
   *   is running (0 = none), epoch ms by which that slice must end].
   */
  constructor(
    private readonly watch: BigInt64Array,
    private readonly id: number,
    limits: { cpuMs: number; timeoutMs: number },
  ) {
    this.wallDeadline = performance.now() + limits.timeoutMs;
    this.cpuLeft = limits.cpuMs;
  }

  /** Polled by the engine thousands of times a second while guest code runs. */
  expired(): boolean {
    const now = performance.now();
    const cpuOut = now >= this.sliceDeadline;
    const wallOut = now >= this.wallDeadline;
    if (!cpuOut && !wallOut) return false;
    this.interrupted = cpuOut && (!wallOut || this.sliceDeadline <= this.wallDeadline) ? 'cpu' : 'timeout';
    return true;
  }

  /**
   * Runs one slice of guest code: the CPU deadline is set for the whole slice, the job queue
   * included, and the slice is published to the host's watchdog in case the engine ever stops
   * polling the interrupt handler.
   */
  slice(step: () => void): void {
    const begin = performance.now();
    this.sliceDeadline = begin + this.cpuLeft;
    // Deadline before id, so the host never pairs this slice's id with an older deadline.
    Atomics.store(this.watch, 1, BigInt(Math.ceil(Date.now() + Math.max(0, Math.min(this.cpuLeft, this.wallDeadline - begin, 8.64e15)))));
    Atomics.store(this.watch, 0, BigInt(this.id));
    try {
      step();
    } finally {
      Atomics.store(this.watch, 0, 0n);
      this.cpuLeft -= performance.now() - begin;
      this.sliceDeadline = Infinity;
    }
  }
}

/** What an exception out of guest code means: an interrupt, the memory limit, a broken VM, or `onError`'s reading. */
export function classify(
  e: unknown,
  interrupted: Interrupt | undefined,
  limits: InvokeMessage['limits'],
  othersHeld: { bytes: number; count: number },
  onError: (e: unknown) => RawResult,
): RawResult {
  const { cpuMs, timeoutMs, memoryBytes } = limits;
  if (interrupted === 'cpu') return failure('cpu', `the routine used more than its ${cpuMs} ms of CPU time`);
  if (interrupted === 'timeout') return failure('timeout', `the routine did not finish within ${timeoutMs} ms`);
  if (e instanceof Error && e.name === 'InternalError' && e.message === 'out of memory') {
    const { bytes, count } = othersHeld;
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
