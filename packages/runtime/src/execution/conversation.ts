import { CallFailure, failure } from '../errors.js';
import { isPlainObject, renderValue } from '../json.js';
import type { ContentPart, ModelMessage } from '../providers/provider.js';
import { formatErrors } from '../validate/validator.js';
import { withinDeadline } from './allowance.js';
import { manageContext, type Turns } from './compaction.js';
import { answer, userMessage, type ModelRun } from './model-step.js';
import { messagesView, policyCall } from './policy-call.js';
import type { PortMessage } from './ports.js';
import type { Scope } from './scope.js';

/** RUN-14: a model with both ports at the entry holds a conversation; called as a tool it answers once. */
export function isConversation(scope: Scope): boolean {
  const { source } = scope.routine;
  return source.kind === 'model' && source.port?.input === true && source.port.output === true && scope.exec.input !== undefined && scope.call.parent === null;
}

/**
 * A model routine with both ports (spec "Ports and lifecycle"): it keeps its context (the
 * instructions, every message, its tool calls and results) across input messages and waits
 * between published answers. Each turn takes the batch of messages waiting (a recorded
 * `receive` call), routes it (`route`), manages the context (`compaction`, or dropping the
 * oldest turns to fit `context_length`) and answers it; the answer is published as a message
 * naming the last message of the batch. When the port is stopped the execution completes with
 * the last answer. Each turn has the runtime's `timeoutMs`; waiting for input has no deadline
 * (the host stops the port), and calls and steps are the conversation's, across turns.
 */
export async function runConversation(run: ModelRun): Promise<unknown> {
  const { scope } = run;
  const { exec, routine } = scope;
  const conversation: ModelMessage[] = [];
  const turns: Turns = [];
  let last: unknown = null;
  const configure = routine.source.configure;
  const turn = async (messages: ModelMessage[], answers: string | undefined) => {
    turns.push(conversation.length);
    conversation.push(...messages);
    try {
      last = await withinDeadline(scope.allowance, `turn of \`${routine.qualified}\``, async (abort) => {
        await manageContext(run, conversation, turns);
        return answer({ ...run, signal: abort.signal }, conversation, [...conversation.slice(turns[turns.length - 1])], {
          ...(answers === undefined ? {} : { answers }),
          ...(configure ? { configure: (c, settings) => configureDecision(run, c, settings) } : {}),
        });
      });
    } catch (error) {
      // The host cancelled the turn ("stop generating"): it ends unanswered, recorded as a
      // `cancelled` call, and the conversation waits for the next message.
      if (!(error instanceof CallFailure && error.code === 'cancelled') || exec.fatal) throw error;
    }
  };
  const renew = () => (scope.allowance.deadline = exec.services.now() + exec.services.limits.timeoutMs);

  if (scope.input !== undefined) {
    renew();
    await turn([userMessage(scope.input)], undefined);
  }
  for (;;) {
    const batch = await receiveBatch(scope);
    if (batch === null) break;
    renew();
    const routed = await routeBatch(scope, batch);
    if (routed.handled) continue;
    const messages = batch.map((m) => contentMessage(run, m.value));
    if (routed.notice !== undefined) messages.push({ role: 'user', content: `Routing notice: ${routed.notice}` });
    await turn(messages, batch[batch.length - 1]!.id);
  }
  return last;
}

/**
 * One recorded `receive` call (`port.receive`): its outcome is the batch of messages taken,
 * `[{id, value}, …]` (the first waited for, the rest already waiting), or null once the port
 * is stopped. A replay serves the recorded batch.
 */
async function receiveBatch(scope: Scope): Promise<PortMessage[] | null> {
  const { exec } = scope;
  const call = exec.admit(scope.call, 'receive', 'port.receive', undefined);
  try {
    const served = exec.served(call);
    let batch: PortMessage[] | null;
    if (served === undefined) {
      const first = await exec.input!.receive();
      batch = first === null ? null : [first, ...exec.input!.drain()];
    } else if ('error' in served) throw failure(served.error.code, served.error.message);
    else batch = served.output as PortMessage[] | null;
    exec.settle(call, { output: batch });
    if (batch !== null && exec.input) exec.input.latest = batch[batch.length - 1]!.id;
    return batch;
  } catch (error) {
    exec.settle(call, { error });
    throw error;
  }
}

