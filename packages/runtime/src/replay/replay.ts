import { randomUUID } from 'node:crypto';
import type { Bundle } from '../bundle/load-bundle.js';
import type { RoutineRef } from '../bundle/routine-table.js';
import { failure, type CallError } from '../errors.js';
import { Execution, type RuntimeServices } from '../execution/execution.js';
import type { ExternalTool } from '../execution/external-tool.js';
import { InputPort } from '../execution/ports.js';
import { runExecution } from '../execution/run.js';
import type { CallRecord, ExecutionEntry, JournalEntry } from '../journal/entries.js';
import { prepareBundle, preparedState } from '../prepare/prepare.js';
import type { ModelBinding, ModelProvider } from '../providers/provider.js';
import { recordedExecution } from './recorded-execution.js';
import { Replayer, type Divergence, type IncompleteRecording, type RecordingCut } from './replayer.js';

export interface ReplayOptions {
  /** Which recorded execution to replay when the entries hold several; default: the last one. */
  executionId?: string;
}

export interface ReplayReport {
  /** The recorded execution. */
  replayOf: string;
  /** The replay's own id. */
  executionId: string;
  /**
   * True when the replay made exactly the recorded calls with the recorded outcomes, and the
   * recording is complete (it has the execution's `end` entry).
   */
  matches: boolean;
  /** How the replay itself ended. */
  status: 'completed' | 'failed';
  output?: unknown;
  /**
   * The replay's failure; when it does not match: `non-determinism` (see `divergence`),
   * `replay-missing-outcome`, or `incomplete-recording` (see `incomplete`; set even when the
   * replay completed, as it may within a recording cut just before its `end` entry).
   */
  error?: CallError;
  divergence?: Divergence;
  /** Present when the recording has no `end` entry for the execution (a run cut short by a crash or a kill). */
  incomplete?: IncompleteRecording;
  calls: CallRecord[];
}

interface ReplayContext {
  services: RuntimeServices;
  defaultModel: ModelBinding;
  startRoutine(root: ReturnType<typeof preparedState>['root'], target: ExecutionEntry['target']): RoutineRef;
}

/**
 * RUN-5: re-runs a recorded execution. The preparation is rebuilt from the recording (its
 * grants, env values, model bindings); providers and external tools are stand-ins that are
 * never reached, because the replayer serves every recorded outcome. Code runs again for real.
 */
export async function replayExecution(bundle: Bundle, entries: readonly JournalEntry[], options: ReplayOptions, ctx: ReplayContext): Promise<ReplayReport> {
  const { header, recorded } = recordedExecution(entries, options.executionId, bundle.id, 'RUN-5');
  // A complete execution ends with its `end` entry; without one the run was cut short.
  let cut: RecordingCut | undefined;
  if (!recorded.some((e) => e.type === 'end')) {
    let last = 0;
    for (let i = 0; i < entries.length; i++) if (entries[i]!.executionId === header.executionId) last = i;
    cut = { endsAfter: last + 1, last: entries[last]! };
  }
  const replayer = new Replayer(recorded, cut);

  const standIn: ModelProvider = {
    generate: () => Promise.reject(failure('replay-missing-outcome', 'Unexpected model decision without a recorded outcome')),
    classify: () => Promise.reject(failure('replay-missing-outcome', 'Unexpected model decision without a recorded outcome')),
    // A replay never reopens a session: every answer of one is a recorded decision.
    session: { open: () => Promise.reject(failure('replay-missing-outcome', 'Unexpected model session without recorded answers')) },
  };
  const providerNames = new Set(Object.values(header.models).map((m) => m.provider));
  const providers = new Map<string, ModelProvider>([...providerNames].map((name) => [name, standIn]));
  const models = Object.fromEntries(Object.entries(header.models).map(([routine, m]) => [routine, { provider: m.provider }]));
  const tool: ExternalTool = { invoke: () => Promise.reject(failure('replay-missing-outcome', 'Unexpected tool call without a recorded outcome')) };
  const tools = new Map<string, ExternalTool>(header.grants.map((name) => [name, tool]));
  const services: RuntimeServices = { ...ctx.services, providers, tools, journal: undefined };
  const preparation = prepareBundle(bundle, { grants: header.grants, env: header.env, models }, { providers, tools, defaultModel: ctx.defaultModel });
  const state = preparedState(preparation);
  const routine = ctx.startRoutine(state.root, header.target);

  const exec = new Execution(`exec-${randomUUID()}`, state, services, header.epochMs, replayer);
  const port = routine.source.port;
  // Messages come back as the recorded outcomes of `context.receive()` calls, never from the port.
  if (port?.input === true) exec.input = new InputPort(port.limits, routine.source.kind === 'model');
  const outcome = await runExecution(exec, { routine, target: header.target, input: header.input, ...(header.meta ? { meta: header.meta } : {}) });
  replayer.finish(outcome.status === 'completed' ? { status: 'completed' } : { status: 'failed', error: outcome.error });
  const missingOutcome = outcome.status === 'failed' && outcome.error.code === 'replay-missing-outcome';
  const report: ReplayReport = {
    replayOf: header.executionId,
    executionId: exec.id,
    matches: replayer.divergence === undefined && !missingOutcome && replayer.incomplete === undefined,
    status: outcome.status,
    calls: outcome.calls,
  };
  if (outcome.status === 'completed') report.output = outcome.output;
  else report.error = outcome.error;
  if (replayer.divergence) report.divergence = replayer.divergence;
  if (replayer.incomplete) {
    report.incomplete = replayer.incomplete;
    // A divergence before the cut, or a missing outcome, stays the reason; otherwise the cut is.
    if (!replayer.divergence && !missingOutcome) report.error = { code: 'incomplete-recording', message: replayer.incomplete.message };
  }
  return report;
}
