import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCompiler } from '../../compiler/src/index.js';
import { createRuntime, loadBundle, type Bundle } from '../src/index.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const GRANTS = ['weather.get', 'runtime.context.read', 'runtime.user.profile.read', 'runtime.ui.publish'];
const KEY = 'sk-test-7f3a9c';

interface Exchange {
  url: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

/** A chat-completions server on 127.0.0.1 that answers with the queued responses in order. */
let server: Server;
let baseUrl: string;
const exchanges: Exchange[] = [];
const queue: { status: number; body: unknown }[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    request.on('end', () => {
      exchanges.push({ url: request.url ?? '', headers: request.headers, body: JSON.parse(text) as Record<string, unknown> });
      const next = queue.shift() ?? { status: 500, body: { error: 'nothing queued' } };
      response.writeHead(next.status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(next.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function bundle(): Promise<Bundle> {
  const built = createCompiler({}).build(path.join(ROOT, 'fixtures/runtime/models/plugin.json'));
  if (!built.ok || !built.bundle) throw new Error(JSON.stringify(built.diagnostics));
  return loadBundle(built.bundle.bytes);
}

const completion = (message: Record<string, unknown>, finish: string) => ({
  status: 200,
  body: { id: 'x', choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finish }] },
});

async function ask(city: string) {
  const weather: unknown[] = [];
  const runtime = createRuntime({ tools: { 'weather.get': (input) => (weather.push(input), { sky: 'clear' }), 'runtime.user.profile.read': () => ({}) } });
  const preparation = runtime.prepare(await bundle(), {
    grants: GRANTS,
    env: { REGION: 'eu', TOKEN: 't' },
    models: { default: { provider: 'openai-compatible', baseUrl, apiKey: KEY, model: 'test-model' } },
  });
  const { executionId } = await runtime.start(preparation, { agent: 'weather' }, { city });
  return { outcome: await runtime.result(executionId), journal: runtime.journal(executionId), weather };
}

describe('RUN-6: the openai-compatible provider (chat completions over HTTP, tested against a local server)', () => {
  it('sends instructions, declared tools and the output schema, runs the tool call and takes the structured answer', async () => {
    exchanges.length = 0;
    queue.push(
      completion(
        { content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'weather_get', arguments: '{"city":"Oslo"}' } }] },
        'tool_calls',
      ),
      completion({ content: '{"summary":"Clear in Oslo"}' }, 'stop'),
    );
    const { outcome, journal, weather } = await ask('Oslo');
    expect(outcome).toMatchObject({ status: 'completed', output: { summary: 'Clear in Oslo' } });
    expect(weather).toEqual([{ city: 'Oslo' }]);
    expect(exchanges).toHaveLength(2);
    const [first, second] = exchanges as [Exchange, Exchange];
    expect(first.url).toBe('/v1/chat/completions');
    expect(first.headers['authorization']).toBe(`Bearer ${KEY}`);
    expect(first.body).toMatchObject({
      model: 'test-model',
      max_tokens: 300,
      messages: [
        { role: 'system', content: expect.stringContaining('City: Oslo') },
        { role: 'user', content: '{"city":"Oslo"}' },
      ],
      tools: [{ type: 'function', function: { name: 'weather_get', parameters: { type: 'object' } } }],
      response_format: { type: 'json_schema', json_schema: { name: 'output', schema: { type: 'object', additionalProperties: false, required: ['summary'] } } },
    });
    expect((second.body['messages'] as unknown[]).slice(2)).toEqual([
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'weather_get', arguments: '{"city":"Oslo"}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: '{"sky":"clear"}' },
    ]);
    expect(JSON.stringify(journal)).not.toContain(KEY);
    expect(journal[0]).toMatchObject({ models: { 'ask.weather': { provider: 'openai-compatible', model: 'test-model' } } });
  });

  it('fails a response cut at the output limit (finish_reason length)', async () => {
    queue.push(completion({ content: '{"summary":"Clear in' }, 'length'));
    const { outcome } = await ask('Oslo');
    expect(outcome).toMatchObject({ status: 'failed', error: { code: 'incomplete-output' } });
  });

  it('fails with the HTTP status of an error response, after the default 2 retries', async () => {
    queue.push({ status: 503, body: { error: 'overloaded' } }, { status: 503, body: { error: 'overloaded' } }, { status: 503, body: { error: 'overloaded' } });
    const { outcome } = await ask('Oslo');
    expect(outcome).toMatchObject({ status: 'failed', error: { code: 'provider-failed' } });
    expect((outcome as { error: { message: string } }).error.message).toMatch(
      /Unexpected HTTP 503 from http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions after 3 attempts: overloaded$/,
    );
  });
});
