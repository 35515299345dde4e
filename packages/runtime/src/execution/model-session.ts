import { failure } from '../errors.js';
import type { ModelMessage, ModelSession } from '../providers/provider.js';
import { decide, runToolCalls, userMessage, type ModelRun } from './model-step.js';
import { renderTemplate } from './template.js';
import { estimateMessages, estimateTokens } from './tokens.js';

/**
 * A bounded model session (`interaction: session`, explicit trigger; spec "Bounded model
 * sessions"): each prompt opens its own provider context through `provider.session`, tools
 * run as ordinary recorded calls, and their results go back into the same session until it
 * answers with text. Every answer of the session is a recorded `model` call (input
 * `{session: true, instructions?, messages}`), so a replay serves them and never reopens a
 * session. What the profile rejects was refused at preparation (prepare/session-profile.ts).
 */
export async function runSession(run: ModelRun): Promise<unknown> {
  const { scope, provider, binding, settings, tools, parts, fixed, signal } = run;
  const { routine } = scope;
  const opener = provider.session;
  if (!opener) throw failure('unsupported', `Unexpected session model \`${routine.qualified}\` whose provider \`${binding.provider}\` opens no sessions`);
  let instructions = await renderTemplate(scope, parts, fixed);
  const conversation: ModelMessage[] = scope.input === undefined ? [] : [userMessage(scope.input)];
  let added: ModelMessage[] = [...conversation];
  let session: ModelSession | undefined;
  let first = true;
  try {
    for (;;) {
      scope.allowance.takeStep(`decision of \`${routine.qualified}\``);
      const recorded: Record<string, unknown> = first ? { session: true, instructions, messages: added } : { session: true, messages: added };
      const results = added;
      const response = await decide(scope, recorded, estimateTokens(instructions) + estimateMessages(conversation), signal, async (sequence, signal) => {
        if (!session) {
          session = await opener.open(
            { routine: routine.qualified, sequence, connection: binding, instructions, settings, tools, messages: conversation },
            signal,
          );
        } else session.send(results);
        return session.next(signal);
      });
      first = false;
      if ('toolCalls' in response && response.toolCalls.length > 0) {
        conversation.push({ role: 'assistant', ...(response.text ? { content: response.text } : {}), toolCalls: response.toolCalls });
        added = await runToolCalls(scope, response.toolCalls);
        // A finite session refreshes its runtime data before continuing after tools; provider
        // setup stays fixed, so a changed rendering goes in as a context observation.
        const refreshed = await renderTemplate(scope, parts, fixed);
        if (refreshed !== instructions) {
          instructions = refreshed;
          added = [...added, { role: 'user', content: `Updated context:\n${refreshed}` }];
        }
        conversation.push(...added);
        continue;
      }
      if ('text' in response && typeof response.text === 'string') return response.text;
      throw failure('invalid-output', `Unexpected session answer of \`${routine.qualified}\` without text, expected text (a bounded session returns text)`);
    }
  } finally {
    session?.close();
  }
}
