import { isPlainObject } from '../json.js';
import type { Usage } from './provider.js';

/**
 * Server-sent events (the WHATWG `text/event-stream` format) from a fetch body: lines split on
 * LF, CRLF or CR; `data:` lines of one event joined with LF; an event ends at a blank line;
 * comments (`:`) and other fields ignored. Calls `onData` with each event's data.
 */
export async function readEvents(body: ReadableStream<Uint8Array>, onData: (data: string) => void): Promise<void> {
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  const line = (text: string) => {
    if (text === '') {
      if (data.length > 0) onData(data.join('\n'));
      data = [];
      return;
    }
    if (text.startsWith(':')) return;
    const colon = text.indexOf(':');
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
  };
  const drain = (final: boolean) => {
    for (;;) {
      const match = /\r\n|\r|\n/.exec(buffer);
      // A lone CR at the end may be the first half of CRLF: wait for the next chunk.
      if (!match || (!final && match[0] === '\r' && match.index === buffer.length - 1)) break;
      line(buffer.slice(0, match.index));
      buffer = buffer.slice(match.index + match[0].length);
    }
  };
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    drain(false);
  }
  buffer += decoder.decode();
  drain(true);
  if (buffer !== '') line(buffer);
  line('');
}

/**
 * Reads a streamed chat completion (`stream: true`): text deltas go to `onText` as they
 * arrive; the result is the body a non-streamed request would have returned
 * (`choices[0].message` with `content` and `tool_calls` assembled from their deltas,
 * `finish_reason`, `usage` when the server sent it), so one parser reads both.
 */
export async function readCompletionStream(body: ReadableStream<Uint8Array>, onText: (chunk: string) => void): Promise<Record<string, unknown>> {
  let content = '';
  let finish: unknown = null;
  let usage: unknown;
  const calls: { id?: string; name: string; arguments: string }[] = [];
  let failed: string | undefined;
  await readEvents(body, (data) => {
    if (data === '[DONE]' || failed) return;
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch {
      failed = `Unexpected server-sent event that is not JSON: ${data.slice(0, 200)}`;
      return;
    }
    if (!isPlainObject(chunk)) return;
    if (isPlainObject(chunk['error'])) failed = `Unexpected error event: ${JSON.stringify(chunk['error']).slice(0, 200)}`;
    if (chunk['usage'] !== undefined && chunk['usage'] !== null) usage = chunk['usage'];
    const choice = Array.isArray(chunk['choices']) ? chunk['choices'][0] : undefined;
    if (!isPlainObject(choice)) return;
    if (choice['finish_reason'] !== undefined && choice['finish_reason'] !== null) finish = choice['finish_reason'];
    const delta = isPlainObject(choice['delta']) ? choice['delta'] : {};
    if (typeof delta['content'] === 'string' && delta['content'] !== '') {
      content += delta['content'];
      onText(delta['content']);
    }
    for (const part of Array.isArray(delta['tool_calls']) ? delta['tool_calls'] : []) {
      if (!isPlainObject(part)) continue;
      const index = typeof part['index'] === 'number' ? part['index'] : calls.length;
      const call = (calls[index] ??= { name: '', arguments: '' });
      if (typeof part['id'] === 'string') call.id = part['id'];
      const fn = isPlainObject(part['function']) ? part['function'] : {};
      if (typeof fn['name'] === 'string') call.name += fn['name'];
      if (typeof fn['arguments'] === 'string') call.arguments += fn['arguments'];
    }
  });
  if (failed) throw new Error(failed);
  const message: Record<string, unknown> = { role: 'assistant', content };
  if (calls.length > 0)
    message['tool_calls'] = calls.map((c, i) => ({ id: c.id ?? `call-${i}`, type: 'function', function: { name: c.name, arguments: c.arguments } }));
  return { choices: [{ index: 0, message, finish_reason: finish }], ...(usage === undefined ? {} : { usage }) };
}

/** An OpenAI-style `usage` object (`prompt_tokens`, `completion_tokens`) as the runtime's Usage, when present. */
export function usageOf(body: unknown): Usage | undefined {
  const usage = isPlainObject(body) ? body['usage'] : undefined;
  if (!isPlainObject(usage) || typeof usage['prompt_tokens'] !== 'number' || typeof usage['completion_tokens'] !== 'number') return undefined;
  return { inputTokens: usage['prompt_tokens'], outputTokens: usage['completion_tokens'] };
}
