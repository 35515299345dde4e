import { isPlainObject } from '../json.js';
import { SchemaValidator } from '../validate/validator.js';
import type {
  ClassificationRequest,
  ClassificationResponse,
  GenerationRequest,
  GenerationResponse,
  ModelProvider,
  Script,
  ScriptResponse,
} from './provider.js';
import { synthesize } from './synthesize.js';

/**
 * The embedded deterministic provider (RUN-6): no network, no credentials, no state. With a
 * script `{"<routine>": [response, …]}` (from the binding, or given here) it answers a
 * routine's n-th decision with its n-th response, the last one repeating; without one it
 * synthesizes the first schema-valid value, or a fixed text naming the routine.
 */
export function createScriptedProvider(options: { script?: Script } = {}): ModelProvider {
  const validator = new SchemaValidator();
  const accepts = (schema: unknown) => (candidate: unknown) => validator.validate({ document: JSON.stringify(schema) }, candidate).ok;
  const scripted = (request: GenerationRequest | ClassificationRequest): ScriptResponse | undefined => {
    const script = request.connection.script ?? options.script;
    const bare = request.routine.slice(request.routine.lastIndexOf('/') + 1);
    const responses = script?.[request.routine] ?? script?.[bare];
    if (!Array.isArray(responses) || responses.length === 0) return undefined;
    return checkResponse(responses[Math.min(request.sequence, responses.length - 1)], request.routine);
  };
  const generate = async (request: GenerationRequest): Promise<GenerationResponse> => {
    const response = scripted(request);
    if (response !== undefined) {
      if ('toolCalls' in response) {
        const toolCalls = response.toolCalls.map((c, i) => ({ id: `call-${request.sequence}-${i}`, name: c.name, input: c.input ?? {} }));
        return { toolCalls, ...(response.text === undefined ? {} : { text: response.text }), finish: 'tool_calls' };
      }
      return { ...response, finish: 'stop' };
    }
    if (request.output === undefined) return { text: `Scripted answer from ${request.routine}.`, finish: 'stop' };
    return { output: synthesize(request.output, accepts(request.output)), finish: 'stop' };
  };
  return {
    generate,
    parts: true,
    // Streams the text answer in chunks of a few words, so hosts and tests see `delta` events.
    async stream(request, signal, onText) {
      const response = await generate(request);
      if ('text' in response && typeof response.text === 'string') {
        for (const chunk of chunks(response.text)) {
          if (signal.aborted) throw signal.reason ?? new Error('aborted');
          onText(chunk);
          await Promise.resolve();
        }
      }
      return response;
    },
    session: {
      // A bounded session answers with the routine's scripted responses in order, from its first.
      async open(request) {
        let n = 0;
        return {
          next: async () => generate({ ...request, sequence: n++, messages: [] }),
          send: () => undefined,
          close: () => undefined,
        };
      },
    },
    async classify(request: ClassificationRequest): Promise<ClassificationResponse> {
      const response = scripted(request);
      if (response !== undefined && 'output' in response) return { output: response.output, finish: 'stop' };
      // Without an output schema: one answer per named question that fits its kind
      // (noul: null, choice: its first choice, score: 0).
      if (request.output === undefined) {
        const questions = isPlainObject(request.input) && isPlainObject(request.input['questions']) ? request.input['questions'] : {};
        const answer = (q: unknown) =>
          isPlainObject(q) && q['kind'] === 'score'
            ? 0
            : isPlainObject(q) && q['kind'] === 'choice' && Array.isArray(q['choices'])
              ? (q['choices'][0] ?? null)
              : null;
        return { output: { answers: Object.fromEntries(Object.entries(questions).map(([name, q]) => [name, answer(q)])) }, finish: 'stop' };
      }
      return { output: synthesize(request.output, accepts(request.output)), finish: 'stop' };
    },
  };
}

/** Text in chunks of up to three words, spaces kept, so the chunks join to the exact text. */
export function chunks(text: string): string[] {
  const words = text.match(/\S+\s*|\s+/g) ?? [];
  const out: string[] = [];
  for (let i = 0; i < words.length; i += 3) out.push(words.slice(i, i + 3).join(''));
  return out;
}

function checkResponse(response: unknown, routine: string): ScriptResponse {
  const keys = isPlainObject(response) ? Object.keys(response) : [];
  const r = response as { text?: unknown; toolCalls?: unknown };
  const calls = Array.isArray(r.toolCalls) && r.toolCalls.every((c) => isPlainObject(c) && typeof c['name'] === 'string');
  const single = keys.length === 1 && (keys[0] === 'output' || (keys[0] === 'text' && typeof r.text === 'string') || (keys[0] === 'toolCalls' && calls));
  const withProse = keys.length === 2 && calls && typeof r.text === 'string';
  const ok = single || withProse;
  if (!ok)
    throw new Error(
      `Unexpected script response ${JSON.stringify(response)} for \`${routine}\`, expected {"output": value}, {"text": "…"} or {"toolCalls": [{"name", "input"}], "text"?: "prose beside them"}`,
    );
  return response as ScriptResponse;
}
