import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createFileJournal,
  createRuntime,
  createScriptedProvider,
  parseJournal,
  readJournal,
  type JournalEntry,
  type ModelProvider,
  type Outcome,
  type Script,
} from '../src/index.js';
import { bundleOf } from '../../../test/support/runtime.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const tmp = mkdtempSync(path.join(os.tmpdir(), 'berrypack-journal-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const GRANTS = ['weather.get', 'runtime.context.read', 'runtime.user.profile.read', 'runtime.ui.publish'];
const WEATHER: Script = { 'ask.weather': [{ toolCalls: [{ name: 'weather.get', input: { city: 'Oslo' } }] }, { output: { summary: 'Clear in Oslo' } }] };

/** A runtime whose provider and tools count every dispatch. */
function counting(script: Script, options: { journal?: string } = {}) {
  const counts = { model: 0, weather: 0 };
  const inner = createScriptedProvider({ script });
  const provider: ModelProvider = {
    generate(request, signal) {
      counts.model++;
      return inner.generate(request, signal);
    },
    classify(request, signal) {
      counts.model++;
      return inner.classify!(request, signal);
    },
  };
  const runtime = createRuntime({
    providers: { counted: provider },
    defaultModel: { provider: 'counted' },
    tools: {
      'weather.get': () => {
        counts.weather++;
        return { sky: 'clear' };
      },
      'runtime.user.profile.read': () => ({ name: 'Ada' }),
    },
    ...(options.journal ? { journal: createFileJournal(options.journal) } : {}),
  });
  return { runtime, counts };
}

async function recordWeather(options: { journal?: string } = {}) {
  const { runtime, counts } = counting(WEATHER, options);
  const bundle = await bundleOf('runtime/models');
  const preparation = runtime.prepare(bundle, { grants: GRANTS, env: { REGION: 'eu', TOKEN: 't' } });
  const { executionId } = await runtime.start(preparation, { agent: 'weather' }, { city: 'Oslo' });
  const outcome = await runtime.result(executionId);
  return { runtime, counts, bundle, outcome, entries: [...runtime.journal(executionId)] };
}

const outputOf = (outcome: Outcome): unknown => (outcome.status === 'completed' ? outcome.output : outcome.error);

/** What may differ between two runs: the execution id and host timestamps. */
/**
 * Journal lines are appended as things happen, so the lines of calls running concurrently
 * interleave in completion order; what two runs must share is the same entries per call id.
 */
function comparable(entries: readonly JournalEntry[]): unknown[] {
  const key = (e: Record<string, unknown>) => `${String(e['id'] ?? '')}\u0000${e['type'] === 'call' ? 0 : 1}\u0000${String(e['type'])}`;
  return [...entries]
    .sort((a, b) => (key(a as never) < key(b as never) ? -1 : key(a as never) > key(b as never) ? 1 : 0))
    .map((entry) => {
      const copy = JSON.parse(JSON.stringify(entry)) as Record<string, unknown>;
      delete copy['executionId'];
      delete copy['at'];
      delete copy['epochMs'];
      if (copy['clock']) delete (copy['clock'] as Record<string, unknown>)['epochMs'];
      return copy;
    });
}