/** Native content as a user message: text parts as text, data parts as JSON text, media parts kept in `parts`. */
function contentMessage(run: ModelRun, value: unknown): ModelMessage {
  const parts = (isPlainObject(value) && Array.isArray(value['parts']) ? value['parts'] : []) as ContentPart[];
  const media = parts.filter((p) => !('text' in p) && !('data' in p));
  if (media.length > 0 && run.provider.parts !== true) {
    const kinds = [...new Set(media.map((p) => String(p['mediaType'])))].join(', ');
    throw failure(
      'unsupported-content',
      `Unexpected ${kinds} content for \`${run.scope.routine.qualified}\`, whose provider \`${run.binding.provider}\` reads only text and data parts`,
    );
  }
  const text = parts
    .map((p) =>
      'text' in p ? String(p['text']) : 'data' in p ? renderValue(p['data']) : `[${String(p['mediaType'])}${p['filename'] ? ` ${String(p['filename'])}` : ''}]`,
    )
    .join('\n');
  return { role: 'user', content: text, parts };
}

/**
 * `route` (CONTRACTS decision): before a turn the route routine gets `{messages: [{id, text,
 * content}]}`; `{route: "thread", thread, title, request}` publishes a `route` publication and
 * the messages do not reach this model; any other output passes them on, its `notice` (a
 * string) given to the model.
 */
async function routeBatch(scope: Scope, batch: PortMessage[]): Promise<{ handled: boolean; notice?: string }> {
  const route = scope.routine.source.route;
  if (!route) return { handled: false };
  const messages = batch.map((m) => ({ id: m.id, text: textOf(m.value), content: m.value }));
  const output = await policyCall(scope, 'route', route.routine, { messages });
  if (isPlainObject(output) && output['route'] === 'thread') {
    const missing = ['thread', 'title', 'request'].filter((k) => !Object.hasOwn(output, k));
    if (missing.length > 0)
      throw failure('invalid-route', `Unexpected route output without ${missing.join(', ')}, expected {route: "thread", thread, title, request}`);
    scope.exec.publish(scope.call, { source: 'model', kind: 'route', value: output, answers: batch[batch.length - 1]!.id });
    if (scope.exec.services.sessions?.sessionOf(scope.exec.id) !== undefined) scope.exec.services.sessions.routed(scope.exec.id, output);
    return { handled: true };
  }
  const notice = isPlainObject(output) && typeof output['notice'] === 'string' ? output['notice'] : undefined;
  return notice === undefined ? { handled: false } : { handled: false, notice };
}

/**
 * `configure` (CONTRACTS decision): before each generation decision the routine gets
 * `{messages, settings}`; its output is an object with only the `fields` keys, checked against
 * the model's settings schema when the binding declares one, applied to that decision only.
 */
async function configureDecision(run: ModelRun, conversation: readonly ModelMessage[], settings: Record<string, unknown>): Promise<Record<string, unknown>> {
  const { scope } = run;
  const configure = scope.routine.source.configure!;
  const output = await policyCall(scope, 'configure', configure.routine, { messages: messagesView(conversation), settings });
  if (!isPlainObject(output))
    throw failure(
      'invalid-configuration',
      `Unexpected configuration ${renderValue(output ?? null)} for \`${scope.routine.qualified}\`, expected an object of ${configure.fields.join(', ')}`,
    );
  const extra = Object.keys(output).filter((k) => !configure.fields.includes(k));
  if (extra.length > 0)
    throw failure(
      'invalid-configuration',
      `Unexpected configuration field ${extra.join(', ')} for \`${scope.routine.qualified}\`, expected only ${configure.fields.join(', ')} (configure.fields)`,
    );
  const schema = run.binding.settings;
  if (schema !== undefined) {
    const check = scope.exec.services.validator.validate({ document: JSON.stringify(schema) }, { ...settings, ...output });
    if (!check.ok)
      throw failure(
        'invalid-configuration',
        `Unexpected configuration for \`${scope.routine.qualified}\`: ${formatErrors(check.errors)} (the model's settings schema)`,
      );
  }
  return output;
}

function textOf(value: unknown): string {
  const parts = isPlainObject(value) && Array.isArray(value['parts']) ? value['parts'] : [];
  return parts.flatMap((p) => (isPlainObject(p) && typeof p['text'] === 'string' ? [p['text']] : [])).join('\n');
}
