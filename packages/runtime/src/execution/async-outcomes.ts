import { failure } from '../errors.js';
import { renderValue } from '../json.js';
import type { ModelMessage } from '../providers/provider.js';
import type { ModelRun } from './model-step.js';

/**
 * RUN-7 for models: an async tool call answers the model with its receipt at once; its
 * correlated outcome reaches the model later, as an observation before a following decision
 * (docs/runtime.md, "Async outcomes"). Which outcomes had arrived is recorded as a `receive`
 * call (`async.outcomes`, output `[{callId, name, output} | {callId, name, error}]`, possibly
 * empty) made while any is undelivered, so a replay observes exactly what the run observed.
 */
export async function deliverOutcomes(run: ModelRun): Promise<ModelMessage[]> {
  const { scope } = run;
  const { exec } = scope;
  if (run.asyncCalls.length === 0) return [];
  const call = exec.admit(scope.call, 'receive', 'async.outcomes', { pending: run.asyncCalls.map((c) => c.id) });
  let delivered: { callId: string; name: string; output?: unknown; error?: unknown }[];
  try {
    const served = exec.served(call);
    if (served !== undefined) {
      if ('error' in served) throw failure(served.error.code, served.error.message);
      delivered = served.output as typeof delivered;
    } else {
      delivered = run.asyncCalls
        .filter((c) => c.status !== 'pending')
        .map((c) => (c.status === 'completed' ? { callId: c.id, name: c.name, output: c.output ?? null } : { callId: c.id, name: c.name, error: c.error }));
    }
    exec.settle(call, { output: delivered });
  } catch (error) {
    exec.settle(call, { error });
    throw error;
  }
  const ids = new Set(delivered.map((d) => d.callId));
  run.asyncCalls.splice(0, run.asyncCalls.length, ...run.asyncCalls.filter((c) => !ids.has(c.id)));
  return delivered.map((d) => ({
    role: 'user' as const,
    content: `Outcome of the async call ${d.callId} (${d.name}): ${renderValue('error' in d && d.error !== undefined ? { error: d.error } : (d.output ?? null))}`,
  }));
}
