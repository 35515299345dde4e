import type { ToolLimits } from '../bundle/content.js';
import { failure } from '../errors.js';
import { LazyAbort } from './lazy-abort.js';

/**
 * What one invocation may still spend (RUN-4, RUN-8). A child connected without `limits`
 * shares its caller's allowance; with `limits` it gets one of its own, each value bounded by
 * what the caller has left and its deadline by the caller's.
 */
export class Allowance {
  constructor(
    private calls: number,
    private steps: number,
    readonly concurrency: number,
    /** Host epoch milliseconds; never shown to routine code. A conversation renews it for each turn. */
    public deadline: number,
    private readonly now: () => number,
  ) {}

  takeCall(what: string): void {
    if (this.calls <= 0)
      throw failure(
        'limit-calls',
        `Unexpected call ${what} beyond the allowance's calls limit, expected fewer calls (raise \`limits.calls\` of the connection or the runtime)`,
      );
    this.calls--;
  }

  takeStep(what: string): void {
    if (this.steps <= 0)
      throw failure(
        'limit-steps',
        `Unexpected step ${what} beyond the allowance's steps limit, expected the chain or decision loop to end sooner (raise \`limits.steps\`)`,
      );
    this.steps--;
  }

  remainingMs(): number {
    return Math.max(0, this.deadline - this.now());
  }

  child(limits: ToolLimits | undefined): Allowance {
    if (limits === undefined) return this;
    const bound = (own: number | undefined, caller: number) => (own === undefined ? caller : Math.min(own, caller));
    const deadline = limits.timeout === undefined ? this.deadline : Math.min(this.now() + limits.timeout, this.deadline);
    return new Allowance(bound(limits.calls, this.calls), bound(limits.steps, this.steps), bound(limits.concurrency, this.concurrency), deadline, this.now);
  }
}

/** FIFO slots: calls over the concurrency limit wait for one instead of failing. */
export class Semaphore {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly size: number) {}

  async acquire(): Promise<void> {
    if (this.active < this.size) {
      this.active++;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active--;
  }
}

/**
 * Races `work` against the allowance's deadline. The timer is unref'd so a pending deadline
 * never keeps a host process alive, and cleared as soon as the work settles.
 */
export async function withinDeadline<T>(allowance: Allowance, what: string, work: (abort: LazyAbort) => Promise<T>): Promise<T> {
  const controller = new LazyAbort();
  const remaining = allowance.remainingMs();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    const fire = () => {
      controller.abort();
      reject(failure('timeout', `Unexpected ${what} still running at the deadline, expected it to finish within the allowance's timeout`));
    };
    if (remaining <= 0) fire();
    else {
      timer = setTimeout(fire, remaining);
      timer.unref?.();
    }
  });
  try {
    return await Promise.race([work(controller), expired]);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}