describe('RUN-5: every call is recorded; pure code replays with recorded outcomes without dispatching again', () => {
  it('records each call with id, parent, kind, name, status, input and outcome, in admission order', async () => {
    const { outcome, entries } = await recordWeather();
    expect(outcome.calls).toEqual([
      {
        id: 'c1',
        parent: null,
        kind: 'entry',
        name: 'ask.weather',
        status: 'completed',
        input: { city: 'Oslo' },
        outcome: { output: { summary: 'Clear in Oslo' } },
      },
      expect.objectContaining({ id: 'c1.1', parent: 'c1', kind: 'model', name: 'ask.weather', status: 'completed' }),
      { id: 'c1.2', parent: 'c1', kind: 'tool', name: 'weather.get', status: 'completed', input: { city: 'Oslo' }, outcome: { output: { sky: 'clear' } } },
      expect.objectContaining({ id: 'c1.3', parent: 'c1', kind: 'model', name: 'ask.weather', status: 'completed' }),
    ]);
    expect(entries.map((e) => e.type)).toEqual(['execution', 'call', 'call', 'outcome', 'call', 'outcome', 'call', 'outcome', 'outcome', 'end']);
  });

  it('gives identical outputs and journals for the same input and script, apart from the execution id and timestamps', async () => {
    const first = await recordWeather();
    const second = await recordWeather();
    expect(second.outcome.executionId).not.toBe(first.outcome.executionId);
    expect(outputOf(second.outcome)).toEqual(outputOf(first.outcome));
    expect(comparable(second.entries)).toEqual(comparable(first.entries));
  });

  it('replays from the journal with the recorded outcomes, dispatching no model decision and no tool again', async () => {
    const recorded = await recordWeather();
    const { runtime, counts } = counting({});
    const report = await runtime.replay(recorded.bundle, recorded.entries);
    expect(report).toMatchObject({ replayOf: recorded.outcome.executionId, matches: true, status: 'completed', output: { summary: 'Clear in Oslo' } });
    expect(report).not.toHaveProperty('divergence');
    expect(counts).toEqual({ model: 0, weather: 0 });
    expect(report.calls).toEqual(recorded.outcome.calls);
  });

  it('reports a different call at the same position as a non-determinism error naming both calls', async () => {
    const recorded = await recordWeather();
    const edited = recorded.entries.map((e) => (e.type === 'call' && e.id === 'c1.2' ? { ...e, input: { city: 'Bergen' } } : e));
    const { runtime, counts } = counting({});
    const report = await runtime.replay(recorded.bundle, edited);
    expect(report.matches).toBe(false);
    expect(report.error).toEqual({
      code: 'non-determinism',
      message:
        'Unexpected call c1.2 tool `weather.get` with input {"city":"Oslo"} in the replay, expected tool `weather.get` with input {"city":"Bergen"} as recorded',
    });
    expect(report.divergence).toMatchObject({
      at: 'c1.2',
      recorded: { name: 'weather.get', input: { city: 'Bergen' } },
      replayed: { name: 'weather.get', input: { city: 'Oslo' } },
    });
    expect(counts.weather).toBe(0);
  });

  it('refuses to continue past a recorded call whose outcome is missing, without dispatching it', async () => {
    const recorded = await recordWeather();
    // A crash after admitting the tool call: its outcome and everything after it never reached the journal.
    const cut = recorded.entries.findIndex((e) => e.type === 'outcome' && e.id === 'c1.2');
    const { runtime, counts } = counting({});
    const report = await runtime.replay(recorded.bundle, recorded.entries.slice(0, cut));
    expect(report).toMatchObject({ matches: false, status: 'failed', error: { code: 'replay-missing-outcome' } });
    expect(report.error!.message).toBe(
      'Missing the recorded outcome of call c1.2, expected one to continue: the original call may have taken effect, so it is not dispatched again',
    );
    expect(counts.weather).toBe(0);
  });

  it('refuses a journal recorded with another bundle', async () => {
    const recorded = await recordWeather();
    const { runtime } = counting({});
    await expect(runtime.replay(await bundleOf('runtime/agents'), recorded.entries)).rejects.toMatchObject({ code: 'bundle-mismatch' });
  });

  it('writes a JSONL journal file whose torn last line is tolerated on read', async () => {
    const file = path.join(tmp, 'weather.jsonl');
    const recorded = await recordWeather({ journal: file });
    expect(readJournal(file)).toEqual(recorded.entries);
    appendFileSync(file, '{"type":"call","executionId":"exec-');
    expect(readJournal(file)).toEqual(recorded.entries);
    const { runtime } = counting({});
    expect((await runtime.replay(recorded.bundle, readJournal(file))).matches).toBe(true);
    const lines = readFileSync(file, 'utf8').split('\n');
    writeFileSync(file, [lines[0], 'not json', ...lines.slice(1)].join('\n'));
    expect(() => readJournal(file)).toThrow('Unexpected line 2 that is not JSON, expected one journal entry per line');
    expect(parseJournal('')).toEqual([]);
  });
});

describe('RUN-5 with code routines: the notebook agent', () => {
  const script = JSON.parse(readFileSync(path.join(ROOT, 'fixtures/runtime/scripts/notebook.json'), 'utf8')) as Script;

  async function converse() {
    const { runtime, counts } = counting(script);
    const bundle = await bundleOf('notebook');
    const preparation = runtime.prepare(bundle);
    const { executionId } = await runtime.start(preparation, { agent: 'notebook' }, { message: 'Note: buy oat milk. Which notes mention milk?' });
    const outcome = await runtime.result(executionId);
    await runtime.close();
    return { bundle, outcome, entries: [...runtime.journal(executionId)], counts };
  }

  it('runs twice to identical outputs and journals (code clock and seed included)', async () => {
    const first = await converse();
    const second = await converse();
    expect(first.outcome.status).toBe('completed');
    expect(first.outcome.calls.map((c) => `${c.id} ${c.kind} ${c.name}`)).toEqual(
      expect.arrayContaining(['c1.2 tool notes.compose', 'c1.2.2 next notes.count', 'c1.3 tool search.answer', 'c1.3.2 tool search.rank']),
    );
    expect(outputOf(second.outcome)).toEqual(outputOf(first.outcome));
    expect(comparable(second.entries)).toEqual(comparable(first.entries));
  });

  it('replays the code routines for real and serves every model decision from the journal', async () => {
    const recorded = await converse();
    const { runtime, counts } = counting({});
    const report = await runtime.replay(recorded.bundle, recorded.entries);
    await runtime.close();
    expect(report).toMatchObject({ matches: true, status: 'completed', output: recorded.outcome.status === 'completed' ? recorded.outcome.output : undefined });
    expect(counts.model).toBe(0);
  });
});
