import { failure, toCallError } from '../errors.js';
import { isPlainObject } from '../json.js';
import { runCheck } from './checks.js';
import { isFileContent, list, recordProblem, typeProblem } from './data-values.js';
import type { StepChange, StepRequest } from './step-executors.js';
import { MethodError } from './method-error.js';
import { elementType, type CompiledStep, type DataType } from '@berrypack/compiler/method-types';
import { substitute } from './resolve.js';
import { connectionsOf } from './access.js';
import type { RunContext } from './run-context.js';
import type { ChangeRecord, InvocationRecord, ItemRecord, StepRecord } from './run-record.js';
import { stepToolbox, type StepToolbox } from './step-tools.js';

/** One invocation of a step: the step itself, or one item of an `each` step. */
export interface Invocation {
  step: CompiledStep;
  record: StepRecord;
  /** The record this invocation writes: the step's own, or its item's. */
  target: InvocationRecord;
  item?: ItemRecord;
  /** Resolved locals: `in` aliases (connections as `{connection, type}`) and the `each` alias. */
  locals: Record<string, unknown>;
}

export function localsOf(step: CompiledStep, record: StepRecord, item: ItemRecord | undefined): Record<string, unknown> {
  const locals = { ...(record.inputs ?? {}) };
  if (step.each && item) locals[step.each.alias] = item.item;
  return locals;
}

