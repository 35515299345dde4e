import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCompiler } from '../../compiler/src/index.js';
import {
  createMemoryJournal,
  createRuntime,
  createScriptedProvider,
  loadBundle,
  type Bundle,
  type ExecutionEvent,
  type GenerationRequest,
  type ModelBinding,
  type ModelProvider,
  type Runtime,
  type RuntimeOptions,
  type Script,
} from '../src/index.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const SCRIPT = JSON.parse(readFileSync(path.join(ROOT, 'fixtures/runtime/scripts/conversation.json'), 'utf8')) as Script;

let bundle: Bundle;
beforeAll(async () => {
  const built = createCompiler({}).build(path.join(ROOT, 'fixtures/conversation/plugin.json'));
  if (!built.ok || !built.bundle) throw new Error(JSON.stringify(built.diagnostics));
  bundle = await loadBundle(built.bundle.bytes);
});

const runtimes: Runtime[] = [];
afterAll(async () => {
  for (const runtime of runtimes) await runtime.close();
});

/** The scripted provider, recording every request it gets. */
function recording(script: Script = SCRIPT): { provider: ModelProvider; requests: GenerationRequest[] } {
  const inner = createScriptedProvider({ script });
  const requests: GenerationRequest[] = [];
  const provider: ModelProvider = {
    parts: true,
    generate: (request, signal) => (requests.push(structuredClone(request)), inner.generate(request, signal)),
    stream: (request, signal, onText) => (requests.push(structuredClone(request)), inner.stream!(request, signal, onText)),
  };
  return { provider, requests };
}

async function chat(agent: string, options: { runtime?: RuntimeOptions; binding?: Partial<ModelBinding>; script?: Script } = {}) {
  const { provider, requests } = recording(options.script);
  const journal = createMemoryJournal();
  const runtime = createRuntime({ providers: { rec: provider }, journal, ...options.runtime });
  runtimes.push(runtime);
  const preparation = runtime.prepare(bundle, { models: { default: { provider: 'rec', ...options.binding } } });
  const { executionId } = await runtime.start(preparation, { agent });
  const events: ExecutionEvent[] = [];
  runtime.watch(executionId, (event) => events.push(event));
  /** Sends a message and waits (generous ceiling, no timing asserted) until `count` messages/routes are published. */
  const say = async (text: string, count: number) => {
    runtime.send(executionId, { parts: [{ text }] });
    for (let i = 0; i < 4_000 && published().length < count; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(published().length).toBe(count);
  };
  const published = () => runtime.inspect(executionId).publications.filter((p) => p.kind === 'message' || p.kind === 'route');
  const end = async () => {
    runtime.stop(executionId);
    return runtime.result(executionId);
  };
  return { runtime, executionId, requests, journal, events, say, end };
}

describe('RUN-14: a model with both ports keeps its context across messages and waits between answers', () => {
  it('answers each message, naming it, with the earlier exchange in the next request; ends with the last answer', async () => {
    const c = await chat('assistant');
    await c.say('hello', 1);
    // It waits: no further decision until the next message.
    expect(c.runtime.inspect(c.executionId).status).toBe('running');
    await c.say('which notes mention milk?', 2);
    const outcome = await c.end();
    expect(outcome.status).toBe('completed');
    expect(outcome).toMatchObject({ output: 'Two notes mention milk: "Buy oat milk." and "Milk the cows at six."' });
    expect(outcome.publications.map((p) => [p.kind, p.answers, p.value])).toEqual([
      ['message', 'm1', { parts: [{ text: 'Hello! Ask me anything about your notes.' }] }],
      ['progress', 'm2', { parts: [{ text: 'Let me look through your notes.' }] }],
      ['message', 'm2', { parts: [{ text: 'Two notes mention milk: "Buy oat milk." and "Milk the cows at six."' }] }],
    ]);
    const chatRequests = c.requests.filter((r) => r.routine === 'chat');
    // The second turn's first request carries the first exchange, then the new message.
    expect(chatRequests[1]!.messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'hello'],
      ['assistant', 'Hello! Ask me anything about your notes.'],
      ['user', 'which notes mention milk?'],
    ]);
    // The last request has the tool call and its result too.
    expect(chatRequests[2]!.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'tool']);
    expect(chatRequests[2]!.messages[4]).toMatchObject({ role: 'tool', name: 'notes.lookup', content: '["Buy oat milk.","Milk the cows at six."]' });
    // Messages keep native content exactly.
    expect(chatRequests[0]!.messages[0]).toMatchObject({ parts: [{ text: 'hello' }] });
    // Each turn's batch is one recorded `receive` call; the last one, after the stop, took nothing.
    const receives = outcome.calls.filter((call) => call.kind === 'receive');
    expect(receives.map((r) => (r.outcome as { output: unknown }).output)).toEqual([
      [{ id: 'm1', value: { parts: [{ text: 'hello' }] } }],
      [{ id: 'm2', value: { parts: [{ text: 'which notes mention milk?' }] } }],
      null,
    ]);
  });

  it('puts usage in every model decision: estimated when the provider reports none', async () => {
    const c = await chat('assistant');
    await c.say('hello', 1);
    const outcome = await c.end();
    const decision = outcome.calls.find((call) => call.kind === 'model' && call.name === 'chat')!;
    const usage = (decision.outcome as { output: { usage: { inputTokens: number; outputTokens: number; estimated: boolean } } }).output.usage;
    expect(usage.estimated).toBe(true);
    // One token per 4 UTF-8 bytes, rounded up: the answer is 40 bytes.
    expect(usage.outputTokens).toBe(Math.ceil(Buffer.byteLength('Hello! Ask me anything about your notes.') / 4));
    expect(usage.inputTokens).toBeGreaterThan(0);
  });

  it('replays the whole conversation: batches, decisions, tool calls and policies, without dispatching again', async () => {
    const c = await chat('assistant');
    await c.say('hello', 1);
    await c.say('which notes mention milk?', 2);
    const outcome = await c.end();
    const report = await c.runtime.replay(bundle, c.journal.entries);
    expect(report).toMatchObject({ matches: true, status: 'completed', output: outcome.status === 'completed' ? outcome.output : undefined });
  });

  it('cancelling a decision ends its turn unanswered (the provider sees the abort) and the conversation goes on', async () => {
    const signals: AbortSignal[] = [];
    const provider: ModelProvider = {
      generate: (request, signal) => {
        if (request.messages.length > 2) return Promise.resolve({ text: 'Still here.' });
        signals.push(signal);
        return new Promise(() => undefined);
      },
    };
    const journal = createMemoryJournal();
    const runtime = createRuntime({ providers: { hang: provider }, journal });
    runtimes.push(runtime);
    const preparation = runtime.prepare(bundle, { models: { default: { provider: 'hang' } } });
    const { executionId } = await runtime.start(preparation, { agent: 'desk' });
    runtime.send(executionId, { parts: [{ text: 'write me a long essay' }] });
    for (let i = 0; i < 4_000 && signals.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    const decision = runtime.inspect(executionId).calls.find((c) => c.kind === 'model' && c.status === 'pending')!;
    expect(runtime.cancel(executionId, decision.id)).toBe(true);
    expect(signals[0]!.aborted).toBe(true);
    runtime.send(executionId, { parts: [{ text: 'never mind' }] });
    for (let i = 0; i < 4_000 && runtime.inspect(executionId).publications.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    runtime.stop(executionId);
    const outcome = await runtime.result(executionId);
    expect(outcome).toMatchObject({ status: 'completed', output: 'Still here.' });
    expect(outcome.calls.find((c) => c.id === decision.id)).toMatchObject({ status: 'failed', outcome: { error: { code: 'cancelled' } } });
    expect(outcome.publications.map((p) => p.answers)).toEqual(['m2']);
    expect(await runtime.replay(bundle, journal.entries)).toMatchObject({ matches: true, output: 'Still here.' });
  });

  it('refuses media parts when the provider reads only text and data', async () => {
    const runtime = createRuntime({ providers: { plain: { generate: async () => ({ text: 'ok' }) } } });
    runtimes.push(runtime);
    const preparation = runtime.prepare(bundle, { models: { default: { provider: 'plain' } } });
    const { executionId } = await runtime.start(preparation, { agent: 'desk' });
    runtime.send(executionId, { parts: [{ mediaType: 'image/png', raw: 'iVBORw0KGgo=' }] });
    const outcome = await runtime.result(executionId);
    expect(outcome).toMatchObject({ status: 'failed', error: { code: 'unsupported-content' } });
    expect(outcome.status === 'failed' && outcome.error.message).toContain('image/png');
  });
});

