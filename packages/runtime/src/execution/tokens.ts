import { byteLength, renderValue } from '../json.js';
import type { ModelMessage, Usage } from '../providers/provider.js';

/**
 * The one token estimator (CONTRACTS "Token counts"; docs/runtime.md, "Token estimates"),
 * used wherever a provider reports no usage: one token per 4 UTF-8 bytes, rounded up, plus
 * 4 tokens of framing per message. It is deliberately simple and stable, so `compaction`
 * bounds and `context_length` behave the same offline (scripted) as with a real provider.
 */
export const BYTES_PER_TOKEN = 4;
export const TOKENS_PER_MESSAGE = 4;

export function estimateTokens(text: string): number {
  return Math.ceil(byteLength(text) / BYTES_PER_TOKEN);
}

export function estimateValue(value: unknown): number {
  if (value === undefined) return 0;
  return estimateTokens(typeof value === 'string' ? value : renderValue(value));
}

export function estimateMessage(message: ModelMessage): number {
  let tokens = TOKENS_PER_MESSAGE + estimateTokens(message.content ?? '');
  if (message.role === 'assistant' && message.toolCalls) tokens += estimateValue(message.toolCalls.map((c) => ({ name: c.name, input: c.input })));
  return tokens;
}

export function estimateMessages(messages: readonly ModelMessage[]): number {
  return messages.reduce((sum, m) => sum + estimateMessage(m), 0);
}

/** The response with `usage`: the provider's, or the estimate (`estimated: true`). */
export function withUsage<T extends { usage?: Usage }>(response: T, inputTokens: number): T {
  if (response.usage !== undefined) return response;
  const r = response as { text?: unknown; output?: unknown; toolCalls?: unknown };
  const outputTokens =
    (typeof r.text === 'string' ? estimateTokens(r.text) : 0) +
    (r.output !== undefined ? estimateValue(r.output) : 0) +
    (Array.isArray(r.toolCalls) ? estimateValue(r.toolCalls) : 0);
  return { ...response, usage: { inputTokens, outputTokens, estimated: true } };
}
