import type { CallError } from '../errors.js';
import type { ToolCallRecord } from './step-tools.js';

/**
 * What a step (or one item of an `each` step) is doing or how it ended. Done, in the sense that
 * consumers may run: `passed`, `unchecked`, `ambiguous`, `skipped`.
 */
export type StepStatus =
  | 'pending' // not started: waiting for dependencies, a free target, or the run to be resumed
  | 'running' // started; its outcome is not recorded yet
  | 'checking' // its outcome (outputs, files, changes) is recorded; its check is running
  | 'waiting' // an `ask` whose request is saved, or a step confirmed done without outputs: waiting for a person
  | 'uncertain' // a step with `changes` was started and has no recorded outcome: confirm it
  | 'passed' // completed, and its check passed
  | 'unchecked' // completed, without a check: never "verified"
  | 'ambiguous' // completed; its check lacked evidence (or there was no judge)
  | 'failed' // the executor failed, its output or change was invalid, or its check failed
  | 'skipped' // `when` was false, or it shares the condition of a skipped producer
  | 'stopped'; // it reads an output that does not exist (a skipped producer, a missing item)

export const DONE_STATUSES: readonly StepStatus[] = ['passed', 'unchecked', 'ambiguous', 'skipped'];

export type RunStatus = 'running' | 'completed' | 'needs_attention' | 'failed';

/** A saved file: bytes under the data folder, addressed by their hash. */
export interface FileValue {
  /** Relative to the data folder, `/`-separated: `runs/<runId>/files/<step>/<name>.md`. */
  path: string;
  sha256: string;
  size: number;
  format?: string;
}

export interface ChangeRecord {
  /** `state.NAME` or `environment.NAME`. */
  target: string;
  /** State: the file, relative to the data folder. */
  file?: string;
  /** State: the value read when the step started (the declared default when the file was missing). */
  before?: unknown;
  /** State: the replacement written; environment: the evidence the executor reported observing, if any. */
  after?: unknown;
  /** Environment: the writing tool calls to this connection the runner saw succeed (observed evidence). */
  writes?: { tool: string; input: unknown; output: unknown }[];
  /** State: sha256 of the bytes written. */
  sha256?: string;
}

export interface CheckRecord {
  kind: 'english' | 'equals' | 'count' | 'present' | 'file';
  status: 'passed' | 'failed' | 'ambiguous';
  reason?: string;
  at: string;
}

/** One invocation: a whole step, or one item of an `each` step. */
export interface InvocationRecord {
  status: StepStatus;
  startedAt?: string;
  /** When the outcome (outputs, files, changes) was recorded: before the check ran. */
  recordedAt?: string;
  endedAt?: string;
  /** The resolved local inputs (`in` aliases, the `each` alias). */
  inputs?: Record<string, unknown>;
  /** `ask`: the request, with `{{alias}}` substituted once. */
  request?: string;
  response?: unknown;
  outputs?: Record<string, unknown>;
  changes?: Record<string, ChangeRecord>;
  check?: CheckRecord;
  error?: CallError;
  /** `do` steps with tools: every tool call, in order, as the runner observed it. */
  calls?: ToolCallRecord[];
  /** Why it was skipped, stopped or is uncertain. */
  reason?: string;
  /** `confirm --done`: a person confirmed the change happened (and gave its outputs, or is asked for them). */
  confirmed?: 'done';
}

export interface ItemRecord extends InvocationRecord {
  index: number;
  item: unknown;
}

export interface StepRecord extends InvocationRecord {
  kind: 'do' | 'ask';
  /** Executor invocations so far in this run (a scripted provider answers the n-th with response n). */
  invocations: number;
  /** Judge invocations so far in this run. */
  judgements: number;
  /** Generation decisions so far (an agent with tools makes several per invocation; a scripted provider answers the n-th with response n). */
  decisions?: number;
  /** `each` steps: one record per item, in list order. */
  items?: ItemRecord[];
  /** Earlier attempts replaced by `confirm --redo` or by a re-run after an interruption. */
  previous?: InvocationRecord[];
}

export interface RunRecord {
  format: 'berrypack-method-run/1';
  runId: string;
  method: { name: string; versionId: string };
  status: RunStatus;
  startedAt: string;
  updatedAt: string;
  endedAt?: string;
  /** The run's inputs, defaults applied (file inputs as saved files). */
  inputs: Record<string, unknown>;
  /** Connections that had a configuration when the run started (the configuration itself is never saved). */
  environment: string[];
  /** Host data, saved as given (the CLI records its `--script` and `--environment` arguments). */
  meta?: Record<string, unknown>;
  steps: Record<string, StepRecord>;
  result?: unknown;
  error?: CallError;
}

export interface PendingEntry {
  step: string;
  item?: number;
  /** `missing-output`: a step confirmed done waits for its outputs (`confirm --done --response-json`). */
  kind: 'ask' | 'uncertain' | 'interrupted' | 'missing-output';
  request: string;
}

/** What `runMethod`, `resumeMethod`, `confirmStep` and `methodStatus` return. */
export interface MethodRun {
  runId: string;
  status: RunStatus;
  steps: Record<string, StepStatus>;
  pending: PendingEntry[];
  /** Only when completed: the document's `result`, skipped entries left out. */
  result?: unknown;
  /** Only when failed. */
  error?: CallError;
}
