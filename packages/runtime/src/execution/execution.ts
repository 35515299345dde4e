import { createHash } from 'node:crypto';
import type { RoutineRef } from '../bundle/routine-table.js';
import { CallFailure, toCallError, type CallError } from '../errors.js';
import { callRecords, type CallEntry, type CallKind, type CallRecord, type JournalEntry, type PublicationEntry } from '../journal/entries.js';
import type { Journal } from '../journal/journal.js';
import { Redactor } from '../journal/redact.js';
import type { RuntimeLimits } from '../limits.js';
import type { PreparedState } from '../prepare/prepare.js';
import { isPlainObject } from '../json.js';
import type { ModelProvider, Usage } from '../providers/provider.js';
import type { Replayer } from '../replay/replayer.js';
import type { Sandbox } from '../sandbox/types.js';
import type { SessionStore } from '../session/store.js';
import type { SchemaValidator } from '../validate/validator.js';
import { CallState } from './call-state.js';
import type { ExternalTool } from './external-tool.js';
import type { InputPort } from './ports.js';
import type { LazyAbort } from './lazy-abort.js';

/** What every execution of one runtime shares. */
export interface RuntimeServices {
  validator: SchemaValidator;
  providers: ReadonlyMap<string, ModelProvider>;
  tools: ReadonlyMap<string, ExternalTool>;
  sandbox(): Promise<Sandbox>;
  limits: RuntimeLimits;
  /** The host clock: deadlines and journal timestamps; never shown to routine code. */
  now(): number;
  journal: Journal | undefined;
  /** The host's `stream` option: providers that can stream are asked to (docs/runtime.md, "Streaming"). */
  stream: boolean;
  /** Serves `runtime.session.read` and `runtime.session.state.read`; route threads are recorded in it. */
  sessions: SessionStore | undefined;
}

/** What `runtime.watch` delivers, in order (docs/runtime.md, "Watching an execution"). */
export type ExecutionEvent =
  | { type: 'delta'; publication: string; text: string }
  | { type: 'publication'; publication: Publication }
  | { type: 'call'; id: string; name: string; kind: string; status: 'pending' | 'completed' | 'failed'; usage?: Usage }
  | { type: 'end'; status: 'completed' | 'failed'; output?: unknown; error?: CallError };

/** A value published through an output port (RUN-14, RUN-15). */
export interface Publication {
  id: string;
  call: string;
  /** `model`: a model routine's answer (`kind: message`), progress (`kind: progress`) or route (`kind: route`). */
  source: 'emit' | 'presentation' | 'model';
  value: unknown;
  kind?: string;
  answers?: string;
}

export type Outcome =
  | { executionId: string; status: 'completed'; output: unknown; calls: CallRecord[]; publications: Publication[] }
  | { executionId: string; status: 'failed'; error: CallError; calls: CallRecord[]; publications: Publication[] };

/**
 * The state of one execution: its call tree, journal and publications. Ids are deterministic
 * (`c1`, `c1.2`, … by admission order under each parent); only the execution id is not.
 */
export class Execution {
  readonly entries: JournalEntry[] = [];
  readonly calls: CallState[] = [];
  /** Async calls (RUN-7) still running: the execution settles after them. */
  readonly background = new Set<Promise<unknown>>();
  readonly publications: Publication[] = [];
  readonly redactor: Redactor;
  /** A replay divergence or a missing recorded outcome: fails the execution whatever code catches. */
  fatal: CallFailure | undefined;
  input: InputPort | undefined;
  status: 'running' | 'completed' | 'failed' = 'running';
  private readonly sequences = new Map<string, number>();
  private publicationCount = 0;
  private lastAt = { ms: NaN, text: '' };
  private readonly watchers = new Set<(event: ExecutionEvent) => void>();
  /** In-flight calls that `runtime.cancel` can abort, by call id. */
  readonly cancellable = new Map<string, LazyAbort>();

