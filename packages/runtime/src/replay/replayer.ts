import { canonicalJson } from '@berrypack/compiler/bundle';
import { failure, type CallError } from '../errors.js';
import type { CallEntry, CallRecord, ExecutionEntry, JournalEntry, OutcomeEntry } from '../journal/entries.js';

/** The first difference between a replay and its recording. */
export interface Divergence {
  /** The call id (position) where they differ. */
  at: string;
  recorded?: { kind: string; name: string; input?: unknown; outcome?: unknown };
  replayed?: { kind: string; name: string; input?: unknown; outcome?: unknown };
  message: string;
}

interface Recorded {
  call: CallEntry;
  outcome: OutcomeEntry | undefined;
}

/**
 * Serves a recorded execution back to a re-run of it (RUN-5). Every admission is compared with
 * the recorded call at the same id; model decisions, external tools and template reads get
 * their recorded outcome instead of being dispatched again; code re-runs, and its outcome must
 * equal the recorded one. A recorded call without an outcome refuses to continue.
 */
export class Replayer {
  divergence: Divergence | undefined;
  readonly header: ExecutionEntry;
  private readonly recorded = new Map<string, Recorded>();
  private readonly seen = new Set<string>();

  constructor(entries: readonly JournalEntry[]) {
    const header = entries.find((e): e is ExecutionEntry => e.type === 'execution');
    if (!header) throw failure('invalid-journal', 'Missing the execution entry, expected a journal written by the runtime');
    this.header = header;
    for (const entry of entries) {
      if (entry.executionId !== header.executionId) continue;
      if (entry.type === 'call') this.recorded.set(entry.id, { call: entry, outcome: undefined });
      if (entry.type === 'outcome') {
        const recorded = this.recorded.get(entry.id);
        if (recorded) recorded.outcome = entry;
      }
    }
  }

  clock(id: string): { epochMs: number; seed: number } | undefined {
    return this.recorded.get(id)?.call.clock;
  }

  admit(entry: CallEntry): void {
    this.seen.add(entry.id);
    const recorded = this.recorded.get(entry.id);
    const replayed = describe(entry);
    if (!recorded) {
      this.diverge({ at: entry.id, replayed, message: `Unexpected call ${entry.id} ${entry.kind} \`${entry.name}\` in the replay, expected no call at that position (the recording has none)` });
    }
    const { call } = recorded!;
    if (call.kind !== entry.kind || call.name !== entry.name || !sameJson(call.input, entry.input)) {
      this.diverge({
        at: entry.id,
        recorded: describe(call),
        replayed,
        message: `Unexpected call ${entry.id} ${entry.kind} \`${entry.name}\` with input ${short(entry.input)} in the replay, expected ${call.kind} \`${call.name}\` with input ${short(call.input)} as recorded`,
      });
    }
  }

  /** The recorded outcome of a call that is not dispatched again. */
  outcome(id: string): { output: unknown } | { error: CallError } {
    const outcome = this.recorded.get(id)?.outcome;
    if (!outcome) {
      throw failure('replay-missing-outcome', `Missing the recorded outcome of call ${id}, expected one to continue: the original call may have taken effect, so it is not dispatched again`);
    }
    return outcome.status === 'completed' ? { output: outcome.output } : { error: outcome.error };
  }

  /** A re-run call settled: its outcome must be the recorded one. */
  settled(record: CallRecord): void {
    const recorded = this.recorded.get(record.id);
    if (!recorded?.outcome) return;
    const expected = recorded.outcome.status === 'completed' ? settledAs('completed', recorded.outcome.output) : settledAs('failed', recorded.outcome.error);
    const outcome = record.outcome;
    const actual = record.status === 'completed' ? settledAs('completed', outcome && 'output' in outcome ? outcome.output : undefined) : settledAs(record.status, outcome && 'error' in outcome ? outcome.error : undefined);
    if (!sameJson(expected, actual)) {
      this.diverge({
        at: record.id,
        recorded: { ...describe(recorded.call), outcome: expected },
        replayed: { kind: record.kind, name: record.name, ...(record.input === undefined ? {} : { input: record.input }), outcome: actual },
        message: `Unexpected outcome ${short(actual)} of call ${record.id} \`${record.name}\` in the replay, expected ${short(expected)} as recorded`,
      });
    }
  }

  /** After the re-run: a recorded call the replay never made is a divergence too. */
  finish(): void {
    if (this.divergence) return;
    for (const [id, recorded] of this.recorded) {
      if (this.seen.has(id)) continue;
      this.divergence = {
        at: id,
        recorded: describe(recorded.call),
        message: `Missing call ${id} ${recorded.call.kind} \`${recorded.call.name}\` in the replay, expected it as recorded`,
      };
      return;
    }
  }

  private diverge(divergence: Divergence): never {
    this.divergence ??= divergence;
    throw failure('non-determinism', divergence.message);
  }
}

function describe(entry: CallEntry): { kind: string; name: string; input?: unknown } {
  return entry.input === undefined ? { kind: entry.kind, name: entry.name } : { kind: entry.kind, name: entry.name, input: entry.input };
}

function settledAs(status: string, value: unknown): Record<string, unknown> {
  if (value === undefined) return { status };
  return status === 'completed' ? { status, output: value } : { status, error: value };
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === undefined || b === undefined) return a === b;
  return canonicalJson(a) === canonicalJson(b);
}

function short(value: unknown): string {
  if (value === undefined) return '(none)';
  const text = canonicalJson(value);
  return text.length > 120 ? `${text.slice(0, 117)}…` : text;
}
