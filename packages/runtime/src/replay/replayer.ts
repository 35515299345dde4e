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

/**
 * A recording without an `end` entry for its execution: the run was cut short (a crash, a
 * kill) and the journal stops after `endsAfter`. The replay goes up to there and no further.
 */
export interface IncompleteRecording {
  /** The 1-based position, among the entries replayed (the line of a journal file), of the execution's last recorded entry. */
  endsAfter: number;
  /** That entry: its type and, for a call, an outcome or a publication, the call it belongs to. */
  last: { type: JournalEntry['type']; call?: string };
  /** True when the replay made every recorded call again and each matched, up to where the recording ends. */
  matched: boolean;
  /** The call the replay reached past the end of the recording, where it stopped (never dispatched). */
  beyond?: { at: string; kind: string; name: string; input?: unknown };
  message: string;
}

/** Where a recording without an `end` entry stops: what `replayExecution` tells the replayer. */
export interface RecordingCut {
  endsAfter: number;
  last: JournalEntry;
}

interface Recorded {
  call: CallEntry;
  outcome: OutcomeEntry | undefined;
}

/**
 * Serves a recorded execution back to a re-run of it (RUN-5). Every admission is compared with
 * the recorded call at the same id; model decisions, external tools and template reads get
 * their recorded outcome instead of being dispatched again; code re-runs, and its outcome must
 * equal the recorded one. A recorded call without an outcome refuses to continue. In a
 * recording without an `end` entry (cut short by a crash), a call past its end stops the
 * replay as `incomplete-recording`, not as a divergence: there is nothing to compare it with.
 */
export class Replayer {
  divergence: Divergence | undefined;
  /** A continuation (runtime.continue): calls past the recording run live and are journaled again. */
  continuing = false;
  /** True once a continuation admitted its first live call: what it publishes from then on is new. */
  wentLive = false;
  /** Calls admitted past the end of a continued recording: dispatched for real. */
  private readonly liveCalls = new Set<string>();
  /** Set by `finish()` when the recording has no `end` entry. */
  incomplete: IncompleteRecording | undefined;
  readonly header: ExecutionEntry;
  private readonly recorded = new Map<string, Recorded>();
  private readonly seen = new Set<string>();
  /** The highest recorded child index (`c1.3` → 3) of each parent. */
  private readonly lastChild = new Map<string, number>();
  /** Why the replay stopped early: past the end of an incomplete recording, or at a recorded call without an outcome. */
  private halted: { reason: 'beyond'; call: NonNullable<IncompleteRecording['beyond']> } | { reason: 'missing-outcome'; at: string } | undefined;

  constructor(
    entries: readonly JournalEntry[],
    /** Present when the recording has no `end` entry: where it stops. */
    private readonly cut?: RecordingCut,
  ) {
    const header = entries.find((e): e is ExecutionEntry => e.type === 'execution');
    if (!header) throw failure('invalid-journal', 'Missing the execution entry, expected a journal written by the runtime');
    this.header = header;
    for (const entry of entries) {
      if (entry.executionId !== header.executionId) continue;
      if (entry.type === 'call') {
        this.recorded.set(entry.id, { call: entry, outcome: undefined });
        if (entry.parent !== null) {
          const index = Number(entry.id.slice(entry.parent.length + 1));
          this.lastChild.set(entry.parent, Math.max(this.lastChild.get(entry.parent) ?? 0, index));
        }
      }
      if (entry.type === 'outcome') {
        const recorded = this.recorded.get(entry.id);
        if (recorded) recorded.outcome = entry;
      }
    }
  }

  live(id: string): boolean {
    return this.liveCalls.has(id);
  }

  clock(id: string): { epochMs: number; seed: number } | undefined {
    return this.recorded.get(id)?.call.clock;
  }

