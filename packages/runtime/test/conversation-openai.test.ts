import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCompiler } from '../../compiler/src/index.js';
import { createMemoryJournal, createRuntime, loadBundle, type Bundle, type ExecutionEvent, type Runtime } from '../src/index.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const KEY = 'sk-conv-91b2';

/** A chat-completions server on 127.0.0.1: each request gets the next queued handler. */
let server: Server;
let baseUrl: string;
const bodies: Record<string, unknown>[] = [];
const queue: ((response: ServerResponse, body: Record<string, unknown>) => void | Promise<void>)[] = [];
let bundle: Bundle;
const runtimes: Runtime[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    request.on('end', () => {
      const body = JSON.parse(text) as Record<string, unknown>;
      bodies.push(body);
      const handler = queue.shift();
      if (!handler) {
        response.writeHead(500).end('{"error":"nothing queued"}');
        return;
      }
      void handler(response, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  const built = createCompiler({}).build(path.join(ROOT, 'fixtures/conversation/plugin.json'));
  if (!built.ok || !built.bundle) throw new Error(JSON.stringify(built.diagnostics));
  bundle = await loadBundle(built.bundle.bytes);
});
afterAll(async () => {
  for (const runtime of runtimes) await runtime.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const json = (content: string) => (response: ServerResponse) => {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(
    JSON.stringify({
      id: 'x',
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 31, completion_tokens: 7 },
    }),
  );
};

const sse = (response: ServerResponse, data: unknown) => response.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
const delta = (content: string) => ({ choices: [{ index: 0, delta: { content }, finish_reason: null }] });

async function start(agent: string, stream: boolean) {
  const journal = createMemoryJournal();
  const runtime = createRuntime({ stream, journal });
  runtimes.push(runtime);
  const preparation = runtime.prepare(bundle, { models: { default: { provider: 'openai-compatible', baseUrl, apiKey: KEY, model: 'm' } } });
  const { executionId } = await runtime.start(preparation, { agent });
  const events: ExecutionEvent[] = [];
  runtime.watch(executionId, (event) => events.push(event));
  const until = async (ready: () => boolean) => {
    for (let i = 0; i < 4_000 && !ready(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(ready()).toBe(true);
  };
  const messages = () => events.filter((e) => e.type === 'publication' && e.publication.kind === 'message').length;
  return { runtime, executionId, events, journal, until, messages };
}

describe('conversations with the openai-compatible provider', () => {
  it('sends the first exchange with the second message, and reports the server usage', async () => {
    bodies.length = 0;
    queue.push(json('Hi, how can I help?'), json('You said hello first.'));
    const c = await start('desk', false);
    c.runtime.send(c.executionId, { parts: [{ text: 'hello' }] });
    await c.until(() => c.messages() === 1);
    c.runtime.send(c.executionId, { parts: [{ text: 'what did I say first?' }] });
    await c.until(() => c.messages() === 2);
    c.runtime.stop(c.executionId);
    const outcome = await c.runtime.result(c.executionId);
    expect(outcome).toMatchObject({ status: 'completed', output: 'You said hello first.' });
    expect(bodies).toHaveLength(2);
    const second = (bodies[1]!['messages'] as { role: string; content: string }[]).map((m) => [m.role, m.content]);
    expect(second.slice(1)).toEqual([
      ['user', 'hello'],
      ['user', 'Routing notice: General question: answer it here.'],
      ['assistant', 'Hi, how can I help?'],
      ['user', 'what did I say first?'],
      ['user', 'Routing notice: General question: answer it here.'],
    ]);
    expect(bodies[1]!['stream']).toBeUndefined();
    const decision = outcome.calls.find((call) => call.kind === 'model')!;
    expect((decision.outcome as { output: { usage: unknown } }).output.usage).toEqual({ inputTokens: 31, outputTokens: 7 });
    expect(JSON.stringify(c.journal.entries)).not.toContain(KEY);
  });

  it('with stream: true, parses server-sent events and publishes each chunk as it arrives', async () => {
    bodies.length = 0;
    let c!: Awaited<ReturnType<typeof start>>;
    queue.push(async (response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      sse(response, delta('Tides '));
      // The rest is written only once the first chunk was published: it arrived progressively.
      await c.until(() => c.events.some((e) => e.type === 'delta'));
      sse(response, delta('turn twice'));
      response.write(': a comment line\r\n\r\n');
      sse(response, delta(' a day.'));
      sse(response, { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
      sse(response, { choices: [], usage: { prompt_tokens: 12, completion_tokens: 5 } });
      sse(response, '[DONE]');
      response.end();
    });
    c = await start('desk', true);
    c.runtime.send(c.executionId, { parts: [{ text: 'how often do tides turn?' }] });
    await c.until(() => c.messages() === 1);
    c.runtime.stop(c.executionId);
    const outcome = await c.runtime.result(c.executionId);
    expect(bodies[0]).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    const deltas = c.events.flatMap((e) => (e.type === 'delta' ? [e.text] : []));
    expect(deltas).toEqual(['Tides ', 'turn twice', ' a day.']);
    expect(outcome).toMatchObject({ status: 'completed', output: 'Tides turn twice a day.' });
    expect(outcome.publications).toEqual([
      expect.objectContaining({ kind: 'message', value: { parts: [{ text: 'Tides turn twice a day.' }] }, answers: 'm1' }),
    ]);
    const decision = outcome.calls.find((call) => call.kind === 'model')!;
    expect(decision.outcome).toEqual({ output: { text: 'Tides turn twice a day.', finish: 'stop', usage: { inputTokens: 12, outputTokens: 5 } } });
    expect(JSON.stringify(c.journal.entries)).not.toContain('turn twice"');
  });

  it('assembles streamed tool calls from their deltas', async () => {
    bodies.length = 0;
    queue.push(
      (response) => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        sse(response, { choices: [{ index: 0, delta: { content: 'Looking.' } }] });
        sse(response, {
          choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'notes_lookup', arguments: '{"wo' } }] } }],
        });
        sse(response, { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: 'rd":"milk"}' } }] }, finish_reason: 'tool_calls' }] });
        sse(response, '[DONE]');
        response.end();
      },
      (response) => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        sse(response, delta('Two notes.'));
        sse(response, '[DONE]');
        response.end();
      },
    );
    const c = await start('assistant', true);
    c.runtime.send(c.executionId, { parts: [{ text: 'milk?' }] });
    await c.until(() => c.messages() === 1);
    c.runtime.stop(c.executionId);
    const outcome = await c.runtime.result(c.executionId);
    expect(outcome.calls.find((call) => call.kind === 'tool')).toMatchObject({ name: 'notes.lookup', input: { word: 'milk' }, status: 'completed' });
    // A request that could choose tools held its stream: no deltas; its prose became progress.
    expect(c.events.filter((e) => e.type === 'delta')).toEqual([]);
    expect(outcome.publications.map((p) => [p.kind, p.value])).toEqual([
      ['progress', { parts: [{ text: 'Looking.' }] }],
      ['message', { parts: [{ text: 'Two notes.' }] }],
    ]);
    // configure (chat.tune) set the temperature of each decision.
    expect(bodies.map((b) => b['temperature'])).toEqual([0.7, 0.7]);
  });
});
