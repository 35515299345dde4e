import { failure, toCallError } from '../errors.js';
import { answerAsk, checkInvocation, finishInvocation, invokeAsk, invokeDo, localsOf, type Invocation } from './step-invocation.js';
import type { CompiledStep } from '@berrypack/compiler/method-types';
import { MissingValue, resolveReference, type Resolution, type ResolveScope } from './resolve.js';
import { targetsOf } from './access.js';
import type { RunContext } from './run-context.js';
import { DONE_STATUSES, type InvocationRecord, type StepRecord } from './run-record.js';
import { settle } from './run-view.js';

/** Items of one `each` step in flight at once, when they touch no shared target. */
const ITEM_CONCURRENCY = 8;

/**
 * MTH-18 scheduling: a step starts when every step it depends on is done and no running step
 * holds one of its state or connection targets (read or changed); independent steps run
 * concurrently. After a step fails or stops (a missing reference, the output of a skipped
 * step it does not share the condition of), nothing new starts, running steps finish, and the
 * run fails: a failed run is final and cannot deliver its result, so starting more work (and
 * more changes to state or connections) in it would only make effects nobody can use.
 */
export class MethodRunner {
  private halted = false;

  constructor(private readonly context: RunContext) {}

  async drive(): Promise<void> {
    const { method, record } = this.context;
    const running = new Map<string, Promise<void>>();
    const held = new Set<string>();
    record.status = 'running';
    delete record.endedAt;
    this.context.persist();
    for (;;) {
      if (!this.halted) {
        for (const key of method.order) {
          if (this.halted) break;
          const step = method.steps[key]!;
          const rec = record.steps[key]!;
          if (running.has(key) || (rec.status !== 'pending' && rec.status !== 'checking')) continue;
          if (!step.dependsOn.every((d) => DONE_STATUSES.includes(record.steps[d]!.status))) continue;
          const targets = targetsOf(step);
          if (targets.some((t) => held.has(t))) continue;
          for (const t of targets) held.add(t);
          const task = this.runStep(step, rec)
            .catch((error: unknown) => this.abandon(rec, error))
            .finally(() => {
              for (const t of targets) held.delete(t);
              running.delete(key);
            });
          running.set(key, task);
        }
      }
      if (running.size === 0) break;
      await Promise.race(running.values());
    }
    settle(this.context);
  }

  /** Applies a person's response to a waiting `ask` (validated first: a MethodError changes nothing). */
  async answer(step: CompiledStep, item: number | undefined, response: unknown): Promise<void> {
    const rec = this.context.record.steps[step.key]!;
    const target = item === undefined ? rec : rec.items![item]!;
    const invocation: Invocation = {
      step,
      record: rec,
      target,
      locals: localsOf(step, rec, item === undefined ? undefined : rec.items![item]),
      ...(item === undefined ? {} : { item: rec.items![item]! }),
    };
    await answerAsk(this.context, invocation, response);
    if (step.each) aggregateItems(this.context, step, rec);
    this.haltOn(rec);
  }

  private async runStep(step: CompiledStep, rec: StepRecord): Promise<void> {
    if (step.each) return this.runEach(step, rec);
    const invocation: Invocation = { step, record: rec, target: rec, locals: rec.inputs ?? {} };
    if (rec.status === 'checking') {
      await checkInvocation(this.context, invocation);
    } else {
      const locals = this.gate(step, rec);
      if (!locals) return this.haltOn(rec);
      rec.inputs = locals.values;
      invocation.locals = locals.values;
      await this.invoke(invocation);
    }
    this.haltOn(rec);
  }

  private async runEach(step: CompiledStep, rec: StepRecord): Promise<void> {
    if (!rec.items) {
      const locals = this.gate(step, rec);
      if (!locals) return this.haltOn(rec);
      if (!Array.isArray(locals.list))
        throw failure('invalid-input', `Unexpected \`each\` of step \`${step.key}\` over ${typeof locals.list}, expected a list`);
      rec.inputs = locals.values;
      rec.items = locals.list.map((item, index) => ({ index, item, status: 'pending' as const }));
      rec.startedAt = this.context.now();
    }
    rec.status = 'running';
    this.context.persist();
    const todo = rec.items.filter((i) => i.status === 'pending' || i.status === 'checking');
    // Items of a step that touches a state or connection share that target: one at a time.
    const width = targetsOf(step).length > 0 ? 1 : ITEM_CONCURRENCY;
    let next = 0;
    const lane = async (): Promise<void> => {
      while (next < todo.length && !this.halted) {
        const item = todo[next++]!;
        const invocation: Invocation = { step, record: rec, target: item, item, locals: localsOf(step, rec, item) };
        if (item.status === 'checking') await checkInvocation(this.context, invocation);
        else await this.invoke(invocation);
        this.haltOn(item);
      }
    };
    await Promise.all(Array.from({ length: Math.min(width, todo.length) }, lane));
    aggregateItems(this.context, step, rec);
    this.haltOn(rec);
  }

