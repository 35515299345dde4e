import { declaredTools } from '../bundle/declared-tools.js';
import { resolveTarget } from '../bundle/routine-table.js';
import { CallFailure, failure, toCallError, type CallError } from '../errors.js';
import { isPlainObject, renderValue } from '../json.js';
import type { TemplatePart } from '../prepare/prepare.js';
import type { ClassificationResponse, GenerationResponse, ModelBinding, ModelMessage, ModelProvider, ToolCall, ToolDefinition } from '../providers/provider.js';
import { schemaRefValue } from '../validate/address.js';
import { formatErrors } from '../validate/validator.js';
import { deliverOutcomes } from './async-outcomes.js';
import { callTool } from './call-tool.js';
import { LOAD, loadCall, loadDefinition } from './load.js';
import type { CallState } from './call-state.js';
import { cancellable } from './cancel.js';
import { checkDistribution, checkQuestions, questionsResult } from './classification.js';
import { isConversation, runConversation } from './conversation.js';
import { runSession } from './model-session.js';
import { renderTemplate } from './template.js';
import { estimateMessages, estimateTokens, estimateValue, withUsage } from './tokens.js';
import type { Scope } from './scope.js';

/** Settings that select or identify the model; everything else in `model` is a setting. */
const NOT_SETTINGS = new Set(['select', 'provider', 'id']);

/**
 * Decision: a generation whose final output does not validate gets one correction round (the
 * validation errors as a user message, one more decision); a second invalid output fails.
 */
const CORRECTION_ROUNDS = 1;

/** What every decision of one model position shares. */
export interface ModelRun {
  scope: Scope;
  signal: AbortSignal;
  binding: ModelBinding;
  provider: ModelProvider;
  settings: Record<string, unknown>;
  tools: ToolDefinition[];
  /** JSON Schema 2020-12 of the declared output. */
  output: unknown;
  declared: unknown;
  refValue: ReturnType<typeof schemaRefValue>;
  parts: readonly TemplatePart[];
  /** Template values fixed for the invocation ($.input, $.parent…). */
  fixed: Map<string, unknown>;
  /** Async calls the model made whose outcome it has not observed yet (async-outcomes.ts). */
  asyncCalls: CallState[];
}

/** What one turn of a conversation adds to a generation: the message answered, per-decision settings. */
export interface TurnOptions {
  /** The id of the input message the answer replies to. */
  answers?: string;
  /** `configure` (CONTRACTS): settings for the next decision only, from the conversation so far. */
  configure?(conversation: readonly ModelMessage[], settings: Record<string, unknown>): Promise<Record<string, unknown>>;
}

/**
 * A model routine position (RUN-6): render, decide, run the tool calls the decision asks for,
 * decide again, until a final answer; validate it. Every decision is a recorded `model` call
 * whose input is what the model newly sees (the instructions and the messages added since the
 * previous decision) and whose output is the response. A model with both ports, at the entry,
 * holds a conversation instead (conversation.ts).
 */
export async function runModel(scope: Scope, signal: AbortSignal): Promise<unknown> {
  const run = modelRun(scope, signal);
  const { routine } = scope;
  const { binding, provider, settings, output, parts, fixed } = run;
  const select = isPlainObject(routine.source.model?.['select']) ? routine.source.model['select'] : {};

  if (select['operation'] === 'classification') {
    const questions = run.declared === undefined ? checkQuestions(routine.qualified, scope.input) : undefined;
    scope.allowance.takeStep(`decision of \`${routine.qualified}\``);
    const instructions = await renderTemplate(scope, parts, fixed);
    const request = { routine: routine.qualified, connection: binding, instructions, settings, ...(output === undefined ? {} : { output }) };
    const response = await decide(
      scope,
      { instructions, input: scope.input },
      estimateTokens(instructions) + estimateValue(scope.input),
      signal,
      (sequence, signal) =>
        provider.classify
          ? provider.classify({ ...request, sequence, input: scope.input }, signal)
          : provider.generate({ ...request, sequence, messages: [userMessage(scope.input)], tools: [] }, signal),
    );
    if (questions) return questionsResult(routine.qualified, questions, response as ClassificationResponse);
    const value = finalValue(scope, response, true).value;
    checkDistribution(routine.qualified, output, value);
    return value;
  }
  if (select['interaction'] === 'session') return runSession(run);
  if (isConversation(scope)) return runConversation(run);
  const conversation: ModelMessage[] = scope.input === undefined ? [] : [userMessage(scope.input)];
  return answer(run, conversation, [...conversation]);
}

