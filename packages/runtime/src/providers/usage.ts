import { jsonText } from '../json.js';
import type { ClassificationRequest, GenerationRequest, ModelProvider } from './provider.js';

/** Tokens one model decision used: as the provider reported them, or `estimated`. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  /** True when the provider reported none and the runtime estimated them. */
  estimated?: true;
}

/**
 * The one estimator (docs/runtime.md, "Usage"): a token per 4 UTF-8 bytes of the text, rounded
 * up. Coarse on purpose: limits and bounds work offline the same way as with a real provider.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(Buffer.byteLength(text, 'utf8') / 4);
}

/** The provider, with every response that reports no usage given an estimated one. */
export function withUsage(provider: ModelProvider): ModelProvider {
  const requestText = (request: GenerationRequest | ClassificationRequest): string =>
    request.instructions + jsonText('messages' in request ? { messages: request.messages, tools: request.tools } : { input: request.input ?? null }, 'the request');
  const fill = <R extends { usage?: Usage }>(request: GenerationRequest | ClassificationRequest, response: R): R => {
    if (response.usage !== undefined) return response;
    const { finish: _, ...answer } = response as R & { finish?: string };
    return { ...response, usage: { inputTokens: estimateTokens(requestText(request)), outputTokens: estimateTokens(jsonText(answer, 'the response')), estimated: true } };
  };
  const wrapped: ModelProvider = { generate: async (request, signal) => fill(request, await provider.generate(request, signal)) };
  if (provider.classify) {
    const classify = provider.classify.bind(provider);
    wrapped.classify = async (request, signal) => fill(request, await classify(request, signal));
  }
  return wrapped;
}
