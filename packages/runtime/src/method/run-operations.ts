import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { CallError } from '../errors.js';
import { isPlainObject } from '../json.js';
import { accessProblem } from './access.js';
import { describe, list, typeProblem } from './data-values.js';
import { isMissingOutput, localsOf, recordOutputs, responseOutputs } from './step-invocation.js';
import { MethodError } from './method-error.js';
import type { CompiledMethod } from '@berrypack/compiler/method-types';
import { createContext, type MethodHostOptions, type RunContext } from './run-context.js';
import { DONE_STATUSES, type InvocationRecord, type ItemRecord, type MethodRun, type RunRecord } from './run-record.js';
import { FileRunStore, fileRunStores } from './file-run-store.js';
import type { RunStore, RunStores } from './run-store.js';
import { reconcile, runStatus, viewOf } from './run-view.js';
import { aggregateItems, MethodRunner } from './step-scheduler.js';

export interface RunMethodOptions extends MethodHostOptions {
  /** The method's inputs; declared defaults fill the rest. A `file` input is a path to copy into the run. */
  inputs?: Record<string, unknown>;
  /** Default: `run-` and a UUID. */
  runId?: string;
  /** Host data saved in run.json as given (never configuration secrets). */
  meta?: Record<string, unknown>;
}

export interface ResumeMethodOptions extends MethodHostOptions {
  /** The waiting `ask` step the response answers; without it the run just continues (after an interruption). */
  step?: string;
  response?: unknown;
  /** The item of an `each` step. */
  item?: number;
}

export interface ConfirmStepOptions extends MethodHostOptions {
  step: string;
  /** `done`: the change happened, run only its check on what is there now; `redo`: run the step again. */
  decision: 'done' | 'redo';
  /**
   * With `done`: the step's outputs, as a person read them from the effect (the shape of an
   * `ask` response: one output's value, or an object of them all). Without them a step that
   * declares outputs waits for them (pending kind `missing-output`).
   */
  response?: unknown;
  /** One item of an `each` step; default: every uncertain item. */
  item?: number;
}

/** Starts a run of a compiled method and drives it until it completes, needs attention or fails. */
export async function runMethod(method: CompiledMethod, options: RunMethodOptions): Promise<MethodRun> {
  const stores = storesOf(options);
  const store = stores.open(options.runId ?? `run-${randomUUID()}`);
  if (await store.exists()) throw new MethodError('run-exists', `Unexpected run id \`${store.runId}\`, which already exists in ${store.location}`);
  const release = await store.lock();
  try {
    const now = new Date().toISOString();
    const record: RunRecord = {
      format: 'berrypack-method-run/1',
      runId: store.runId,
      method: { name: method.name, versionId: method.versionId },
      status: 'running',
      startedAt: now,
      updatedAt: now,
      inputs: {},
      environment: Object.keys(options.environment ?? {})
        .filter((n) => Object.hasOwn(method.environment, n))
        .sort(),
      ...(options.meta ? { meta: options.meta } : {}),
      steps: Object.fromEntries(Object.values(method.steps).map((s) => [s.key, { kind: s.kind, status: 'pending' as const, invocations: 0, judgements: 0 }])),
    };
    await store.writeMethod(method);
    const context = createContext(method, store, record, options);
    // Every declared connection needs a configuration, even one no step uses yet.
    const problem = prepareInputs(context, options.inputs) ?? (await accessProblem(context, Object.values(method.steps), Object.keys(method.environment)));
    if (problem) {
      record.error = problem;
      record.status = 'failed';
      record.endedAt = context.now();
      context.persist();
      await context.flush();
      return viewOf(method, record, false);
    }
    context.persist();
    return await proceed(stores, context, new MethodRunner(context));
  } finally {
    await release();
  }
}

/** Drives the run here, or (a store with workers) hands it to them and reports it running. */
async function proceed(stores: RunStores, context: RunContext, runner: MethodRunner): Promise<MethodRun> {
  const { method, record } = context;
  if (!stores.dispatch) {
    await runner.drive();
    await context.flush();
    return viewOf(method, record, false);
  }
  await context.flush();
  await stores.dispatch(record.runId);
  const settled = await context.store.readRecord();
  return viewOf(method, settled, settled.status === 'running');
}

function storesOf(options: MethodHostOptions): RunStores {
  return options.stores ?? fileRunStores(options.dataDir);
}

