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
  if (outer) {
    if (signal === undefined) return work(outer.signal);
    const both = eitherSignal(signal, outer.signal);
    try {
      return await work(both.signal);
    } finally {
      both.dispose();
    }
  }
  const controller = new AbortController();
  exec.cancellable.set(call.id, controller);
  const both = signal ? eitherSignal(signal, controller.signal) : undefined;
  const cancelled = new Promise<never>((_, reject) => controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true }));
  cancelled.catch(() => undefined);
  try {
    return await Promise.race([work(both?.signal ?? controller.signal), cancelled]);
  } finally {
    both?.dispose();
    exec.cancellable.delete(call.id);
  }
}

/**
 * A signal that aborts with the reason of whichever of two aborts first, as `AbortSignal.any`
 * does, for the length of one call: `dispose` detaches it. `AbortSignal.any` keeps weak
 * references to let long-lived sources go, which cost more than the rest of a tool call's
 * bookkeeping; a call's sources live no longer than the call.
 */
export function eitherSignal(a: AbortSignal, b: AbortSignal): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const first = a.aborted ? a : b.aborted ? b : undefined;
  if (first !== undefined) {
    controller.abort(first.reason);
    return { signal: controller.signal, dispose: () => undefined };
  }
  const onA = () => controller.abort(a.reason);
  const onB = () => controller.abort(b.reason);
  a.addEventListener('abort', onA, { once: true });
  b.addEventListener('abort', onB, { once: true });
  return {
    signal: controller.signal,
    dispose: () => {
      a.removeEventListener('abort', onA);
      b.removeEventListener('abort', onB);
    },
  };
}
