import { isPlainObject } from '../json.js';
import { SchemaValidator } from '../validate/validator.js';
import type { ClassificationRequest, ClassificationResponse, GenerationRequest, GenerationResponse, ModelProvider, Script, ScriptResponse } from './provider.js';
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
  return {
    async generate(request: GenerationRequest): Promise<GenerationResponse> {
      const response = scripted(request);
      if (response !== undefined) {
        if ('toolCalls' in response) {
          return { toolCalls: response.toolCalls.map((c, i) => ({ id: `call-${request.sequence}-${i}`, name: c.name, input: c.input ?? {} })), finish: 'tool_calls' };
        }
        return { ...response, finish: 'stop' };
      }
      if (request.output === undefined) return { text: `Scripted answer from ${request.routine}.`, finish: 'stop' };
      return { output: synthesize(request.output, accepts(request.output)), finish: 'stop' };
    },
    async classify(request: ClassificationRequest): Promise<ClassificationResponse> {
      const response = scripted(request);
      if (response !== undefined && 'output' in response) return { output: response.output, finish: 'stop' };
      // Without an output schema: one null answer per named question ({state, questions}).
      if (request.output === undefined) {
        const questions = isPlainObject(request.input) && isPlainObject(request.input['questions']) ? Object.keys(request.input['questions']) : [];
        return { output: { answers: Object.fromEntries(questions.map((q) => [q, null])) }, finish: 'stop' };
      }
      return { output: synthesize(request.output, accepts(request.output)), finish: 'stop' };
    },
  };
}

function checkResponse(response: unknown, routine: string): ScriptResponse {
  const keys = isPlainObject(response) ? Object.keys(response) : [];
  const ok =
    keys.length === 1 &&
    ((keys[0] === 'output') ||
      (keys[0] === 'text' && typeof (response as { text: unknown }).text === 'string') ||
      (keys[0] === 'toolCalls' && Array.isArray((response as { toolCalls: unknown }).toolCalls) && (response as { toolCalls: unknown[] }).toolCalls.every((c) => isPlainObject(c) && typeof c['name'] === 'string')));
  if (!ok) throw new Error(`Unexpected script response ${JSON.stringify(response)} for \`${routine}\`, expected {"output": value}, {"text": "…"} or {"toolCalls": [{"name", "input"}]}`);
  return response as ScriptResponse;
}