/** Continues a run: with `step` and `response`, answers a waiting `ask` first. */
export async function resumeMethod(runId: string, options: ResumeMethodOptions): Promise<MethodRun> {
  if ((options.step === undefined) !== (options.response === undefined)) {
    throw new MethodError('invalid-resume', 'Unexpected resume with only one of step and response, expected both (or neither, to continue an interrupted run)');
  }
  return withRun(runId, options, async (context, runner) => {
    const { method, record } = context;
    if (options.step === undefined) return;
    const step = stepOf(method, options.step);
    const rec = record.steps[step.key]!;
    const item = itemOf(step.key, rec.items, options.item, step.each !== undefined);
    const target: InvocationRecord = item === undefined ? rec : rec.items![item]!;
    if (target.status !== 'waiting') {
      const waiting = viewOf(method, record, false)
        .pending.filter((p) => p.kind === 'ask')
        .map((p) => (p.item === undefined ? p.step : `${p.step} --item ${p.item}`));
      throw new MethodError(
        'not-waiting',
        `Unexpected response to step \`${step.key}\`${item === undefined ? '' : ` item ${item}`}, which is ${target.status}, expected a step waiting for a response (waiting: ${waiting.length > 0 ? waiting.join(', ') : 'none'})`,
      );
    }
    await runner.answer(step, item, options.response);
  });
}

/**
 * Settles an `uncertain` step (MTH-18): `done` records the outputs a person gives and runs only
 * the check on what is there now; `redo` runs it again. A step confirmed done whose outputs
 * are not given yet waits for them (`missing-output`): confirm it again with them, or redo it.
 */
export async function confirmStep(runId: string, options: ConfirmStepOptions): Promise<MethodRun> {
  return withRun(runId, options, (context) => {
    const { method, record } = context;
    const step = stepOf(method, options.step);
    const rec = record.steps[step.key]!;
    const item = itemOf(step.key, rec.items, options.item, false);
    const unsettled = (inv: InvocationRecord): boolean => inv.status === 'uncertain' || isMissingOutput(inv);
    const targets = (rec.items ?? [rec]).filter((inv, i) => unsettled(inv) && (item === undefined || i === item));
    if (targets.length === 0) {
      throw new MethodError(
        'not-uncertain',
        `Unexpected confirmation of step \`${step.key}\`${item === undefined ? '' : ` item ${item}`}, which is ${rec.status}, expected an uncertain step (or one confirmed done that waits for its outputs)`,
      );
    }
    if (options.decision === 'redo' && options.response !== undefined)
      throw new MethodError('invalid-response', 'Unexpected outputs with --redo, expected them only with --done');
    // Validated before anything changes: a wrong response leaves the run as it was.
    const outputs = options.decision === 'done' && options.response !== undefined ? responseOutputs(step, options.response) : undefined;
    for (const inv of targets) {
      if (options.decision === 'redo') {
        (rec.previous ??= []).push(structuredClone(inv));
        for (const key of [
          'startedAt',
          'recordedAt',
          'endedAt',
          'outputs',
          'changes',
          'calls',
          'check',
          'error',
          'reason',
          'response',
          'request',
          'confirmed',
        ] as const)
          delete inv[key];
        inv.status = 'pending';
        continue;
      }
      if (inv.status === 'uncertain') confirmChanges(context, inv);
      inv.confirmed = 'done';
      const invocation = {
        step,
        record: rec,
        target: inv,
        locals: localsOf(step, rec, rec.items ? (inv as ItemRecord) : undefined),
        ...(rec.items ? { item: inv as ItemRecord } : {}),
      };
      if (outputs !== undefined || Object.keys(step.out).length === 0) {
        recordOutputs(context, invocation, outputs ?? {});
        inv.reason = outputs === undefined ? 'a person confirmed that the change happened' : 'a person confirmed that the change happened and gave its outputs';
        inv.status = 'checking';
        inv.recordedAt = context.now();
      } else {
        inv.status = 'waiting';
        inv.reason = `a person confirmed that the change happened, but its outputs (${list(Object.keys(step.out))}) were not given; confirm it again with them (--done --response-json VALUE), or --redo to run it again`;
      }
    }
    if (rec.items) aggregateItems(context, step, rec);
    context.persist();
  });
}

/** For a state, `after` is the file's current value (`before` was recorded at the start). */
function confirmChanges(context: RunContext, inv: InvocationRecord): void {
  for (const change of Object.values(inv.changes ?? {})) {
    if (!change.target.startsWith('state.')) continue;
    const name = change.target.slice('state.'.length);
    try {
      change.after = context.store.readState(name, context.method.state[name]!).value;
    } catch {
      delete change.after;
    }
  }
}

/** The run as its store holds it; an interrupted run is shown as a resume would find it. Writes nothing. */
export async function methodStatus(runId: string, options: { dataDir: string; stores?: RunStores }): Promise<MethodRun> {
  const store = storesOf(options).open(runId);
  const method = await store.readMethod();
  const record = await store.readRecord();
  const live = await store.heldElsewhere();
  if (!live && !options.stores?.dispatch) reconcile(method, record);
  return viewOf(method, record, live || (options.stores?.dispatch !== undefined && record.status === 'running'));
}

