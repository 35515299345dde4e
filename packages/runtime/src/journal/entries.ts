import type { CallError } from '../errors.js';

/** What a call is: see docs/runtime.md, "Journal". */
export type CallKind = 'entry' | 'tool' | 'next' | 'model' | 'read' | 'receive' | 'route' | 'configure' | 'compaction';

/** The start of an execution: everything replay needs besides the bundle and the recorded calls. */
export interface ExecutionEntry {
  type: 'execution';
  executionId: string;
  bundle: string;
  target: { agent: string } | { export: string };
  /** Qualified name of the routine started. */
  routine: string;
  input?: unknown;
  grants: string[];
  /** Env placeholder values; secret ones are recorded redacted. */
  env: Record<string, string>;
  /** Model bindings by routine (or `default`), without keys. */
  models: Record<string, { provider: string; model?: string }>;
  /** The instant code routines see as `Date` (fixed for the execution; a host timestamp). */
  epochMs: number;
  at: string;
  /** Host data an embedder attaches (the CLI records the bundle or manifest it ran). */
  meta?: Record<string, unknown>;
  /** The execution this one continues (runtime.continue): its calls were replayed, then it went on. */
  continues?: string;
}

export interface CallEntry {
  type: 'call';
  executionId: string;
  id: string;
  parent: string | null;
  kind: CallKind;
  name: string;
  input?: unknown;
  async?: true;
  /** For a code routine position: the clock and seed its `Date` and `Math.random` see. */
  clock?: { epochMs: number; seed: number };
  at: string;
}

export type OutcomeEntry = { type: 'outcome'; executionId: string; id: string; at: string } & (
  { status: 'completed'; output?: unknown } | { status: 'failed'; error: CallError }
);

/** A value received through the execution's input port (RUN-14). */
export interface MessageEntry {
  type: 'message';
  executionId: string;
  id: string;
  value: unknown;
  at: string;
}

/** A value published through an output port: an emit, a forwarded output or a presentation (RUN-15). */
export interface PublicationEntry {
  type: 'publication';
  executionId: string;
  id: string;
  /** The call whose port published it. */
  call: string;
  source: 'emit' | 'presentation' | 'model';
  status: 'published' | 'refused';
  value?: unknown;
  kind?: string;
  answers?: string;
  error?: CallError;
  at: string;
}

export type EndEntry = { type: 'end'; executionId: string; at: string } & ({ status: 'completed'; output?: unknown } | { status: 'failed'; error: CallError });

export type JournalEntry = ExecutionEntry | CallEntry | OutcomeEntry | MessageEntry | PublicationEntry | EndEntry;

/** A call as `run --json` and `Outcome.calls` show it: the fold of its call and outcome entries. */
export interface CallRecord {
  id: string;
  parent: string | null;
  kind: CallKind;
  name: string;
  status: 'pending' | 'completed' | 'failed';
  input?: unknown;
  async?: true;
  outcome?: { output?: unknown } | { error: CallError };
}

/** Folds journal entries of one execution into its call records, in admission order. */
export function callRecords(entries: readonly JournalEntry[]): CallRecord[] {
  const records = new Map<string, CallRecord>();
  for (const entry of entries) {
    if (entry.type === 'call') {
      const record: CallRecord = { id: entry.id, parent: entry.parent, kind: entry.kind, name: entry.name, status: 'pending' };
      if ('input' in entry) record.input = entry.input;
      if (entry.async) record.async = true;
      records.set(entry.id, record);
    } else if (entry.type === 'outcome') {
      const record = records.get(entry.id);
      if (!record) continue;
      record.status = entry.status;
      record.outcome = entry.status === 'completed' ? ('output' in entry ? { output: entry.output } : {}) : { error: entry.error };
    }
  }
  return [...records.values()];
}
