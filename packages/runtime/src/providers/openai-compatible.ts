import { isPlainObject } from '../json.js';
import { postJson, type HttpRequestOptions } from './http-request.js';
import { readCompletionStream, usageOf } from './sse.js';
import type {
  ClassificationRequest,
  ClassificationResponse,
  GenerationRequest,
  GenerationResponse,
  ModelMessage,
  ModelProvider,
  ToolCall,
} from './provider.js';

/** Function names an OpenAI-compatible API accepts; declared names with dots are mapped onto them. */
const FUNCTION_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** Settings whose API name differs from the native one; the rest are sent as they are named. */
const SETTING_NAMES: Record<string, string> = { max_output_tokens: 'max_tokens', effort: 'reasoning_effort' };

/**
 * Chat completions over HTTP (`POST {baseUrl}/chat/completions`) with tool calling and JSON
 * schema structured output; the base URL, key and model come from the preparation's binding.
 * `finish_reason: "length"` is reported as `finish: 'length'`, which the runtime fails.
 */
export function createOpenAICompatibleProvider(options: { fetch?: typeof fetch; sleep?: HttpRequestOptions['sleep'] } = {}): ModelProvider {
  const doFetch = options.fetch ?? fetch;
  const complete = async (request: GenerationRequest, signal: AbortSignal, onText?: (chunk: string) => void): Promise<GenerationResponse> => {
    const { connection } = request;
    if (!connection.baseUrl) throw new Error(`Missing baseUrl in the model binding of \`${request.routine}\`, expected the API's base URL`);
    const names = functionNames(request.tools.map((t) => t.name));
    const body: Record<string, unknown> = {
      model: connection.model ?? 'default',
      messages: [{ role: 'system', content: request.instructions }, ...request.messages.map((m) => toApiMessage(m, names.toApi))],
    };
    for (const [key, value] of Object.entries(request.settings)) body[SETTING_NAMES[key] ?? key] = value;
    if (request.tools.length > 0) {
      body['tools'] = request.tools.map((t) => ({
        type: 'function',
        function: {
          name: names.toApi.get(t.name),
          ...(t.description === undefined ? {} : { description: t.description }),
          parameters: t.input ?? { type: 'object' },
        },
      }));
    }
    if (request.output !== undefined) body['response_format'] = { type: 'json_schema', json_schema: { name: 'output', schema: request.output } };
    if (onText) Object.assign(body, { stream: true, stream_options: { include_usage: true } });
    const headers: Record<string, string> = { 'content-type': 'application/json', ...connection.headers };
    if (connection.apiKey) headers['authorization'] = `Bearer ${connection.apiKey}`;
    const url = `${connection.baseUrl.replace(/\/+$/, '')}/chat/completions`;
    const http = {
      fetch: doFetch,
      url,
      headers,
      body: JSON.stringify(body),
      signal,
      ...(connection.requestTimeoutMs === undefined ? {} : { timeoutMs: connection.requestTimeoutMs }),
      ...(connection.retries === undefined ? {} : { retries: connection.retries }),
      ...(connection.model === undefined ? {} : { model: connection.model }),
      ...(connection.apiKey === undefined ? {} : { secrets: [connection.apiKey] }),
      ...(options.sleep ? { sleep: options.sleep } : {}),
    };
    if (onText) {
      const response = await doFetch(url, { method: 'POST', headers, body: JSON.stringify(body), signal });
      // Streamed (server-sent events, providers/sse.ts): parsed into the body a plain request returns.
      if (response.ok && response.body && /text\/event-stream/.test(response.headers.get('content-type') ?? '')) {
        const streamed = await readCompletionStream(response.body, onText);
        return withUsage(fromApiResponse(streamed, names.fromApi), streamed);
      }
      const text = await response.text();
      if (!response.ok) throw new Error(`Unexpected HTTP ${response.status} from ${url}: ${text.slice(0, 200)}`);
      const parsed = parse(text, url);
      return withUsage(fromApiResponse(parsed, names.fromApi), parsed);
    }
    // A plain request: retries, timeouts and clear refusals (providers/http-request.ts).
    const parsed = await postJson(http);
    return withUsage(fromApiResponse(parsed, names.fromApi), parsed);
  };
  return {
    generate: (request, signal) => complete(request, signal),
    stream: complete,
    async classify(request: ClassificationRequest, signal: AbortSignal): Promise<ClassificationResponse> {
      const content = typeof request.input === 'string' ? request.input : JSON.stringify(request.input ?? null);
      const answer = await complete({ ...request, messages: [{ role: 'user', content }], tools: [] }, signal);
      if ('toolCalls' in answer) throw new Error('Unexpected tool calls in a classification response');
      // With a declared output the answer is JSON text (response_format); the runtime validates it.
      const output = 'output' in answer ? answer.output : request.output === undefined ? answer.text : jsonOrText(answer.text);
      return { output, finish: answer.finish === 'length' ? 'length' : 'stop', ...(answer.usage ? { usage: answer.usage } : {}) };
    },
  };
}

