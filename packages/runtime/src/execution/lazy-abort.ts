/**
 * What a call's cancellation and deadline need of an AbortController, without making one until
 * someone reads `signal`. A tool call has three (the call's cancellation, the deadline, and both
 * together for the tool), and most tools never read theirs: in Node 20 an AbortController and its
 * listeners cost more than the rest of such a call's bookkeeping. Aborting before the signal is
 * made gives a signal already aborted with the same reason.
 */
export class LazyAbort {
  private controller: AbortController | undefined;
  private done = false;
  private why: unknown;
  private listeners: ((reason: unknown) => void)[] = [];

  get aborted(): boolean {
    return this.done;
  }

  get reason(): unknown {
    return this.why;
  }

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.done) this.controller.abort(this.why);
    }
    return this.controller.signal;
  }

  /** As AbortController.abort: without a reason, an `AbortError` DOMException. */
  abort(reason?: unknown): void {
    if (this.done) return;
    this.done = true;
    this.why = reason === undefined ? new DOMException('This operation was aborted', 'AbortError') : reason;
    this.controller?.abort(this.why);
    const listeners = this.listeners;
    this.listeners = [];
    for (const listener of listeners) listener(this.why);
  }

  /** Calls `listener` once when aborted (at once if it is); returns what detaches it. */
  onAbort(listener: (reason: unknown) => void): () => void {
    if (this.done) {
      listener(this.why);
      return () => undefined;
    }
    this.listeners.push(listener);
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }
}

/**
 * Aborted with the reason of whichever source aborts first (the first already aborted, in order,
 * at once), as `AbortSignal.any` is, for as long as `detach` is not called: a call's sources live
 * no longer than the call, so no weak references are needed.
 */
export function eitherAbort(sources: readonly (AbortSignal | LazyAbort)[]): { abort: LazyAbort; detach(): void } {
  const abort = new LazyAbort();
  const detachers: (() => void)[] = [];
  for (const source of sources) {
    if (source.aborted) {
      abort.abort(source.reason);
      break;
    }
  }
  if (!abort.aborted) {
    for (const source of sources) {
      if (source instanceof LazyAbort) {
        detachers.push(source.onAbort((reason) => abort.abort(reason)));
      } else {
        const listener = () => abort.abort(source.reason);
        source.addEventListener('abort', listener, { once: true });
        detachers.push(() => source.removeEventListener('abort', listener));
      }
    }
  }
  return { abort, detach: () => detachers.forEach((d) => d()) };
}
