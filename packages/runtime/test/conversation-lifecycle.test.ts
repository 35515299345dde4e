import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCompiler } from '../../compiler/src/index.js';
import {
  createMemoryJournal,
  createMemorySessionStore,
  createRuntime,
  createScriptedProvider,
  loadBundle,
  PreparationError,
  type Bundle,
  type GenerationRequest,
  type JournalEntry,
  type ModelProvider,
  type Runtime,
  type RuntimeOptions,
  type Script,
} from '../src/index.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

async function bundleOf(fixture: string): Promise<Bundle> {
  const built = createCompiler({}).build(path.join(ROOT, 'fixtures', fixture, 'plugin.json'));
  if (!built.ok || !built.bundle) throw new Error(JSON.stringify(built.diagnostics));
  return loadBundle(built.bundle.bytes);
}

let bundle: Bundle;
beforeAll(async () => {
  bundle = await bundleOf('runtime/conversations');
});
const runtimes: Runtime[] = [];
afterAll(async () => {
  for (const runtime of runtimes) await runtime.close();
});

/** A runtime with a session store: the fixture's `planner` reads $.session, so every preparation needs the readers. */
function make(options: RuntimeOptions): Runtime {
  const runtime = createRuntime({ sessions: createMemorySessionStore(), ...options });
  runtimes.push(runtime);
  return runtime;
}

