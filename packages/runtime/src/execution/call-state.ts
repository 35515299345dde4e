import type { CallError } from '../errors.js';
import type { CallKind, CallRecord } from '../journal/entries.js';

/** A call while the execution runs, with its values unredacted (the journal gets redacted copies). */
export class CallState {
  status: 'pending' | 'completed' | 'failed' = 'pending';
  output: unknown;
  error: CallError | undefined;
  /** A code position's recorded clock and seed. */
  clock: { epochMs: number; seed: number } | undefined;
  /** Calls admitted under this one, in admission order ($.calls reads them). */
  readonly children: CallState[] = [];
  /** Made only when something waits for the settlement (context.outcome): most calls have no waiter. */
  private settledPromise: Promise<void> | undefined;
  private resolveSettled: (() => void) | undefined;

  constructor(
    readonly id: string,
    readonly parent: CallState | null,
    readonly kind: CallKind,
    readonly name: string,
    readonly input: unknown,
    readonly async: boolean,
  ) {}

  /** Resolves once the call has completed or failed. */
  get settled(): Promise<void> {
    if (this.settledPromise === undefined) {
      this.settledPromise = this.status === 'pending' ? new Promise((resolve) => (this.resolveSettled = resolve)) : Promise.resolve();
    }
    return this.settledPromise;
  }

  /** Deterministic: the parent's id and the admission index under it (`c1.2.1`). */
  childId(): string {
    return `${this.id}.${this.children.length + 1}`;
  }

  complete(output: unknown): void {
    this.status = 'completed';
    this.output = output;
    this.resolveSettled?.();
  }

  fail(error: CallError): void {
    this.status = 'failed';
    this.error = error;
    this.resolveSettled?.();
  }

  record(): CallRecord {
    const record: CallRecord = { id: this.id, parent: this.parent?.id ?? null, kind: this.kind, name: this.name, status: this.status };
    if (this.input !== undefined) record.input = this.input;
    if (this.async) record.async = true;
    if (this.status === 'completed') record.outcome = this.output === undefined ? {} : { output: this.output };
    if (this.status === 'failed') record.outcome = { error: this.error! };
    return record;
  }

  /**
   * How templates see a call (TPL-3): id, name, status, input and the terminal outcome; only a
   * completed call has `output`. Host timestamps are not part of it.
   */
  view(): Record<string, unknown> {
    const view: Record<string, unknown> = { id: this.id, name: this.name, status: this.status };
    if (this.input !== undefined) view['input'] = this.input;
    if (this.status === 'completed') {
      view['output'] = this.output ?? null;
      view['outcome'] = { output: this.output ?? null };
    } else if (this.status === 'failed') view['outcome'] = { error: this.error };
    return view;
  }
}
