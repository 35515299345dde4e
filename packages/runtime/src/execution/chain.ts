import type { Target } from '../bundle/content.js';
import { resolveTarget, type RoutineRef } from '../bundle/routine-table.js';
import { failure } from '../errors.js';
import { byteLength, jsonText } from '../json.js';
import { schemaRefValue } from '../validate/address.js';
import { formatErrors } from '../validate/validator.js';
import { Semaphore, withinDeadline, type Allowance } from './allowance.js';
import { LazyAbort } from './lazy-abort.js';
import type { CallState } from './call-state.js';
import { runCode } from './code-step.js';
import { callExternal } from './external.js';
import { evaluateExpression, readPath, selectCase } from './expression.js';
import { isConversation } from './conversation.js';
import { runModel } from './model-step.js';
import { narrow, type Frame, type OutputPath, type Scope } from './scope.js';
import type { Execution } from './execution.js';

export interface ChainStart {
  exec: Execution;
  /** The call that waits for the chain: the entry or a tool call. */
  head: CallState;
  routine: RoutineRef;
  input: unknown;
  allowance: Allowance;
  optional: ReadonlySet<string>;
  parentFrame: Frame | null;
  output: OutputPath;
}

/**
 * Runs a routine and its whole `next` chain (RUN-4, RUN-7, RUN-9) and returns the last
 * position's output.
 *
 * This is where the execution cycle starts: chain → code or model step (`code-step.ts`,
 * `model-step.ts`) → `call-tool.ts` → chain again for the called routine. The modules import
 * each other on purpose: it is the interpreter's recursion (a tool call runs a routine the way
 * the entry does, under a child allowance), not a layering slip to untangle. Each transition is a `next` call recorded under the head (a transition
 * adds no caller level), passes its explicit input, and takes a step of the allowance, which
 * bounds loops. The caller settles the head.
 */
export async function runChain(start: ChainStart): Promise<unknown> {
  const { exec, head } = start;
  let call = head;
  let routine = start.routine;
  let input = start.input;
  // The head publishes through the caller's port; a successor only when its transition says `output: true`.
  let output = start.output;
  for (;;) {
    let local: unknown;
    try {
      local = await runPosition(start, call, routine, input, output);
    } catch (error) {
      if (call !== head) exec.settle(call, { error });
      throw error;
    }
    const step = nextStep(routine, input, local);
    if (call !== head) exec.settle(call, { output: local });
    if (step === undefined) return local;
    start.allowance.takeStep(`\`next\` from \`${routine.qualified}\``);
    const resolved = resolveTarget(routine.pkg, step.target);
    if (resolved === undefined || resolved.kind === 'opaque')
      throw failure('invalid-bundle', `Unexpected \`next\` target of \`${routine.qualified}\` that the bundle cannot resolve`);
    if (resolved.kind === 'external') {
      start.allowance.takeCall(`\`next\` ${resolved.name}`);
      const external = exec.admit(head, 'next', resolved.name, step.input);
      try {
        const output = await callExternal(exec, external, resolved.name, step.input, start.allowance);
        exec.settle(external, { output });
        return output;
      } catch (error) {
        exec.settle(external, { error });
        throw error;
      }
    }
    start.allowance.takeCall(`\`next\` ${resolved.routine.qualified}`);
    output = routine.source.next?.output === true ? start.output : undefined;
    call = exec.admit(head, 'next', resolved.routine.qualified, step.input, { routine: resolved.routine });
    routine = resolved.routine;
    input = step.input;
  }
}

/** Where a position continues: undefined ends the chain with its output. */
function nextStep(routine: RoutineRef, input: unknown, output: unknown): { target: Target; input: unknown } | undefined {
  const next = routine.source.next;
  if (next === undefined) return undefined;
  const where = `the \`next\` of \`${routine.qualified}\``;
  const data = { input, output };
  let target: Target | null;
  if ('to' in next) target = next.to;
  else target = selectCase(next.cases, readPath(next.select, data, where), next.select, where);
  if (target === null) return undefined;
  // RUN-9: the default successor input is the local output; next.input replaces it.
  const successorInput = next.input === undefined ? output : evaluateExpression(next.input, data, routine.pkg, `\`next.input\` of \`${routine.qualified}\``);
  return { target, input: successorInput };
}

async function runPosition(start: ChainStart, call: CallState, routine: RoutineRef, input: unknown, port: OutputPath): Promise<unknown> {
  const { exec } = start;
  const source = routine.source;
  const refValue = schemaRefValue(routine);
  if (input !== undefined) jsonText(input, `the input of \`${routine.qualified}\``);
  if (source.input !== undefined) {
    if (input === undefined)
      throw failure('invalid-input', `Missing input for \`${routine.qualified}\`, expected a JSON value (its input schema requires one)`);
    const check = exec.services.validator.validate(source.input, input, refValue);
    if (!check.ok) throw failure('invalid-input', `Unexpected input for \`${routine.qualified}\`: ${formatErrors(check.errors)}`);
  }
  const scope: Scope = {
    exec,
    call,
    routine,
    input,
    allowance: start.allowance,
    optional: narrow(start.optional, source.permissions),
    parentFrame: start.parentFrame,
    semaphore: new Semaphore(start.allowance.concurrency),
    pending: new Set(),
    output: source.port?.output === true ? port : undefined,
  };
  const work = async (abort: LazyAbort): Promise<unknown> => {
    if (source.kind === 'code') return runCode(scope);
    if (source.kind === 'model') return runModel(scope, abort.signal);
    throw failure('not-callable', `Unexpected instructions \`${routine.qualified}\` as a call target, expected a model or code routine`);
  };
  let output: unknown;
  try {
    // A conversation bounds each turn by the deadline, not its waiting for input (conversation.ts).
    output = isConversation(scope) ? await work(new LazyAbort()) : await withinDeadline(start.allowance, `\`${routine.qualified}\``, work);
  } finally {
    // RUN-10: accepted siblings are observed before the caller finishes, whatever happened.
    await Promise.allSettled([...scope.pending]);
  }
  const text = jsonText(output, `the output of \`${routine.qualified}\``);
  if (byteLength(text) > exec.services.limits.outputBytes) {
    throw failure(
      'limit-output',
      `Unexpected output of \`${routine.qualified}\` larger than ${exec.services.limits.outputBytes} bytes, expected a smaller value`,
    );
  }
  if (source.output !== undefined) {
    const check = exec.services.validator.validate(source.output, output, refValue);
    if (!check.ok) throw failure('invalid-output', `Unexpected output of \`${routine.qualified}\`: ${formatErrors(check.errors)}`);
  }
  return output;
}