export function modelRun(scope: Scope, signal: AbortSignal): ModelRun {
  const { exec, routine } = scope;
  const binding = exec.state.models.get(routine.qualified);
  const provider = binding && exec.services.providers.get(binding.provider);
  if (!binding || !provider) throw failure('missing-model', `Unexpected model routine \`${routine.qualified}\` without a bound provider`);
  const model = routine.source.model ?? {};
  const settings = Object.fromEntries(Object.entries(model).filter(([k]) => !NOT_SETTINGS.has(k)));
  const refValue = schemaRefValue(routine);
  const declared = routine.source.output;
  const output = declared === undefined ? undefined : exec.services.validator.jsonSchema(declared, refValue);
  const parts = exec.state.templates.get(routine.qualified) ?? [];
  return { scope, signal, binding, provider, settings, tools: offeredTools(scope), output, declared, refValue, parts, fixed: new Map(), asyncCalls: [] };
}

/**
 * Decides until a final answer: `conversation` is the model's context (kept by the caller
 * across turns) and `added` what it has not seen yet. Prose beside tool calls publishes as
 * progress, the completed answer as a message, when the position has an output port.
 */
export async function answer(run: ModelRun, conversation: ModelMessage[], added: ModelMessage[], turn: TurnOptions = {}): Promise<unknown> {
  const { scope, signal, binding, provider, tools, output, declared, refValue, parts, fixed } = run;
  const { exec, routine } = scope;
  const replyTo = turn.answers ?? exec.input?.latest;
  let corrections = 0;
  for (;;) {
    scope.allowance.takeStep(`decision of \`${routine.qualified}\``);
    const observed = await deliverOutcomes(run);
    conversation.push(...observed);
    if (observed.length > 0) added = [...added, ...observed];
    const instructions = await renderTemplate(scope, parts, fixed);
    const settings = turn.configure ? { ...run.settings, ...(await turn.configure(conversation, run.settings)) } : run.settings;
    const messages = [...conversation];
    // Answer-only requests stream into their publication; requests that can choose tools hold
    // their stream until completion shows whether it is an answer or prose beside tool calls.
    const streamInto = scope.output !== undefined && tools.length === 0 && declared === undefined ? { id: undefined as string | undefined } : undefined;
    const request = { routine: routine.qualified, connection: binding, instructions, settings, messages, tools, ...(output === undefined ? {} : { output }) };
    const recorded: Record<string, unknown> = { instructions, messages: added };
    if (settings !== run.settings) recorded['settings'] = settings;
    const response = await decide(scope, recorded, estimateTokens(instructions) + estimateMessages(messages), signal, (sequence, signal) => {
      const full = { ...request, sequence };
      if (!exec.services.stream || !provider.stream) return provider.generate(full, signal);
      return provider.stream(full, signal, (chunk) => {
        if (!streamInto || chunk === '') return;
        streamInto.id ??= exec.reservePublication();
        exec.delta(streamInto.id, chunk);
      });
    });
    if ('toolCalls' in response && response.toolCalls.length > 0) {
      const calls = response.toolCalls;
      if (response.text && scope.output)
        exec.publish(scope.output.call, {
          source: 'model',
          kind: 'progress',
          value: { parts: [{ text: response.text }] },
          ...(replyTo === undefined ? {} : { answers: replyTo }),
        });
      conversation.push({ role: 'assistant', ...(response.text ? { content: response.text } : {}), toolCalls: calls });
      added = await runToolCalls(scope, calls, run.asyncCalls);
      conversation.push(...added);
      continue;
    }
    const final = finalValue(scope, response, declared !== undefined);
    const check =
      declared === undefined
        ? { ok: true as const }
        : final.error === undefined
          ? exec.services.validator.validate(declared, final.value, refValue)
          : { ok: false as const, errors: [final.error] };
    if (check.ok) {
      conversation.push({ role: 'assistant', content: typeof final.value === 'string' ? final.value : renderValue(final.value) });
      if (scope.output) {
        const value = typeof final.value === 'string' ? { parts: [{ text: final.value }] } : { parts: [{ data: final.value }] };
        exec.publish(scope.output.call, {
          source: 'model',
          kind: 'message',
          value,
          ...(replyTo === undefined ? {} : { answers: replyTo }),
          ...(streamInto?.id ? { id: streamInto.id } : {}),
        });
      }
      return final.value;
    }
    if (corrections >= CORRECTION_ROUNDS) {
      throw failure(
        'invalid-output',
        `Unexpected output of \`${routine.qualified}\` after ${CORRECTION_ROUNDS} correction round: ${formatErrors(check.errors)}`,
      );
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

export type Decision = GenerationResponse | ClassificationResponse;

/** One recorded decision; in a replay its recorded response stands in for the provider. */
export async function decide(
  scope: Scope,
  input: Record<string, unknown>,
  inputTokens: number,
  signal: AbortSignal,
  ask: (sequence: number, signal: AbortSignal) => Promise<Decision>,
): Promise<Decision> {
  const { exec, routine } = scope;
  const call = exec.admit(scope.call, 'model', routine.qualified, input);
  try {
    scope.allowance.takeCall(`decision of \`${routine.qualified}\``);
    const served = exec.served(call);
    // Numbered even when served, so a continuation's first live decision has the next number.
    const sequence = exec.nextSequence(routine.qualified);
    let response: Decision;
    if (served !== undefined) {
      if ('error' in served) throw failure(served.error.code, served.error.message);
      response = served.output as Decision;
    } else {
      try {
        response = withUsage(await cancellable(exec, call, signal, (combined) => ask(sequence, combined.signal)), inputTokens);
      } catch (error) {
        if (error instanceof CallFailure) throw error;
        throw failure('provider-failed', `Model provider failed for \`${routine.qualified}\`: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    exec.settle(call, { output: response });
    if (response.finish === 'length') {
      throw failure(
        'incomplete-output',
        `Unexpected incomplete response of \`${routine.qualified}\`: the model reached its output limit, which is a failure, never a partial success (raise \`max_output_tokens\` in a new preparation)`,
      );
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

export function userMessage(input: unknown): ModelMessage {
  return { role: 'user', content: input === undefined ? '' : renderValue(input) };
}

/**
 * RUN-12: exactly the declared tools, with the target's description and input schema, and
 * `load` when the routine retains addresses it may read.
 */
function offeredTools(scope: Scope): ToolDefinition[] {
  const { exec, routine } = scope;
  const load = loadDefinition(scope);
  const declared = declaredTools(routine).map((connection) => {
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
  return load === undefined ? declared : [...declared, load];
}

/**
 * Runs the tool calls of one decision together, results in the order asked (RUN-10). A failed
 * call is recorded and its error goes back to the model as that call's result (decision: the
 * model decides what to do next); an async call's result is its receipt.
 */
export async function runToolCalls(scope: Scope, calls: readonly ToolCall[], asyncCalls?: CallState[]): Promise<ModelMessage[]> {
  const loads = loadDefinition(scope) !== undefined;
  const results = calls.map((c) => {
    if (loads && c.name === LOAD) return loadCall(scope, c.input);
    try {
      const admitted = callTool(scope, c.name, c.input);
      if (admitted.call.async) asyncCalls?.push(admitted.call);
      return admitted.outcome;
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