  private async invoke(invocation: Invocation): Promise<void> {
    try {
      if (invocation.step.kind === 'do') await invokeDo(this.context, invocation);
      else await invokeAsk(this.context, invocation);
    } catch (error) {
      if (error instanceof MissingValue) finishInvocation(this.context, invocation.target, 'stopped', { reason: error.message });
      else finishInvocation(this.context, invocation.target, 'failed', { error: toCallError(error) });
    }
  }

  /**
   * MTH-12: `when` false skips; reading the output of a skipped step skips too when this step
   * carries the producer's condition, and stops it otherwise. Returns the resolved locals.
   */
  private gate(step: CompiledStep, rec: StepRecord): { values: Record<string, unknown>; list?: unknown } | undefined {
    const scope: ResolveScope = { method: this.context.method, record: this.context.record, state: this.context.state };
    const absent = (r: Extract<Resolution, { ok: false }>): undefined => {
      const producerWhen = r.producer === undefined ? undefined : this.context.method.steps[r.producer]?.when?.text;
      if (r.kind === 'skipped' && step.when && producerWhen === step.when.text) {
        finishInvocation(this.context, rec, 'skipped', { reason: `it shares \`when: ${step.when.text}\` with the skipped step \`${r.producer}\`` });
      } else {
        const hint = r.kind === 'skipped' && producerWhen !== undefined ? `; add \`when: ${producerWhen}\` to skip it too` : '';
        finishInvocation(this.context, rec, 'stopped', { reason: `${r.reason}${hint}` });
      }
      return undefined;
    };
    if (step.when) {
      const condition = resolveReference(scope, step.when);
      if (!condition.ok) return absent(condition);
      if (condition.value !== true) {
        finishInvocation(this.context, rec, 'skipped', { reason: `\`when: ${step.when.text}\` is ${JSON.stringify(condition.value)}` });
        return undefined;
      }
    }
    const values: Record<string, unknown> = {};
    for (const [alias, ref] of Object.entries(step.in)) {
      const resolved = resolveReference(scope, ref);
      if (!resolved.ok) return absent(resolved);
      values[alias] = resolved.value;
    }
    if (!step.each) return { values };
    const list = resolveReference(scope, step.each.ref);
    if (!list.ok) return absent(list);
    return { values, list: list.value };
  }

  private haltOn(target: InvocationRecord): void {
    if (target.status === 'failed' || target.status === 'stopped') this.halted = true;
  }

  private abandon(rec: StepRecord, error: unknown): void {
    this.halted = true;
    if (error instanceof MissingValue) finishInvocation(this.context, rec, 'stopped', { reason: error.message });
    else finishInvocation(this.context, rec, 'failed', { error: toCallError(error) });
  }
}

/** An `each` step's status from its items; when all are done, each output becomes a list (MTH-11). */
export function aggregateItems(context: RunContext, step: CompiledStep, rec: StepRecord): void {
  const items = rec.items ?? [];
  const has = (status: InvocationRecord['status']): boolean => items.some((i) => i.status === status);
  const first = (['failed', 'stopped', 'uncertain', 'waiting'] as const).find(has);
  if (first !== undefined) {
    rec.status = first;
    const culprit = items.find((i) => i.status === first)!;
    if (first === 'failed' && culprit.error) rec.error = { code: culprit.error.code, message: `Item ${culprit.index}: ${culprit.error.message}` };
    if (first === 'stopped' && culprit.reason) rec.reason = `item ${culprit.index}: ${culprit.reason}`;
  } else if (has('pending') || has('running') || has('checking')) {
    rec.status = 'pending';
  } else {
    rec.status = has('ambiguous') ? 'ambiguous' : step.check && items.length > 0 && items.every((i) => i.status === 'passed') ? 'passed' : 'unchecked';
    if (items.every((i) => i.outputs !== undefined)) {
      rec.outputs = Object.fromEntries(Object.keys(step.out).map((name) => [name, items.map((i) => i.outputs![name])]));
    } else delete rec.outputs;
    rec.endedAt = context.now();
  }
  context.persist();
}