function withUsage(response: GenerationResponse, body: unknown): GenerationResponse {
  const usage = usageOf(body);
  return usage === undefined ? response : { ...response, usage };
}

function functionNames(declared: string[]): { toApi: Map<string, string>; fromApi: Map<string, string> } {
  const toApi = new Map<string, string>();
  const fromApi = new Map<string, string>();
  for (const name of declared) {
    let api = FUNCTION_NAME.test(name) ? name : name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 60);
    for (let n = 2; fromApi.has(api); n++) api = `${api.slice(0, 60)}_${n}`;
    toApi.set(name, api);
    fromApi.set(api, name);
  }
  return { toApi, fromApi };
}

function toApiMessage(message: ModelMessage, toApi: Map<string, string>): Record<string, unknown> {
  if (message.role === 'user') return { role: 'user', content: message.content };
  if (message.role === 'tool') return { role: 'tool', tool_call_id: message.callId, content: message.content };
  const out: Record<string, unknown> = { role: 'assistant', content: message.content ?? null };
  if (message.toolCalls && message.toolCalls.length > 0) {
    out['tool_calls'] = message.toolCalls.map((c) => ({
      id: c.id,
      type: 'function',
      function: { name: toApi.get(c.name) ?? c.name, arguments: JSON.stringify(c.input) },
    }));
  }
  return out;
}

function jsonOrText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function fromApiResponse(body: unknown, fromApi: Map<string, string>): GenerationResponse {
  const choice = isPlainObject(body) && Array.isArray(body['choices']) ? body['choices'][0] : undefined;
  if (!isPlainObject(choice) || !isPlainObject(choice['message'])) throw new Error('Unexpected chat completion without choices[0].message');
  const message = choice['message'];
  const reason = choice['finish_reason'];
  const finish = reason === 'length' ? 'length' : reason === 'tool_calls' ? 'tool_calls' : 'stop';
  const calls = Array.isArray(message['tool_calls']) ? message['tool_calls'] : [];
  if (calls.length > 0 && finish !== 'length') {
    const toolCalls: ToolCall[] = calls.map((call, i) => {
      const fn = isPlainObject(call) && isPlainObject(call['function']) ? call['function'] : {};
      const name = typeof fn['name'] === 'string' ? fn['name'] : '';
      let input: unknown = {};
      if (typeof fn['arguments'] === 'string' && fn['arguments'] !== '') {
        try {
          input = JSON.parse(fn['arguments']);
        } catch {
          throw new Error(`Unexpected arguments of tool call ${name} that are not JSON`);
        }
      }
      const id = isPlainObject(call) && typeof call['id'] === 'string' ? call['id'] : `call-${i}`;
      return { id, name: fromApi.get(name) ?? name, input };
    });
    // Prose beside the tool calls is kept: the runtime publishes it as progress.
    const prose = typeof message['content'] === 'string' && message['content'] !== '' ? { text: message['content'] } : {};
    return { toolCalls, ...prose, finish: 'tool_calls' };
  }
  const content = typeof message['content'] === 'string' ? message['content'] : '';
  return { text: content, finish };
}

function parse(text: string, url: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`Unexpected response from ${url} that is not JSON: ${text.slice(0, 200)}`);
  }
}
