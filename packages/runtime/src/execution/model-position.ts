import { declaredTools } from '../bundle/declared-tools.js';
import { resolveTarget } from '../bundle/routine-table.js';
import { failure, toCallError, type CallError } from '../errors.js';
import { isPlainObject, renderValue } from '../json.js';
import type { ClassificationResponse, GenerationResponse, ModelMessage, ToolCall, ToolDefinition } from '../providers/provider.js';
import { schemaRefValue } from '../validate/address.js';
import { formatErrors } from '../validate/validator.js';
import { callTool } from './call-tool.js';
import { checkDistribution, checkQuestions, questionsResult } from './classification.js';
import { withUsage } from '../providers/usage.js';
import { renderTemplate } from './template.js';
import type { Scope } from './scope.js';

/** Settings that select or identify the model; everything else in `model` is a setting. */
const NOT_SETTINGS = new Set(['select', 'provider', 'id']);

/**
 * Decision: a generation whose final output does not validate gets one correction round (the
 * validation errors as a user message, one more decision); a second invalid output fails.
 */
const CORRECTION_ROUNDS = 1;

/**
 * A model routine position (RUN-6): render, decide, run the tool calls the decision asks for,
 * decide again, until a final answer; validate it. Every decision is a recorded `model` call
 * whose input is what the model newly sees (the instructions and the messages added since the
 * previous decision) and whose output is the response.
 */
export async function runModel(scope: Scope, signal: AbortSignal): Promise<unknown> {
  const { exec, routine } = scope;
  const binding = exec.state.models.get(routine.qualified);
  const bound = binding && exec.services.providers.get(binding.provider);
  const provider = bound && withUsage(bound);
  if (!binding || !provider) throw failure('missing-model', `Unexpected model routine \`${routine.qualified}\` without a bound provider`);
  const model = routine.source.model ?? {};
  const settings = Object.fromEntries(Object.entries(model).filter(([k]) => !NOT_SETTINGS.has(k)));
  const select = isPlainObject(model['select']) ? model['select'] : {};
  const refValue = schemaRefValue(routine);
  const declared = routine.source.output;
  const output = declared === undefined ? undefined : exec.services.validator.jsonSchema(declared, refValue);
  const parts = exec.state.templates.get(routine.qualified) ?? [];
  const fixed = new Map<string, unknown>();

  if (select['operation'] === 'classification') {
    const questions = declared === undefined ? checkQuestions(routine.qualified, scope.input) : undefined;
    scope.allowance.takeStep(`decision of \`${routine.qualified}\``);
    const instructions = await renderTemplate(scope, parts, fixed);
    const response = await decide(scope, { instructions, input: scope.input }, (sequence) =>
      provider.classify
        ? provider.classify({ routine: routine.qualified, sequence, connection: binding, instructions, settings, input: scope.input, ...(output === undefined ? {} : { output }) }, signal)
        : provider.generate({ routine: routine.qualified, sequence, connection: binding, instructions, settings, messages: [userMessage(scope.input)], tools: [], ...(output === undefined ? {} : { output }) }, signal),
    );
    if (questions) return questionsResult(routine.qualified, questions, response as ClassificationResponse);
    const value = finalValue(scope, response, true).value;
    checkDistribution(routine.qualified, output, value);
    return value;
  }

  const tools = offeredTools(scope);
  const conversation: ModelMessage[] = scope.input === undefined ? [] : [userMessage(scope.input)];
  let added: ModelMessage[] = [...conversation];
  let corrections = 0;
  for (;;) {
    scope.allowance.takeStep(`decision of \`${routine.qualified}\``);
    const instructions = await renderTemplate(scope, parts, fixed);
    const messages = [...conversation];
    const response = await decide(scope, { instructions, messages: added }, (sequence) =>
      provider.generate({ routine: routine.qualified, sequence, connection: binding, instructions, settings, messages, tools, ...(output === undefined ? {} : { output }) }, signal),
    );
    if ('toolCalls' in response && response.toolCalls.length > 0) {
      const calls = response.toolCalls;
      conversation.push({ role: 'assistant', ...(response.text ? { content: response.text } : {}), toolCalls: calls });
      added = await runToolCalls(scope, calls);
      conversation.push(...added);
      continue;
    }
    const final = finalValue(scope, response, declared !== undefined);
    if (declared === undefined) return final.value;
    const check = final.error === undefined ? exec.services.validator.validate(declared, final.value, refValue) : { ok: false as const, errors: [final.error] };
    if (check.ok) return final.value;
    if (corrections >= CORRECTION_ROUNDS) {
      throw failure('invalid-output', `Unexpected output of \`${routine.qualified}\` after ${CORRECTION_ROUNDS} correction round: ${formatErrors(check.errors)}`);
    }
    corrections++;
    const correction: ModelMessage = {
      role: 'user',
      content: `Your answer does not match the declared output schema: ${formatErrors(check.errors)}. Answer again with one JSON value that matches it.`,
    };
    conversation.push({ role: 'assistant', content: 'text' in response ? response.text : renderValue((response as { output: unknown }).output) }, correction);
    added = [correction];
  }
}

