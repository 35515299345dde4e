import type { CallError } from '../errors.js';
import type { CompiledMethod, Reference } from '@berrypack/compiler/method-types';
import { resolveReference, type ResolveScope } from './resolve.js';
import type { RunContext } from './run-context.js';
import { DONE_STATUSES, type InvocationRecord, type MethodRun, type PendingEntry, type RunRecord, type RunStatus } from './run-record.js';

export const INTERRUPTED = 'the run was interrupted while this step ran and it recorded no outcome; it runs again when the run is resumed';
const INTERRUPTED_CHECK = "the run was interrupted while this step's check ran; its outcome is recorded and only the check runs again when the run is resumed";

/**
 * After a crash (run.json says `running` and no live process holds the run): a started step
 * without changes starts over, one with `changes` becomes `uncertain` and waits for a person
 * (MTH-18: uncertain writes are never retried blindly). A recorded outcome whose check did
 * not finish keeps `checking`: only the check runs again.
 */
export function reconcile(method: CompiledMethod, record: RunRecord): void {
  for (const [key, rec] of Object.entries(record.steps)) {
    const step = method.steps[key]!;
    const invocations: InvocationRecord[] = rec.items ?? [rec];
    for (const inv of invocations) {
      if (inv.status !== 'running') continue;
      // A tool call cut short by the crash: a write may have happened, a read did nothing lasting.
      for (const call of inv.calls ?? []) {
        if (call.status !== 'running') continue;
        call.status = call.write ? 'uncertain' : 'failed';
        call.error = { code: 'interrupted', message: 'the run was interrupted before the tool answered' };
      }
      if (step.changes.length > 0) {
        inv.status = 'uncertain';
        inv.reason = `step \`${key}\`${rec.items ? ` (item ${(inv as InvocationRecord & { index?: number }).index})` : ''} changes ${step.changes.map((c) => `\`${c.text}\``).join(', ')}; it was started at ${inv.startedAt ?? 'an unknown time'} and recorded no outcome, so the change may or may not have happened. Confirm with --done if it happened (its check runs on what is there now), or --redo to run it again`;
      } else {
        inv.status = 'pending';
        inv.reason = INTERRUPTED;
      }
    }
    if (rec.items && rec.status === 'running') {
      const has = (s: InvocationRecord['status']): boolean => rec.items!.some((i) => i.status === s);
      rec.status = has('failed') ? 'failed' : has('uncertain') ? 'uncertain' : has('waiting') ? 'waiting' : 'pending';
    }
  }
}

export function runStatus(record: RunRecord, live: boolean): RunStatus {
  const statuses = Object.values(record.steps).map((s) => s.status);
  if (record.error || statuses.some((s) => s === 'failed' || s === 'stopped')) return 'failed';
  if (statuses.some((s) => s === 'waiting' || s === 'uncertain')) return 'needs_attention';
  if (statuses.every((s) => DONE_STATUSES.includes(s))) return 'completed';
  // Work left and nobody doing it: the run was interrupted; resuming it continues.
  return live ? 'running' : 'needs_attention';
}

/** The final transition of an operation: status, result when completed, error when failed. */
export function settle(context: RunContext): void {
  const { method, record } = context;
  record.status = runStatus(record, false);
  if (record.status === 'completed') record.result = resultOf({ method, record, state: context.state });
  if (record.status === 'failed' && !record.error) record.error = firstProblem(method, record);
  if (record.status === 'completed' || record.status === 'failed') record.endedAt = context.now();
  context.persist();
}

export function viewOf(method: CompiledMethod, record: RunRecord, live: boolean): MethodRun {
  const status = live && record.status === 'running' ? 'running' : runStatus(record, live);
  const steps: MethodRun['steps'] = {};
  const pending: PendingEntry[] = [];
  for (const key of Object.keys(method.steps)) {
    const rec = record.steps[key]!;
    steps[key] = rec.status;
    const invocations: (InvocationRecord & { index?: number })[] = rec.items ?? [rec];
    for (const inv of invocations) {
      const item = inv.index === undefined ? {} : { item: inv.index };
      if (inv.status === 'waiting' && inv.confirmed === 'done') pending.push({ step: key, ...item, kind: 'missing-output', request: inv.reason ?? '' });
      else if (inv.status === 'waiting') pending.push({ step: key, ...item, kind: 'ask', request: inv.request ?? '' });
      else if (inv.status === 'uncertain') pending.push({ step: key, ...item, kind: 'uncertain', request: inv.reason ?? '' });
      else if (!live && inv.status === 'pending' && inv.reason === INTERRUPTED) pending.push({ step: key, ...item, kind: 'interrupted', request: INTERRUPTED });
      else if (!live && inv.status === 'checking') pending.push({ step: key, ...item, kind: 'interrupted', request: INTERRUPTED_CHECK });
    }
  }
  const run: MethodRun = { runId: record.runId, status, steps, pending };
  if (status === 'completed') run.result = record.result ?? null;
  if (status === 'failed') run.error = record.error ?? firstProblem(method, record);
  return run;
}

/** MTH-15: the result reference(s); an output of a skipped step has no value and is left out (a single one is null). */
function resultOf(scope: ResolveScope): unknown {
  const { result } = scope.method;
  const value = (ref: Reference): { ok: boolean; value?: unknown } => {
    try {
      return resolveReference(scope, ref);
    } catch {
      // A state that cannot be read at the end has no value to deliver.
      return { ok: false };
    }
  };
  if ('single' in result) {
    const resolved = value(result.single);
    return resolved.ok ? resolved.value : null;
  }
  const values: Record<string, unknown> = {};
  for (const [name, ref] of Object.entries(result.map)) {
    const resolved = value(ref);
    if (resolved.ok) values[name] = resolved.value;
  }
  return values;
}

function firstProblem(method: CompiledMethod, record: RunRecord): CallError {
  for (const key of method.order) {
    const rec = record.steps[key]!;
    if (rec.status === 'failed')
      return { code: rec.error?.code ?? 'step-failed', message: `Step \`${key}\` failed: ${rec.error?.message ?? 'no reason recorded'}` };
    if (rec.status === 'stopped') return { code: 'stopped', message: `Step \`${key}\` stopped: ${rec.reason ?? 'a value it reads is missing'}` };
  }
  return { code: 'failed', message: 'The run failed' };
}
