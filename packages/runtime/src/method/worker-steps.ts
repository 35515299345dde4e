import { createContext, type MethodHostOptions } from './run-context.js';
import type { RunStore } from './run-store.js';
import { settle } from './run-view.js';
import { MethodRunner } from './step-scheduler.js';
import type { RunRecord, StepStatus } from './run-record.js';

/**
 * What a worker (`berrypack method worker`, docs/scale.md) does with one step of a run whose
 * work is queued: the step exactly as `runMethod` would run it, nothing else, its record
 * durable in the store when this resolves. Deciding which step may run (dependencies, held
 * targets, exactly once) is the queue's: it hands a worker a step only when it may start.
 */
export async function runQueuedStep(store: RunStore, key: string, options: MethodHostOptions, read?: RunRecord): Promise<StepStatus> {
  const method = await store.readMethod();
  // A worker that just read the record (to set its host up from the run's meta) passes it, so
  // the store is not read and mirrored a second time for the same step.
  const record = read ?? (await store.readRecord());
  const context = createContext(method, store, record, options);
  await new MethodRunner(context).runOne(key);
  await context.flush();
  return record.steps[key]!.status;
}

/** The final transition of a queued run once nothing is left to start: status, result or error. */
export async function settleQueuedRun(store: RunStore, options: MethodHostOptions): Promise<RunRecord> {
  const method = await store.readMethod();
  const record = await store.readRecord();
  const context = createContext(method, store, record, options);
  settle(context);
  await context.flush();
  return record;
}
