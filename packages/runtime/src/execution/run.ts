import type { RoutineRef } from '../bundle/routine-table.js';
import { toCallError } from '../errors.js';
import type { ExecutionEntry } from '../journal/entries.js';
import { Allowance } from './allowance.js';
import { runChain } from './chain.js';
import type { Execution, Outcome } from './execution.js';

export interface RunRequest {
  routine: RoutineRef;
  target: { agent: string } | { export: string };
  input: unknown;
  meta?: Record<string, unknown>;
  /** The execution a continuation continues. */
  continues?: string;
}

/**
 * Runs an execution to its outcome: records its start, runs the entry's chain under the
 * runtime's allowance, waits for async calls, records the end. Never throws: a failure is a
 * failed outcome.
 */
export async function runExecution(exec: Execution, request: RunRequest): Promise<Outcome> {
  const { routine, input } = request;
  const { limits, now } = exec.services;
  const header: ExecutionEntry = {
    type: 'execution',
    executionId: exec.id,
    bundle: exec.state.bundle.id,
    target: request.target,
    routine: routine.qualified,
    grants: [...exec.state.grants].sort(),
    env: exec.state.header.env,
    models: exec.state.header.models,
    epochMs: exec.epochMs,
    at: exec.at(),
  };
  if (input !== undefined) header.input = input;
  if (request.meta !== undefined) header.meta = request.meta;
  if (request.continues !== undefined) header.continues = request.continues;
  exec.append(header);
  let result: { output: unknown } | { error: ReturnType<typeof toCallError> };
  let root;
  try {
    root = exec.admit(null, 'entry', routine.qualified, input, { routine });
    const allowance = new Allowance(limits.calls, limits.steps, limits.concurrency, now() + limits.timeoutMs, now);
    const output = await runChain({
      exec,
      head: root,
      routine,
      input,
      allowance,
      optional: exec.state.grants,
      parentFrame: null,
      output: routine.source.port?.output === true ? { call: root } : undefined,
    });
    await Promise.allSettled([...exec.background]);
    if (exec.fatal) throw exec.fatal;
    exec.settle(root, { output });
    result = { output };
  } catch (error) {
    await Promise.allSettled([...exec.background]);
    const failure = toCallError(exec.fatal ?? error);
    if (root) exec.settle(root, { error: failure });
    result = { error: failure };
  }
  exec.input?.stop();
  exec.status = 'error' in result ? 'failed' : 'completed';
  exec.append({
    type: 'end',
    executionId: exec.id,
    at: exec.at(),
    ...('error' in result ? { status: 'failed' as const, error: result.error } : { status: 'completed' as const, output: result.output }),
  });
  return exec.outcome(result);
}