  constructor(
    readonly id: string,
    readonly state: PreparedState,
    readonly services: RuntimeServices,
    /** The instant code sees as `Date` (CODE-5 decision): one host timestamp per execution, recorded. */
    readonly epochMs: number,
    readonly replay: Replayer | undefined,
  ) {
    this.redactor = new Redactor(state.secrets);
  }

  append(entry: JournalEntry): void {
    const redacted = this.redactor.redact(entry);
    this.entries.push(redacted);
    // A replay re-runs the recorded execution; it never writes a second copy into a journal.
    // A continuation does: it is a new execution that records everything again.
    if (this.replay === undefined || this.replay.continuing) this.services.journal?.append(redacted);
    if (this.watchers.size > 0) {
      const event = eventOf(redacted, this.calls);
      if (event) this.notify(event);
    }
  }

  /** Subscribes to the execution's events; the ones so far are delivered first. */
  watch(listener: (event: ExecutionEvent) => void): () => void {
    for (const entry of this.entries) {
      const event = eventOf(entry, this.calls);
      if (event) listener(event);
    }
    this.watchers.add(listener);
    return () => this.watchers.delete(listener);
  }

  /** Streamed text of a publication still being written: an event only, never journaled. */
  delta(publication: string, text: string): void {
    this.notify({ type: 'delta', publication, text: this.redactor.redact(text) });
  }

  /** A publication id taken before its value is known (the answer that streams into it). */
  reservePublication(): string {
    return `p${++this.publicationCount}`;
  }

  private notify(event: ExecutionEvent): void {
    for (const watcher of this.watchers) {
      try {
        watcher(event);
      } catch {
        // A host's listener that throws must not fail the execution.
      }
    }
  }

  at(): string {
    const ms = this.services.now();
    // Calls come many to a millisecond: the same instant gives the same text.
    if (ms !== this.lastAt.ms) this.lastAt = { ms, text: new Date(ms).toISOString() };
    return this.lastAt.text;
  }

  /**
   * Admits and records a call. In a replay the admission is compared with the recorded call at
   * the same position; a difference is a non-determinism error naming both.
   */
  admit(parent: CallState | null, kind: CallKind, name: string, input: unknown, options: { async?: boolean; routine?: RoutineRef } = {}): CallState {
    if (this.fatal) throw this.fatal;
    const id = parent === null ? 'c1' : parent.childId();
    const call = new CallState(id, parent, kind, name, input, options.async === true);
    const entry: CallEntry = { type: 'call', executionId: this.id, id, parent: parent?.id ?? null, kind, name, at: this.at() };
    if (input !== undefined) entry.input = input;
    if (options.async) entry.async = true;
    if (options.routine?.source.kind === 'code') call.clock = entry.clock = this.replay?.clock(id) ?? { epochMs: this.epochMs, seed: seedOf(id) };
    if (this.replay) {
      try {
        this.replay.admit(this.redactor.redact(entry));
      } catch (error) {
        if (error instanceof CallFailure) this.fatal ??= error;
        throw error;
      }
    }
    parent?.children.push(call);
    this.calls.push(call);
    this.append(entry);
    return call;
  }

  settle(call: CallState, result: { output: unknown } | { error: unknown }): void {
    if (call.status !== 'pending') return;
    if ('output' in result) {
      call.complete(result.output);
      this.append({
        type: 'outcome',
        executionId: this.id,
        id: call.id,
        status: 'completed',
        ...(result.output === undefined ? {} : { output: result.output }),
        at: this.at(),
      });
    } else {
      const error = toCallError(result.error);
      call.fail(error);
      this.append({ type: 'outcome', executionId: this.id, id: call.id, status: 'failed', error, at: this.at() });
    }
    if (this.replay) {
      try {
        this.replay.settled(this.redactor.redact(call.record()));
      } catch (error) {
        if (error instanceof CallFailure) this.fatal ??= error;
      }
    }
  }

