import { failure } from '../errors.js';
import type { ModelMessage } from '../providers/provider.js';
import type { ModelRun } from './model-step.js';
import { messagesView, policyCall } from './policy-call.js';
import { estimateMessages, estimateTokens } from './tokens.js';

/** Where each turn starts in the conversation: a turn is one batch of input messages and everything the model did in answer. */
export type Turns = number[];

/**
 * Context management before a turn is answered (CONTRACTS decisions; docs/runtime.md,
 * "Context management"). With `compaction`: once the conversation's messages pass
 * `max_tokens`, the turns before the last `keep_turns` go to the `summary` routine as
 * `{messages}` (a recorded `compaction` call) and its text replaces them as one message;
 * without a summary routine they are dropped. Without `compaction` (the default), the oldest
 * turns are dropped, never the instructions, until the conversation fits the model's
 * `context_length`, recording a notice (a `compaction` call `runtime.context.drop`). Token
 * counts are the estimator's (tokens.ts).
 */
export async function manageContext(run: ModelRun, conversation: ModelMessage[], turns: Turns): Promise<void> {
  const { scope } = run;
  const compaction = scope.routine.source.compaction;
  if (compaction) {
    const tokens = estimateMessages(conversation);
    const cut = turns.length - compaction.keep_turns;
    if (tokens <= compaction.max_tokens || cut <= 0) return;
    const end = cut >= turns.length ? conversation.length : turns[cut]!;
    const old = conversation.slice(0, end);
    let replacement: ModelMessage[];
    if (compaction.summary) {
      const summary = await policyCall(scope, 'compaction', compaction.summary, { messages: messagesView(old) });
      const text = typeof summary === 'string' ? summary : JSON.stringify(summary);
      replacement = [{ role: 'user', content: `Summary of the earlier conversation: ${text}` }];
    } else {
      await notice(run, { reason: 'compaction', turns: cut, tokens, max_tokens: compaction.max_tokens });
      replacement = [];
    }
    replace(conversation, turns, cut, end, replacement);
    return;
  }
  const limit = run.binding.context_length;
  if (limit === undefined) return;
  const fixed = estimateTokens(run.parts.map((p) => ('text' in p ? p.text : '')).join(''));
  const tokens = fixed + estimateMessages(conversation);
  if (tokens <= limit) return;
  // The fewest oldest turns whose removal makes the rest fit; the latest turn is never dropped.
  let dropped = 1;
  while (dropped < turns.length && fixed + estimateMessages(conversation.slice(turns[dropped])) > limit) dropped++;
  if (dropped >= turns.length) {
    const needed = fixed + estimateMessages(conversation.slice(turns[turns.length - 1]));
    throw failure(
      'context-exceeded',
      `Unexpected turn of \`${scope.routine.qualified}\` needing about ${needed} tokens, expected at most the model's context_length ${limit} (the latest turn alone does not fit)`,
    );
  }
  const end = turns[dropped]!;
  await notice(run, { reason: 'context_length', turns: dropped, tokens, context_length: limit });
  replace(conversation, turns, dropped, end, []);
}

/** Replaces the first `count` turns (messages before `end`) with `replacement`, which becomes turn 0 when present. */
function replace(conversation: ModelMessage[], turns: Turns, count: number, end: number, replacement: ModelMessage[]): void {
  conversation.splice(0, end, ...replacement);
  const shift = end - replacement.length;
  const kept = turns.slice(count).map((start) => start - shift);
  turns.splice(0, turns.length, ...(replacement.length > 0 ? [0] : []), ...kept);
}

/** The recorded notice of dropped turns: a `compaction` call of the runtime's own, `runtime.context.drop`. */
async function notice(run: ModelRun, input: Record<string, unknown>): Promise<void> {
  const { exec } = run.scope;
  const call = exec.admit(run.scope.call, 'compaction', 'runtime.context.drop', input);
  exec.settle(call, { output: { dropped: input['turns'] } });
}