/** Waits (generous ceiling, no timing asserted) until `ready` holds. */
async function until(ready: () => boolean): Promise<void> {
  for (let i = 0; i < 4_000 && !ready(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(ready()).toBe(true);
}

/** A job tool the test releases by hand; it rejects when its signal aborts. */
function gatedJob() {
  const seen: { input: unknown; signal: AbortSignal }[] = [];
  let release!: () => void;
  let gate = new Promise<void>((resolve) => (release = resolve));
  const tool = async (input: unknown, context: { signal: AbortSignal }) => {
    seen.push({ input, signal: context.signal });
    await Promise.race([gate, new Promise((_, reject) => context.signal.addEventListener('abort', () => reject(new Error('aborted'))))]);
    return { done: input };
  };
  return { tool, seen, release: () => release(), reset: () => (gate = new Promise<void>((resolve) => (release = resolve))) };
}

describe('bounded model sessions (interaction: session) and $.session from the session store', () => {
  it('opens one provider session per prompt, runs tools as ordinary calls, reads $.session, and replays', async () => {
    const sessions = createMemorySessionStore();
    const opened: string[] = [];
    const scripted = createScriptedProvider({ script: { planner: [{ toolCalls: [{ name: 'lookup', input: { topic: 'tides' } }] }, { text: 'Plan ready.' }] } });
    const provider: ModelProvider = {
      generate: scripted.generate,
      session: { open: (request, signal) => (opened.push(request.instructions), scripted.session!.open(request, signal)) },
    };
    const journal = createMemoryJournal();
    const runtime = make({ providers: { live: provider }, sessions, journal, tools: { 'slow.job': () => null } });
    const preparation = runtime.prepare(bundle, {
      grants: ['runtime.session.read', 'runtime.session.state.read', 'runtime.call.read', 'runtime.call.send', 'slow.job'],
      models: { default: { provider: 'live' } },
    });
    sessions.attach('setup', 'session-a');
    sessions.writeState('session-a', 'plan', 'draft');
    sessions.writeState('session-a', 'plan', 'Check the tides, then sail.');
    const { executionId } = await runtime.start(preparation, { export: 'planner' }, 'plan the trip', { session: 'session-a' });
    const outcome = await runtime.result(executionId);
    expect(outcome).toMatchObject({ status: 'completed', output: 'Plan ready.' });
    expect(opened).toHaveLength(1);
    expect(opened[0]).toContain('You plan in the thread Main.');
    expect(opened[0]).toContain('Current plan (version 2):\n\nCheck the tides, then sail.');
    const kinds = outcome.calls.map((c) => [c.kind, c.name]);
    expect(kinds).toContainEqual(['read', 'runtime.session.read']);
    expect(kinds).toContainEqual(['read', 'runtime.session.state.read']);
    expect(outcome.calls.find((c) => c.kind === 'tool')).toMatchObject({
      name: 'lookup',
      status: 'completed',
      outcome: { output: { topic: 'tides', found: 5 } },
    });
    const decisions = outcome.calls.filter((c) => c.kind === 'model');
    expect(decisions).toHaveLength(2);
    expect(decisions[0]!.input).toMatchObject({ session: true });
    const report = await runtime.replay(bundle, journal.entries);
    expect(report).toMatchObject({ matches: true, output: 'Plan ready.' });
  });

  it('refuses at preparation a provider that opens no sessions (naming it) and continuous audio sessions', async () => {
    const runtime = make({
      providers: { plain: { generate: async () => ({ text: 'x' }) } },
      sessions: createMemorySessionStore(),
      tools: { 'slow.job': () => null },
    });
    let refused: unknown;
    try {
      runtime.prepare(bundle, {
        grants: ['runtime.session.read', 'runtime.session.state.read', 'runtime.call.read', 'runtime.call.send', 'slow.job'],
        models: { default: { provider: 'plain' } },
      });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(PreparationError);
    expect(refused).toMatchObject({
      code: 'unsupported',
      requirement: 'planner',
      message: expect.stringContaining('its provider `plain` opens no model sessions'),
    });
    expect(() => runtime.prepare(bundle, { grants: ['slow.job'], models: { default: { provider: 'scripted' } } })).toThrow(/runtime\.session\.read/);
    expect(() => runtime.prepare(bundle, { grants: ['slow.job', 'runtime.session.read', 'runtime.session.state.read'] })).toThrow(
      /without the grant `runtime\.call\.read`/,
    );
    const voice = await bundleOf('runtime/voice');
    expect(() => runtime.prepare(voice, {})).toThrow(/continuous audio sessions .* are not run by this runtime yet/);
  });

  it('a missing State key refuses before inference', async () => {
    const sessions = createMemorySessionStore();
    const runtime = make({ sessions, tools: { 'slow.job': () => null } });
    const preparation = runtime.prepare(bundle, {
      grants: ['runtime.session.read', 'runtime.session.state.read', 'runtime.call.read', 'runtime.call.send', 'slow.job'],
    });
    const { executionId } = await runtime.start(preparation, { export: 'planner' }, 'x');
    const outcome = await runtime.result(executionId);
    expect(outcome).toMatchObject({ status: 'failed', error: { code: 'missing-value', message: expect.stringContaining('Missing session State key `plan`') } });
    expect(outcome.calls.some((c) => c.kind === 'model')).toBe(false);
  });
});

describe('RUN-7: async outcomes reach their caller later', () => {
  it('a model observes the outcome of its async call before a later decision', async () => {
    const job = gatedJob();
    const requests: GenerationRequest[] = [];
    const scripted = createScriptedProvider({
      script: { dispatch: [{ toolCalls: [{ name: 'slow.job', input: { n: 7 } }] }, { text: 'Started.' }, { text: 'The job finished.' }] },
    });
    const runtime = make({
      providers: { rec: { generate: (r, s) => (requests.push(structuredClone(r)), scripted.generate(r, s)) } },
      tools: { 'slow.job': job.tool },
    });
    const preparation = runtime.prepare(bundle, {
      grants: ['slow.job', 'runtime.session.read', 'runtime.session.state.read', 'runtime.call.read', 'runtime.call.send'],
      models: { default: { provider: 'rec' }, planner: { provider: 'scripted' } },
    });
    const { executionId } = await runtime.start(preparation, { export: 'dispatch' });
    runtime.send(executionId, { parts: [{ text: 'start the job' }] });
    await until(() => runtime.inspect(executionId).publications.length === 1);
    const tool = runtime.inspect(executionId).calls.find((c) => c.kind === 'tool')!;
    expect(tool).toMatchObject({ async: true, status: 'pending' });
    job.release();
    await until(() => runtime.inspect(executionId).calls.find((c) => c.id === tool.id)!.status === 'completed');
    runtime.send(executionId, { parts: [{ text: 'is it done?' }] });
    await until(() => runtime.inspect(executionId).publications.length === 2);
    runtime.stop(executionId);
    const outcome = await runtime.result(executionId);
    expect(outcome).toMatchObject({ status: 'completed', output: 'The job finished.' });
    // The receipt answered the call at once; the outcome came as an observation in the next turn.
    expect(requests[1]!.messages.find((m) => m.role === 'tool')!.content).toBe(JSON.stringify({ callId: tool.id, executionId: null }));
    expect(requests[2]!.messages.map((m) => m.content)).toContain(`Outcome of the async call ${tool.id} (slow.job): {"done":{"n":7}}`);
    const deliveries = outcome.calls.filter((c) => c.name === 'async.outcomes');
    expect(deliveries.map((d) => (d.outcome as { output: unknown[] }).output.length)).toEqual([0, 1]);
  });

  it('code gets the correlated outcome of an async call through context.outcome(callId)', async () => {
    const runtime = make({ tools: { 'slow.job': (input) => ({ done: input }) } });
    const preparation = runtime.prepare(bundle, {
      grants: ['slow.job', 'runtime.session.read', 'runtime.session.state.read', 'runtime.call.read', 'runtime.call.send'],
    });
    const { executionId } = await runtime.start(preparation, { export: 'collect' });
    const outcome = await runtime.result(executionId);
    expect(outcome).toMatchObject({ status: 'completed', output: { receipt: 'c1.1', outcome: { done: { n: 1 } } } });
  });
});

describe('RUN-14: cancellation and continuation of a code resident', () => {
  it('runtime.cancel fails the in-flight call `cancelled`, aborts its signal, and the resident returns to receive()', async () => {
    const job = gatedJob();
    const runtime = make({ tools: { 'slow.job': job.tool } });
    const preparation = runtime.prepare(bundle, {
      grants: ['slow.job', 'runtime.session.read', 'runtime.session.state.read', 'runtime.call.read', 'runtime.call.send'],
    });
    const { executionId } = await runtime.start(preparation, { export: 'resident' });
    runtime.send(executionId, { n: 1 });
    await until(() => job.seen.length === 1);
    const call = runtime.inspect(executionId).calls.find((c) => c.kind === 'tool')!;
    expect(runtime.cancel(executionId, call.id)).toBe(true);
    await until(() => runtime.inspect(executionId).publications.length === 1);
    expect(job.seen[0]!.signal.aborted).toBe(true);
    expect(runtime.inspect(executionId).publications[0]).toMatchObject({ kind: 'notice', value: { cancelled: 'cancelled' } });
    expect(runtime.cancel(executionId, call.id)).toBe(false);
    job.release();
    runtime.send(executionId, { n: 2 });
    await until(() => runtime.inspect(executionId).publications.length === 2);
    runtime.stop(executionId);
    const outcome = await runtime.result(executionId);
    expect(outcome).toMatchObject({ status: 'completed', output: { done: 1 } });
    expect(outcome.calls.find((c) => c.id === call.id)).toMatchObject({ status: 'failed', outcome: { error: { code: 'cancelled' } } });
  });

  async function stoppedResident() {
    const journal = createMemoryJournal();
    const calls: unknown[] = [];
    const runtime = make({ journal, tools: { 'slow.job': (input) => (calls.push(input), { done: input }) } });
    const preparation = runtime.prepare(bundle, {
      grants: ['slow.job', 'runtime.session.read', 'runtime.session.state.read', 'runtime.call.read', 'runtime.call.send'],
    });
    const { executionId } = await runtime.start(preparation, { export: 'resident' });
    runtime.send(executionId, { n: 1 });
    await until(() => runtime.inspect(executionId).publications.length === 1);
    runtime.stop(executionId);
    expect(await runtime.result(executionId)).toMatchObject({ status: 'completed', output: { done: 1 } });
    return { runtime, preparation, journal, calls };
  }

  it('continues after stop: the original calls are replayed, not dispatched again, and fresh input goes on', async () => {
    const { runtime, preparation, journal, calls } = await stoppedResident();
    const { executionId } = await runtime.continue(preparation, journal.entries);
    runtime.send(executionId, { n: 2 });
    await until(() => runtime.inspect(executionId).publications.length === 2);
    runtime.stop(executionId);
    const outcome = await runtime.result(executionId);
    expect(outcome).toMatchObject({ status: 'completed', output: { done: 2 } });
    expect(calls).toEqual([{ n: 1 }, { n: 2 }]);
    const header = runtime.journal(executionId)[0] as Extract<JournalEntry, { type: 'execution' }>;
    expect(header.continues).toBe(journal.entries[0]!.executionId);
    // New messages are numbered after the continued ones.
    expect(
      runtime
        .journal(executionId)
        .filter((e) => e.type === 'message')
        .map((e) => e.id),
    ).toEqual(['m2']);
    // The continued execution's journal replays on its own.
    const report = await runtime.replay(bundle, journal.entries);
    expect(report).toMatchObject({ matches: true, output: { done: 2 } });
  });

  it('refuses to continue when an original outcome is missing', async () => {
    const { runtime, preparation, journal } = await stoppedResident();
    const tool = journal.entries.find((e) => e.type === 'call' && e.kind === 'tool')!;
    const cut = journal.entries.filter((e) => !(e.type === 'outcome' && e.id === (tool as { id: string }).id));
    const { executionId } = await runtime.continue(preparation, cut);
    const outcome = await runtime.result(executionId);
    expect(outcome).toMatchObject({ status: 'failed', error: { code: 'replay-missing-outcome' } });
  });
});

describe('Context management: compaction, default management, configure, route', () => {
  let conversation: Bundle;
  beforeAll(async () => {
    conversation = await bundleOf('conversation');
  });
  const long = (n: number) => `${n}: ${'a long message about the tides and the boats '.repeat(16)}`;

  async function talk(agent: string, binding: Record<string, unknown>, messages: string[], script: Script, sessions = createMemorySessionStore()) {
    const requests: GenerationRequest[] = [];
    const scripted = createScriptedProvider({ script });
    const journal = createMemoryJournal();
    const runtime = make({ providers: { rec: { generate: (r, s) => (requests.push(structuredClone(r)), scripted.generate(r, s)) } }, journal, sessions });
    const preparation = runtime.prepare(conversation, { models: { default: { provider: 'rec', ...binding } } });
    const { executionId } = await runtime.start(preparation, { agent });
    for (const [i, text] of messages.entries()) {
      runtime.send(executionId, { parts: [{ text }] });
      await until(
        () =>
          runtime.inspect(executionId).status !== 'running' ||
          runtime.inspect(executionId).publications.filter((p) => p.kind === 'message' || p.kind === 'route').length === i + 1,
      );
    }
    runtime.stop(executionId);
    const outcome = await runtime.result(executionId);
    return { outcome, requests, journal, runtime, executionId, sessions };
  }

  it('compaction: past max_tokens the older turns go to the summary routine and its text replaces them', async () => {
    const { outcome, requests, journal, runtime } = await talk('assistant', {}, [long(1), long(2), long(3)], {
      chat: [{ text: 'Noted.' }],
      'chat.summary': [{ text: 'They talked about tides.' }],
    });
    expect(outcome.status).toBe('completed');
    const compactions = outcome.calls.filter((c) => c.kind === 'compaction');
    expect(compactions.map((c) => c.name)).toEqual(['chat.summary']);
    expect((compactions[0]!.input as { messages: { role: string; text: string }[] }).messages.map((m) => [m.role, m.text])).toEqual([
      ['user', long(1)],
      ['assistant', 'Noted.'],
    ]);
    const last = requests.filter((r) => r.routine === 'chat').at(-1)!;
    expect(last.messages.map((m) => m.content)).toEqual(['Summary of the earlier conversation: They talked about tides.', long(2), 'Noted.', long(3)]);
    expect(await runtime.replay(conversation, journal.entries)).toMatchObject({ matches: true });
  });

  it('default management drops the oldest turns to fit context_length, recording a notice; a turn that cannot fit fails', async () => {
    const { outcome, requests } = await talk('desk', { context_length: 250 }, [long(1), long(2), long(3)], { desk: [{ text: 'Sure.' }] });
    expect(outcome.status).toBe('completed');
    const notices = outcome.calls.filter((c) => c.kind === 'compaction');
    expect(notices.every((n) => n.name === 'runtime.context.drop')).toBe(true);
    expect(notices.length).toBeGreaterThan(0);
    const last = requests.at(-1)!;
    expect(last.messages[0]!.content).not.toBe(long(1));
    expect(last.messages.map((m) => m.content)).toContain(long(3));
    const tight = await talk('desk', { context_length: 20 }, [long(1)], { desk: [{ text: 'Sure.' }] });
    expect(tight.outcome).toMatchObject({ status: 'failed', error: { code: 'context-exceeded' } });
  });

  it('configure sets fields for each decision only, and is checked against the settings schema', async () => {
    const { outcome, requests } = await talk('assistant', {}, ['one', 'two', 'three'], { chat: [{ text: 'ok' }] });
    expect(outcome.status).toBe('completed');
    expect(requests.filter((r) => r.routine === 'chat').map((r) => r.settings['temperature'])).toEqual([0.7, 0.7, 0.2]);
    expect(outcome.calls.filter((c) => c.kind === 'configure').map((c) => c.name)).toEqual(['chat.tune', 'chat.tune', 'chat.tune']);
    const strict = await talk('assistant', { settings: { type: 'object', properties: { temperature: { maximum: 0.5 } } } }, ['one'], {
      chat: [{ text: 'ok' }],
    });
    expect(strict.outcome).toMatchObject({ status: 'failed', error: { code: 'invalid-configuration' } });
  });

  it('route: a thread route publishes `route` and keeps the messages from this model; another output passes its notice on', async () => {
    const { outcome, requests, sessions, executionId } = await talk('desk', {}, ['hello', 'my invoice is wrong'], { desk: [{ text: 'Hi!' }] });
    expect(outcome.status).toBe('completed');
    expect(outcome.publications.map((p) => [p.kind, p.answers])).toEqual([
      ['message', 'm1'],
      ['route', 'm2'],
    ]);
    expect(requests).toHaveLength(1);
    expect(requests[0]!.messages.map((m) => m.content)).toEqual(['hello', 'Routing notice: General question: answer it here.']);
    expect(outcome.calls.filter((c) => c.kind === 'route').map((c) => c.input)).toEqual([
      { messages: [{ id: 'm1', text: 'hello', content: { parts: [{ text: 'hello' }] } }] },
      { messages: [{ id: 'm2', text: 'my invoice is wrong', content: { parts: [{ text: 'my invoice is wrong' }] } }] },
    ]);
    expect(sessions.read(executionId).threads.map((t) => t.id)).toEqual(['main', 'billing']);
  });
});
