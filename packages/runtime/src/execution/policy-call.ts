import type { Target } from '../bundle/content.js';
import { resolveTarget } from '../bundle/routine-table.js';
import { failure } from '../errors.js';
import type { CallKind } from '../journal/entries.js';
import type { ModelMessage } from '../providers/provider.js';
import { runChain } from './chain.js';
import { callExternal } from './external.js';
import { frameOf, type Scope } from './scope.js';

/**
 * A call a model's conversation policy makes (`route`, `configure`, `compaction.summary`): an
 * ordinary recorded call of that kind under the conversation's allowance and authority, made
 * by the runtime rather than chosen by the model. It replays like any call: a routine runs
 * again, an external tool gets its recorded outcome.
 */
export async function policyCall(scope: Scope, kind: CallKind, target: Target, input: unknown): Promise<unknown> {
  const { exec, routine } = scope;
  const resolved = resolveTarget(routine.pkg, target);
  if (resolved === undefined || resolved.kind === 'opaque')
    throw failure('invalid-bundle', `Unexpected \`${kind}\` target of \`${routine.qualified}\` that the bundle cannot resolve`);
  const name = resolved.kind === 'routine' ? resolved.routine.qualified : resolved.name;
  const call = exec.admit(scope.call, kind, name, input, resolved.kind === 'routine' ? { routine: resolved.routine } : {});
  try {
    scope.allowance.takeCall(`${kind} \`${name}\` of \`${routine.qualified}\``);
    const output =
      resolved.kind === 'external'
        ? await callExternal(exec, call, resolved.name, input, scope.allowance)
        : await runChain({
            exec,
            head: call,
            routine: resolved.routine,
            input,
            allowance: scope.allowance,
            optional: scope.optional,
            parentFrame: frameOf(scope),
            output: undefined,
          });
    exec.settle(call, { output });
    return output;
  } catch (error) {
    exec.settle(call, { error });
    throw error;
  }
}

/** How policy routines see the conversation: `{role, text}` (and the tool calls, or the tool answered). */
export function messagesView(conversation: readonly ModelMessage[]): Record<string, unknown>[] {
  return conversation.map((m) => {
    const view: Record<string, unknown> = { role: m.role, text: m.content ?? '' };
    if (m.role === 'assistant' && m.toolCalls) view['toolCalls'] = m.toolCalls.map((c) => ({ name: c.name, input: c.input }));
    if (m.role === 'tool') view['name'] = m.name;
    return view;
  });
}
