import type { CallState } from './call-state.js';
import type { Execution } from './execution.js';
import { eitherAbort, LazyAbort } from './lazy-abort.js';

/**
 * Runs an admitted call's work so that `runtime.cancel` can stop it: the work's abort (its signal) aborts
 * (with the caller's deadline signal, if any), and the call rejects at once with the
 * `cancelled` failure whether or not the work heeds its signal. Nothing is rolled back: a
 * provider or tool that already acted keeps its effect.
 */
export async function cancellable<T>(
  exec: Execution,
  call: CallState,
  outside: AbortSignal | LazyAbort | undefined,
  work: (abort: LazyAbort) => Promise<T>,
): Promise<T> {
  const outer = exec.cancellable.get(call.id);
  // Already cancellable further out (a tool call dispatching to an external tool): that race answers.
  if (outer) {
    if (outside === undefined) return work(outer);
    const both = eitherAbort([outside, outer]);
    try {
      return await work(both.abort);
    } finally {
      both.detach();
    }
  }
  const controller = new LazyAbort();
  exec.cancellable.set(call.id, controller);
  const both = outside ? eitherAbort([outside, controller]) : undefined;
  const cancelled = new Promise<never>((_, reject) => controller.onAbort(reject));
  cancelled.catch(() => undefined);
  try {
    return await Promise.race([work(both?.abort ?? controller), cancelled]);
  } finally {
    both?.detach();
    exec.cancellable.delete(call.id);
  }
}