type Decision = GenerationResponse | ClassificationResponse;

/** One recorded decision; in a replay its recorded response stands in for the provider. */
async function decide(scope: Scope, input: Record<string, unknown>, ask: (sequence: number) => Promise<Decision>): Promise<Decision> {
  const { exec, routine } = scope;
  const call = exec.admit(scope.call, 'model', routine.qualified, input);
  try {
    scope.allowance.takeCall(`decision of \`${routine.qualified}\``);
    const served = exec.served(call);
    let response: Decision;
    if (served !== undefined) {
      if ('error' in served) throw failure(served.error.code, served.error.message);
      response = served.output as Decision;
    } else {
      const sequence = exec.nextSequence(routine.qualified);
      try {
        response = await ask(sequence);
      } catch (error) {
        throw failure('provider-failed', `Model provider failed for \`${routine.qualified}\`: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    exec.settle(call, { output: response });
    if (response.finish === 'length') {
      throw failure('incomplete-output', `Unexpected incomplete response of \`${routine.qualified}\`: the model reached its output limit, which is a failure, never a partial success (raise \`max_output_tokens\` in a new preparation)`);
    }
    return response;
  } catch (error) {
    exec.settle(call, { error });
    throw error;
  }
}

/** Generation without `output` returns text (MDL-9); with it, a JSON value (given, or parsed from text). */
function finalValue(scope: Scope, response: Decision, structured: boolean): { value: unknown; error?: string } {
  if (!structured) {
    if ('text' in response && typeof response.text === 'string') return { value: response.text };
    if ('output' in response) return { value: typeof response.output === 'string' ? response.output : renderValue(response.output) };
    throw failure('invalid-output', `Unexpected response of \`${scope.routine.qualified}\` without text or output`);
  }
  if ('output' in response) return { value: response.output };
  if ('text' in response && typeof response.text === 'string') {
    try {
      return { value: JSON.parse(response.text) as unknown };
    } catch {
      return { value: response.text, error: '$ is text that is not JSON' };
    }
  }
  throw failure('invalid-output', `Unexpected response of \`${scope.routine.qualified}\` without output`);
}

function userMessage(input: unknown): ModelMessage {
  return { role: 'user', content: input === undefined ? '' : renderValue(input) };
}

/** RUN-12: exactly the declared tools, with the target's description and input schema. */
function offeredTools(scope: Scope): ToolDefinition[] {
  const { exec, routine } = scope;
  return declaredTools(routine).map((connection) => {
    const definition: ToolDefinition = { name: connection.key };
    const resolved = resolveTarget(routine.pkg, connection.target);
    if (resolved?.kind === 'routine') {
      const target = resolved.routine.source;
      if (target.description !== undefined) definition.description = target.description;
      if (target.input !== undefined) definition.input = exec.services.validator.jsonSchema(target.input, schemaRefValue(resolved.routine));
    } else if (resolved?.kind === 'external') {
      const tool = exec.services.tools.get(resolved.name);
      if (tool?.description !== undefined) definition.description = tool.description;
      if (tool?.input !== undefined) definition.input = tool.input;
    }
    return definition;
  });
}

/**
 * Runs the tool calls of one decision together, results in the order asked (RUN-10). A failed
 * call is recorded and its error goes back to the model as that call's result (decision: the
 * model decides what to do next); an async call's result is its receipt.
 */
async function runToolCalls(scope: Scope, calls: readonly ToolCall[]): Promise<ModelMessage[]> {
  const results = calls.map((c) => {
    try {
      return callTool(scope, c.name, c.input).outcome;
    } catch (error) {
      return Promise.reject(error);
    }
  });
  const settled = await Promise.allSettled(results);
  if (scope.exec.fatal) throw scope.exec.fatal;
  return settled.map((result, i) => {
    const call = calls[i]!;
    const content = result.status === 'fulfilled' ? renderValue(result.value ?? null) : renderValue({ error: toCallError(result.reason) satisfies CallError });
    return { role: 'tool', callId: call.id, name: call.name, content };
  });
}
