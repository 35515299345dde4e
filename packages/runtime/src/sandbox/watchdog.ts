/**
 * The pool's last resort against a worker whose engine stopped polling its interrupt handler.
 * The handler runs thousands of times a second while guest code runs, so a slice still running
 * this long after its deadline means the engine no longer polls it; only then is the worker (and
 * every routine in it) stopped.
 */
const WATCHDOG_GRACE_MS = 2000;
const WATCHDOG_INTERVAL_MS = 250;

export interface WatchedWorker {
  /** [busy invocation id (0 = none), epoch ms by which its slice must end], written by the worker (interrupts.ts). */
  watch: BigInt64Array;
  dead: boolean;
}

export class Watchdog<W extends WatchedWorker> {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly workers: () => Iterable<W | undefined>,
    private readonly stop: (worker: W, busy: number) => void,
  ) {}

  /** Runs while any invocation does. */
  start(): void {
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => {
      const now = BigInt(Date.now());
      for (const worker of this.workers()) {
        if (worker === undefined || worker.dead) continue;
        const busy = Atomics.load(worker.watch, 0);
        if (busy !== 0n && now > Atomics.load(worker.watch, 1) + BigInt(WATCHDOG_GRACE_MS)) this.stop(worker, Number(busy));
      }
    }, WATCHDOG_INTERVAL_MS);
    this.timer.unref();
  }

  halt(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }
}