/** A `do` step: started (durably) before the executor runs, outcome recorded before the check. */
export async function invokeDo(context: RunContext, invocation: Invocation): Promise<void> {
  const { step, record, target } = invocation;
  const instructions = substitute(step.text, templateLocals(step, invocation.locals));
  const changes = stepChanges(context, step);
  startInvocation(context, target);
  if (changes.length > 0) target.changes = Object.fromEntries(changes.map((c) => [c.target, changeRecord(context, c)]));
  const sequence = record.invocations++;
  const toolbox = stepToolbox(context, step, target, `${step.key}${invocation.item ? `#${invocation.item.index}` : ''}:${sequence}`);
  // Durable "started": from here on, a crash leaves a step with changes `uncertain`.
  context.persist();
  await context.flush();
  try {
    if (!context.executor) throw failure('no-executor', `Unexpected \`do\` step \`${step.key}\` without an executor, expected one in the run's options`);
    const environment: Record<string, unknown> = {};
    for (const name of connectionsOf(step)) environment[name] = context.environment[name];
    const request: StepRequest = {
      ...requestBase(context, invocation),
      instructions,
      inputs: invocation.locals,
      outputs: step.out,
      changes,
      environment,
      sequence,
      dataDir: context.store.dataDir,
      tools: toolbox.tools,
      callTool: (name, input) => toolbox.call(name, input),
      decide: () => {
        record.decisions = (record.decisions ?? 0) + 1;
        return record.decisions - 1;
      },
    };
    const result = await context.executor.run(request);
    if (toolbox.uncertain()) return finishUncertain(context, invocation, toolbox);
    if (!isPlainObject(result)) throw failure('invalid-output', `Unexpected executor result for step \`${step.key}\`, expected {output, changes?}`);
    const output = (result.output ?? {}) as Record<string, unknown>;
    const problem = recordProblem(step.out, output, `the output of step \`${step.key}\``, isFileContent);
    if (problem) throw failure('invalid-output', `Unexpected output: ${problem}`);
    const replacements = validChanges(context, step, (result.changes ?? {}) as Record<string, unknown>);
    target.outputs = saveFiles(context, invocation, output);
    for (const [targetName, value] of Object.entries(replacements)) {
      const change = target.changes![targetName]!;
      if (targetName.startsWith('state.')) {
        change.after = value;
        change.sha256 = context.store.writeState(context.method.state[targetName.slice('state.'.length)]!, value);
      } else if (value !== undefined) change.after = value;
    }
    for (const change of Object.values(target.changes ?? {})) {
      if (!change.target.startsWith('environment.')) continue;
      const writes = (target.calls ?? []).filter((c) => c.write && c.status === 'ok' && `environment.${c.connection}` === change.target);
      if (writes.length > 0) change.writes = writes.map((c) => ({ tool: c.tool, input: c.input, output: c.output }));
    }
  } catch (error) {
    if (toolbox.uncertain()) return finishUncertain(context, invocation, toolbox);
    finishInvocation(context, target, 'failed', { error: toCallError(error) });
    return;
  }
  recordOutcome(context, target);
  await checkInvocation(context, invocation);
}

/**
 * MTH-18: a write whose outcome is unknown leaves the invocation `uncertain`, as a crash would:
 * nothing retries it blindly; a person confirms it (with the outputs) or has it redone.
 */
function finishUncertain(context: RunContext, invocation: Invocation, toolbox: StepToolbox): void {
  const call = toolbox.uncertain()!;
  finishInvocation(context, invocation.target, 'uncertain', {
    reason: `step \`${invocation.step.key}\`${invocation.item ? ` (item ${invocation.item.index})` : ''} called \`${call.tool}\`, which writes to connection \`${call.connection}\`, and it failed (${call.error?.message ?? 'no answer'}), so the change may or may not have happened. Confirm with --done if it happened (with the step's outputs), or --redo to run it again`,
  });
}

/** An `ask`: the request saved, the run left waiting; a human callback may answer at once. */
export async function invokeAsk(context: RunContext, invocation: Invocation): Promise<void> {
  const { step, target } = invocation;
  const request = substitute(step.text, templateLocals(step, invocation.locals));
  startInvocation(context, target);
  target.status = 'waiting';
  target.request = request;
  context.persist();
  if (!context.human) return;
  const answer = await context.human({
    ...requestBase(context, invocation),
    request,
    inputs: invocation.locals,
    outputs: step.out,
  });
  if (answer === undefined) return;
  try {
    await answerAsk(context, invocation, answer.response);
  } catch (error) {
    finishInvocation(context, target, 'failed', { error: toCallError(error) });
  }
}

/** A person's response to a waiting `ask`: validated (MethodError, nothing changed), recorded, then checked. */
export async function answerAsk(context: RunContext, invocation: Invocation, response: unknown): Promise<void> {
  const outputs = responseOutputs(invocation.step, response);
  invocation.target.response = response;
  recordOutputs(context, invocation, outputs);
  recordOutcome(context, invocation.target);
  await checkInvocation(context, invocation);
}

/** Validated outputs recorded (files saved under the run folder) for an invocation. */
export function recordOutputs(context: RunContext, invocation: Invocation, outputs: Record<string, unknown>): void {
  invocation.target.outputs = saveFiles(context, invocation, outputs);
}

/** A step a person confirmed done whose outputs nobody has given yet. */
export function isMissingOutput(target: InvocationRecord): boolean {
  return target.status === 'waiting' && target.confirmed === 'done';
}

/**
 * An ask with one output is answered by that output's value (text, or JSON for other types);
 * with several, by an object of them all; with none, by any acknowledgement.
 */
export function responseOutputs(step: CompiledStep, response: unknown): Record<string, unknown> {
  const names = Object.keys(step.out);
  if (names.length === 0) return {};
  if (names.length === 1) {
    const problem = typeProblem(step.out[names[0]!]!, response, `the response to \`${step.key}\` (\`${names[0]}\`)`, isFileContent);
    if (problem)
      throw new MethodError(
        'invalid-response',
        `Unexpected response: ${problem}${typeof response === 'string' && step.out[names[0]!]!.type !== 'text' ? ' (give JSON with --response-json)' : ''}`,
      );
    return { [names[0]!]: response };
  }
  const problem = recordProblem(step.out, response, `the response to \`${step.key}\``, isFileContent);
  if (problem) throw new MethodError('invalid-response', `Unexpected response: ${problem} (expected an object of ${list(names)})`);
  return response as Record<string, unknown>;
}

/** The check of an invocation whose outcome is recorded (or was confirmed done by a person). */
export async function checkInvocation(context: RunContext, invocation: Invocation): Promise<void> {
  const { step, record, target } = invocation;
  if (!step.check) {
    finishInvocation(context, target, 'unchecked');
    return;
  }
  const outputs = target.outputs ?? {};
  const sequence = record.judgements;
  if (step.check.kind === 'english') record.judgements++;
  const check = await runCheck(step.check, {
    locals: { ...invocation.locals, ...outputs },
    dataDir: context.store.dataDir,
    judge: context.judge,
    now: context.now,
    evidence: {
      runId: context.record.runId,
      step: step.key,
      ...(invocation.item ? { item: { index: invocation.item.index, value: invocation.item.item } } : {}),
      inputs: invocation.locals,
      outputs,
      changes: target.changes ?? {},
      sequence,
      dataDir: context.store.dataDir,
    },
  });
  const unobserved =
    check.status === 'passed' ? Object.values(target.changes ?? {}).find((c) => c.target.startsWith('environment.') && !hasEvidence(target, c)) : undefined;
  if (unobserved) {
    // MTH-17/18: "External changes need an independent check and observed evidence."
    check.status = 'ambiguous';
    check.reason = `${check.reason ? `${check.reason}; but ` : ''}there is no observed evidence of the change to \`${unobserved.target}\` (no successful write through its tools, no evidence returned, no confirmation by a person)`;
  }
  target.check = check;
  if (check.status === 'failed')
    finishInvocation(context, target, 'failed', {
      error: { code: 'check-failed', message: `Unexpected result: the check of step \`${step.key}\` failed${check.reason ? `: ${check.reason}` : ''}` },
    });
  else finishInvocation(context, target, check.status);
}

function hasEvidence(target: InvocationRecord, change: ChangeRecord): boolean {
  return change.after !== undefined || (change.writes?.length ?? 0) > 0 || target.confirmed === 'done';
}

function startInvocation(context: RunContext, target: InvocationRecord): void {
  for (const key of ['recordedAt', 'endedAt', 'request', 'response', 'outputs', 'changes', 'calls', 'check', 'error', 'reason', 'confirmed'] as const)
    delete target[key];
  target.status = 'running';
  target.startedAt = context.now();
}

function recordOutcome(context: RunContext, target: InvocationRecord): void {
  target.status = 'checking';
  target.recordedAt = context.now();
  // Outputs, file hashes and state writes are on disk before any check sees them.
  context.persist();
}

export function finishInvocation(
  context: RunContext,
  target: InvocationRecord,
  status: InvocationRecord['status'],
  extra: Partial<InvocationRecord> = {},
): void {
  Object.assign(target, extra);
  target.status = status;
  target.endedAt = context.now();
  context.persist();
}

function templateLocals(step: CompiledStep, locals: Record<string, unknown>): Record<string, unknown> {
  const template = { ...locals };
  for (const [alias, ref] of Object.entries(step.in)) if (ref.root === 'environment') template[alias] = ref.name;
  return template;
}

function stepChanges(context: RunContext, step: CompiledStep): StepChange[] {
  return step.changes.map((ref): StepChange => {
    if (ref.root === 'environment') return { target: ref.text, kind: 'environment', connection: ref.name };
    const declaration = context.method.state[ref.name]!;
    return { target: ref.text, kind: 'state', type: declaration, before: context.state(ref.name) };
  });
}

function changeRecord(context: RunContext, change: StepChange): ChangeRecord {
  if (change.kind === 'environment') return { target: change.target };
  return { target: change.target, file: context.method.state[change.target.slice('state.'.length)]!.file, before: change.before };
}

/** MTH-13: a complete replacement for every changed state, valid against its type; evidence for connections. */
function validChanges(context: RunContext, step: CompiledStep, given: Record<string, unknown>): Record<string, unknown> {
  if (!isPlainObject(given)) throw failure('invalid-change', `Unexpected changes for step \`${step.key}\`, expected an object by target`);
  const declared = step.changes.map((c) => c.text);
  for (const key of Object.keys(given)) {
    if (!declared.includes(key)) throw failure('invalid-change', `Unexpected change \`${key}\` from step \`${step.key}\`, which declares ${list(declared)}`);
  }
  const replacements: Record<string, unknown> = {};
  for (const ref of step.changes) {
    const value = Object.hasOwn(given, ref.text) ? given[ref.text] : undefined;
    if (ref.root === 'state') {
      if (value === undefined)
        throw failure('invalid-change', `Unexpected result of step \`${step.key}\` without \`${ref.text}\`, expected its complete replacement value`);
      const problem = typeProblem(context.method.state[ref.name]!, value, `the replacement of \`${ref.text}\``);
      if (problem) throw failure('invalid-change', `Unexpected change: ${problem}`);
    }
    replacements[ref.text] = value;
  }
  return replacements;
}

/** File contents become files under the run folder, replaced by `{path, sha256, size, format?}`. */
function saveFiles(context: RunContext, invocation: Invocation, outputs: Record<string, unknown>): Record<string, unknown> {
  const attempt = 1 + (invocation.record.previous ?? []).filter((p) => (p as ItemRecord).index === invocation.item?.index).length;
  const folder = [invocation.step.key, ...(invocation.item ? [String(invocation.item.index)] : []), ...(attempt > 1 ? [`attempt-${attempt}`] : [])].join('/');
  const save = (type: DataType, value: unknown, name: string): unknown => {
    if (type.type === 'file') {
      const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : Buffer.from((value as { base64: string }).base64, 'base64');
      return context.store.saveFile(`${folder}/${name}${extension(type.format)}`, bytes, type.format);
    }
    if (type.type === 'record')
      return Object.fromEntries(Object.entries(type.fields).map(([k, t]) => [k, save(t, (value as Record<string, unknown>)[k], `${name}.${k}`)]));
    if (type.type === 'list') return (value as unknown[]).map((v, i) => save(elementType(type), v, `${name}.${i}`));
    return value;
  };
  return Object.fromEntries(Object.entries(outputs).map(([name, value]) => [name, save(invocation.step.out[name]!, value, name)]));
}

const EXTENSIONS: Readonly<Record<string, string>> = { markdown: '.md', text: '.txt', plain: '.txt', javascript: '.js', typescript: '.ts', yml: '.yaml' };

function extension(format: string | undefined): string {
  if (format === undefined) return '';
  const known = Object.hasOwn(EXTENSIONS, format) ? EXTENSIONS[format] : undefined;
  return known ?? (/^[a-z0-9]{1,10}$/.test(format) ? `.${format}` : '');
}

/** What a `do` step's executor and an `ask`'s human are both told first: the run, the step, its title and item. */
function requestBase(context: RunContext, invocation: Invocation): Pick<StepRequest, 'runId' | 'step' | 'title' | 'item'> {
  const { step, item } = invocation;
  return {
    runId: context.record.runId,
    step: step.key,
    ...(step.title === undefined ? {} : { title: step.title }),
    ...(item ? { item: { index: item.index, value: item.item } } : {}),
  };
}