  admit(entry: CallEntry): void {
    this.seen.add(entry.id);
    const recorded = this.recorded.get(entry.id);
    const replayed = describe(entry);
    if (!recorded && this.continuing) {
      // Past what a continuation replays: this call runs for real.
      this.liveCalls.add(entry.id);
      this.wentLive = true;
      return;
    }
    if (!recorded && this.cut && this.pastTheEnd(entry)) {
      // Past the end of an incomplete recording: not a divergence, there is nothing to compare with.
      const beyond = { at: entry.id, ...replayed };
      this.halted ??= { reason: 'beyond', call: beyond };
      throw failure(
        'incomplete-recording',
        `${this.cutPrefix()}; the replay stopped at call ${entry.id} ${entry.kind} \`${entry.name}\`, which the recording does not have`,
      );
    }
    if (!recorded) {
      this.diverge({
        at: entry.id,
        replayed,
        message: `Unexpected call ${entry.id} ${entry.kind} \`${entry.name}\` in the replay, expected no call at that position (the recording has none)`,
      });
    }
    const { call } = recorded;
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
      this.halted ??= { reason: 'missing-outcome', at: id };
      throw failure(
        'replay-missing-outcome',
        `Missing the recorded outcome of call ${id}, expected one to continue: the original call may have taken effect, so it is not dispatched again`,
      );
    }
    return outcome.status === 'completed' ? { output: outcome.output } : { error: outcome.error };
  }

  /** A re-run call settled: its outcome must be the recorded one. */
  settled(record: CallRecord): void {
    // Once the replay stopped early, calls settle as it unwinds: nothing left to compare.
    if (this.halted || this.liveCalls.has(record.id)) return;
    const recorded = this.recorded.get(record.id);
    if (!recorded?.outcome) return;
    const expected = recorded.outcome.status === 'completed' ? settledAs('completed', recorded.outcome.output) : settledAs('failed', recorded.outcome.error);
    const outcome = record.outcome;
    const actual =
      record.status === 'completed'
        ? settledAs('completed', outcome && 'output' in outcome ? outcome.output : undefined)
        : settledAs(record.status, outcome && 'error' in outcome ? outcome.error : undefined);
    if (!sameJson(expected, actual)) {
      this.diverge({
        at: record.id,
        recorded: { ...describe(recorded.call), outcome: expected },
        replayed: { kind: record.kind, name: record.name, ...(record.input === undefined ? {} : { input: record.input }), outcome: actual },
        message: `Unexpected outcome ${short(actual)} of call ${record.id} \`${record.name}\` in the replay, expected ${short(expected)} as recorded`,
      });
    }
  }

  /**
   * After the re-run: a recorded call the replay never made is a divergence too, unless the
   * replay stopped early (past the end of an incomplete recording, or at a missing outcome).
   * For a recording without an `end` entry, sets `incomplete`.
   */
  finish(outcome: { status: 'completed' | 'failed'; error?: CallError }): void {
    const unreached = [...this.recorded.keys()].filter((id) => !this.seen.has(id));
    if (!this.divergence && !this.halted && unreached.length > 0) {
      const id = unreached[0]!;
      const recorded = this.recorded.get(id)!;
      this.divergence = {
        at: id,
        recorded: describe(recorded.call),
        message: `Missing call ${id} ${recorded.call.kind} \`${recorded.call.name}\` in the replay, expected it as recorded`,
      };
    }
    if (!this.cut) return;
    const matched = this.divergence === undefined && unreached.length === 0;
    let stop: string;
    if (this.halted?.reason === 'beyond') {
      const { at, kind, name } = this.halted.call;
      stop = `the replay stopped at call ${at} ${kind} \`${name}\`, which the recording does not have`;
    } else if (this.halted?.reason === 'missing-outcome') stop = `the replay stopped at call ${this.halted.at}, whose outcome is not recorded`;
    else stop = `the replay ${outcome.status === 'completed' ? 'completed' : `failed (${outcome.error?.code ?? 'internal'})`} without making another call`;
    let what: string;
    if (this.divergence) what = `the replay diverged before that, at ${this.divergence.at}`;
    else if (this.recorded.size === 0) what = `the recording has no call, and ${stop}`;
    else if (matched) what = `every recorded call up to there matched, and ${stop}`;
    else
      what = `every call the replay made matched, but ${stop}, before it made the recorded ${unreached.length === 1 ? 'call' : 'calls'} ${list(unreached)} (concurrent calls may be admitted in another order)`;
    this.incomplete = {
      endsAfter: this.cut.endsAfter,
      last: lastOf(this.cut.last),
      matched,
      ...(this.halted?.reason === 'beyond' ? { beyond: this.halted.call } : {}),
      message: `${this.cutPrefix()}; ${what}`,
    };
  }

  /**
   * Whether a call the recording lacks can lie past its end. Not when the recording has the
   * outcome of its parent (the parent made all its calls before the cut), nor when it has a later
   * call of the same parent (admissions are appended in order, so this one would be there too).
   */
  private pastTheEnd(entry: CallEntry): boolean {
    if (entry.parent === null) return true;
    if (this.recorded.get(entry.parent)?.outcome !== undefined) return false;
    const index = Number(entry.id.slice(entry.parent.length + 1));
    return (this.lastChild.get(entry.parent) ?? 0) < index;
  }

  private cutPrefix(): string {
    const cut = this.cut!;
    return `Missing the end of the recording of ${this.header.executionId}: it ends after entry ${cut.endsAfter} (${describeEntry(cut.last)}) without an \`end\` entry, expected one (the run was cut short, by a crash or a kill)`;
  }

  private diverge(divergence: Divergence): never {
    this.divergence ??= divergence;
    throw failure('non-determinism', divergence.message);
  }
}

function describe(entry: CallEntry): { kind: string; name: string; input?: unknown } {
  return entry.input === undefined ? { kind: entry.kind, name: entry.name } : { kind: entry.kind, name: entry.name, input: entry.input };
}

function lastOf(entry: JournalEntry): IncompleteRecording['last'] {
  if (entry.type === 'call' || entry.type === 'outcome') return { type: entry.type, call: entry.id };
  if (entry.type === 'publication') return { type: entry.type, call: entry.call };
  return { type: entry.type };
}

function describeEntry(entry: JournalEntry): string {
  switch (entry.type) {
    case 'execution':
      return 'the execution entry';
    case 'call':
      return `the admission of call ${entry.id} ${entry.kind} \`${entry.name}\``;
    case 'outcome':
      return `the outcome of call ${entry.id}`;
    case 'message':
      return `message ${entry.id}`;
    case 'publication':
      return `publication ${entry.id} of call ${entry.call}`;
    case 'end':
      return 'the end entry';
  }
}

function list(ids: string[]): string {
  return ids.length <= 5 ? ids.join(', ') : `${ids.slice(0, 5).join(', ')} and ${ids.length - 5} more`;
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