/** Everything a run in the file store recorded (run.json) and the compiled method it runs (method.json). */
export function readMethodRun(runId: string, options: { dataDir: string }): { method: CompiledMethod; record: RunRecord; live: boolean } {
  const store = new FileRunStore(path.resolve(options.dataDir), runId);
  const method = store.methodNow();
  const record = store.recordNow();
  const live = store.liveNow();
  if (!live) reconcile(method, record);
  return { method, record, live };
}

async function withRun(
  runId: string,
  options: MethodHostOptions,
  act: (context: RunContext, runner: MethodRunner) => Promise<void> | void,
): Promise<MethodRun> {
  const stores = storesOf(options);
  const store: RunStore = stores.open(runId);
  if (!(await store.exists())) throw new MethodError('unknown-run', `Unexpected run id \`${runId}\`: no run in ${store.location}`);
  const release = await store.lock();
  try {
    const method = await store.readMethod();
    const record = await store.readRecord();
    // With workers, a step a worker left is theirs to recover (its step lock tells whether the worker lives).
    if (!stores.dispatch) reconcile(method, record);
    const status = runStatus(record, false);
    if (status === 'completed' || status === 'failed')
      throw new MethodError(`run-${status}`, `Unexpected operation on run \`${runId}\`, which has ${status === 'completed' ? 'completed' : 'failed'}`);
    const context = createContext(method, store, record, options);
    // Access for what is left to do; a refusal is the caller's to fix and changes nothing.
    const problem = await accessProblem(
      context,
      Object.values(method.steps).filter((s) => !DONE_STATUSES.includes(record.steps[s.key]!.status)),
    );
    if (problem) throw new MethodError(problem.code, problem.message);
    const runner = new MethodRunner(context);
    await act(context, runner);
    return await proceed(stores, context, runner);
  } finally {
    await release();
  }
}

function stepOf(method: CompiledMethod, key: string): CompiledMethod['steps'][string] {
  if (!Object.hasOwn(method.steps, key))
    throw new MethodError('unknown-step', `Unexpected step \`${key}\`, expected one of ${list(Object.keys(method.steps))}`);
  return method.steps[key]!;
}

function itemOf(step: string, items: readonly unknown[] | undefined, item: number | undefined, required: boolean): number | undefined {
  if (item === undefined) {
    if (required)
      throw new MethodError('item-required', `Unexpected response to the \`each\` step \`${step}\` without an item, expected the item index (--item N)`);
    return undefined;
  }
  if (!items) throw new MethodError('unknown-item', `Unexpected item ${item} for step \`${step}\`, which has no items`);
  if (!Number.isSafeInteger(item) || item < 0 || item >= items.length)
    throw new MethodError('unknown-item', `Unexpected item ${item} for step \`${step}\`, expected 0 to ${items.length - 1}`);
  return item;
}

/** Inputs exactly as declared: defaults applied, unknown names refused, file inputs copied into the run. */
function prepareInputs(context: RunContext, given: Record<string, unknown> | undefined): CallError | undefined {
  const { method, record, store } = context;
  const wrong = (message: string): CallError => ({ code: 'invalid-inputs', message });
  if (given !== undefined && !isPlainObject(given))
    return wrong(`Unexpected inputs that are ${describe(given)}, expected a record of ${list(Object.keys(method.inputs))}`);
  for (const name of Object.keys(given ?? {})) {
    if (!Object.hasOwn(method.inputs, name)) return wrong(`Unexpected input \`${name}\`, expected ${list(Object.keys(method.inputs))}`);
  }
  for (const [name, declaration] of Object.entries(method.inputs)) {
    let value = given !== undefined && Object.hasOwn(given, name) ? given[name] : declaration.default;
    if (value === undefined) return wrong(`Unexpected run without input \`${name}\` (${declaration.description ?? declaration.type}), which has no default`);
    if (declaration.type === 'file') {
      if (typeof value !== 'string') return wrong(`Unexpected input \`${name}\` that is ${describe(value)}, expected the path of a file`);
      let bytes: Buffer;
      try {
        bytes = readFileSync(path.resolve(value));
      } catch (error) {
        return wrong(`Unexpected input \`${name}\`: cannot read ${value} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
      }
      value = store.saveFile(`inputs/${name}${path.extname(value)}`, bytes, declaration.format);
    }
    const problem = typeProblem(declaration, value, `input \`${name}\``);
    if (problem) return wrong(`Unexpected inputs: ${problem}`);
    record.inputs[name] = value;
  }
  return undefined;
}