  /**
   * In a replay, the recorded outcome of a call that is not dispatched again (a model
   * decision, an external tool, a template read); undefined when running live.
   */
  served(call: CallState): { output: unknown } | { error: CallError } | undefined {
    if (!this.replay || this.replay.live(call.id)) return undefined;
    try {
      return this.replay.outcome(call.id);
    } catch (error) {
      if (error instanceof CallFailure) this.fatal ??= error;
      throw error;
    }
  }

  /** The routine's n-th model decision in this execution (a scripted provider answers by it). */
  nextSequence(routine: string): number {
    const n = this.sequences.get(routine) ?? 0;
    this.sequences.set(routine, n + 1);
    return n;
  }

  publish(call: CallState, publication: Omit<Publication, 'id' | 'call'> & { status?: 'published' | 'refused'; error?: CallError; id?: string }): void {
    const id = publication.id ?? `p${++this.publicationCount}`;
    const entry: PublicationEntry = {
      type: 'publication',
      executionId: this.id,
      id,
      call: call.id,
      source: publication.source,
      status: publication.status ?? 'published',
      at: this.at(),
    };
    if (publication.error) entry.error = publication.error;
    if (entry.status === 'published') {
      entry.value = publication.value;
      if (publication.kind !== undefined) entry.kind = publication.kind;
      if (publication.answers !== undefined) entry.answers = publication.answers;
      const published: Publication = { id, call: call.id, source: publication.source, value: publication.value };
      if (publication.kind !== undefined) published.kind = publication.kind;
      if (publication.answers !== undefined) published.answers = publication.answers;
      this.publications.push(published);
    }
    // A continuation's replayed part published these already, to the host and in its journal.
    if (this.replay?.continuing && !this.replay.wentLive) return;
    this.append(entry);
  }

  records(): CallRecord[] {
    return callRecords(this.entries);
  }

  outcome(result: { output: unknown } | { error: CallError }): Outcome {
    const publications = this.redactor.redact(this.publications);
    if ('error' in result) return { executionId: this.id, status: 'failed', error: this.redactor.redact(result.error), calls: this.records(), publications };
    return { executionId: this.id, status: 'completed', output: this.redactor.redact(result.output), calls: this.records(), publications };
  }
}

/** The event of a (redacted) journal entry; messages and refused publications have none. */
function eventOf(entry: JournalEntry, calls: readonly CallState[]): ExecutionEvent | undefined {
  switch (entry.type) {
    case 'call':
      return { type: 'call', id: entry.id, name: entry.name, kind: entry.kind, status: 'pending' };
    case 'outcome': {
      const call = calls.find((c) => c.id === entry.id);
      const event: ExecutionEvent = { type: 'call', id: entry.id, name: call?.name ?? '', kind: call?.kind ?? '', status: entry.status };
      // A model decision's usage (reported or estimated) travels with its completion.
      const usage = entry.status === 'completed' && call?.kind === 'model' && isPlainObject(entry.output) ? entry.output['usage'] : undefined;
      if (isPlainObject(usage)) event.usage = usage as unknown as Usage;
      return event;
    }
    case 'publication': {
      if (entry.status !== 'published') return undefined;
      const publication: Publication = { id: entry.id, call: entry.call, source: entry.source, value: entry.value };
      if (entry.kind !== undefined) publication.kind = entry.kind;
      if (entry.answers !== undefined) publication.answers = entry.answers;
      return { type: 'publication', publication };
    }
    case 'end':
      return entry.status === 'completed'
        ? { type: 'end', status: 'completed', ...('output' in entry ? { output: entry.output } : {}) }
        : { type: 'end', status: 'failed', error: entry.error };
    default:
      return undefined;
  }
}

/** `Math.random`'s seed for a code invocation: derived from its call id, so two runs agree. */
function seedOf(id: string): number {
  return createHash('sha256').update(id).digest().readUInt32BE(0);
}