describe('Streaming: answer-only requests publish as text arrives; requests that can choose tools hold their stream', () => {
  it('delivers deltas into the publication that completes them, and journals the final text only', async () => {
    const c = await chat('desk', { runtime: { stream: true }, script: { desk: [{ text: 'Happy to help with that, any time you like.' }] } });
    await c.say('hello there', 1);
    await c.end();
    const deltas = c.events.filter((e): e is Extract<ExecutionEvent, { type: 'delta' }> => e.type === 'delta');
    expect(deltas.length).toBeGreaterThan(1);
    const publication = c.events.find(
      (e): e is Extract<ExecutionEvent, { type: 'publication' }> => e.type === 'publication' && e.publication.kind === 'message',
    )!.publication;
    expect(deltas.every((d) => d.publication === publication.id)).toBe(true);
    expect(deltas.map((d) => d.text).join('')).toBe('Happy to help with that, any time you like.');
    // Deltas come before their publication, and nothing of them is journaled.
    expect(c.events.indexOf(deltas[deltas.length - 1]!)).toBeLessThan(c.events.findIndex((e) => e.type === 'publication'));
    expect(JSON.stringify(c.journal.entries)).not.toContain('delta');
    expect(c.journal.entries.filter((e) => e.type === 'publication')).toHaveLength(1);
    expect(c.events[c.events.length - 1]).toMatchObject({ type: 'end', status: 'completed', output: 'Happy to help with that, any time you like.' });
  });

  it('holds the stream of a request that can choose tools: no deltas, the answer published whole', async () => {
    const c = await chat('assistant', { runtime: { stream: true } });
    await c.say('hello', 1);
    await c.end();
    expect(c.events.filter((e) => e.type === 'delta')).toEqual([]);
    expect(c.events.some((e) => e.type === 'publication' && e.publication.kind === 'message')).toBe(true);
  });
});
