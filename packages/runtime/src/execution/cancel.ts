import type { CallState } from './call-state.js';
import type { Execution } from './execution.js';

/**
 * Runs an admitted call's work so that `runtime.cancel` can stop it: the work's signal aborts
 * (with the caller's deadline signal, if any), and the call rejects at once with the
 * `cancelled` failure whether or not the work heeds its signal. Nothing is rolled back: a
 * provider or tool that already acted keeps its effect.
 */
export async function cancellable<T>(exec: Execution, call: CallState, signal: AbortSignal | undefined, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const outer = exec.cancellable.get(call.id);
  // Already cancellable further out (a tool call dispatching to an external tool): that race answers.
  if (outer) return work(signal ? AbortSignal.any([signal, outer.signal]) : outer.signal);
  const controller = new AbortController();
  exec.cancellable.set(call.id, controller);
  const combined = signal ? AbortSignal.any([signal, controller.signal]) : controller.signal;
  const cancelled = new Promise<never>((_, reject) => controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true }));
  cancelled.catch(() => undefined);
  try {
    return await Promise.race([work(combined), cancelled]);
  } finally {
    exec.cancellable.delete(call.id);
  }
}
