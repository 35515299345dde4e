import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCompiler } from '../../compiler/src/index.js';
import { Replayer } from '../src/replay/replayer.js';
import {
  createMemoryJournal,
  createRuntime,
  createScriptedProvider,
  loadBundle,
  type Bundle,
  type JournalEntry,
  type ModelProvider,
  type ReplayReport,
  type Script,
} from '../src/index.js';

/**
 * RUN-5: a journal cut short by a crash (no `end` entry for the execution) replays up to where
 * it ends and reports `incomplete-recording`, never `non-determinism`, unless the replay really
 * diverged before the cut (docs/runtime.md, "Replay").
 */

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const SCHEMA = 'https://agent-plugins.org/schemas/1.0.0/plugin.schema.json';
const tmp = mkdtempSync(path.join(os.tmpdir(), 'berrypack-replay-cut-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function build(dir: string): Promise<Bundle> {
  const built = createCompiler({ store: path.join(tmp, 'store') }).build(path.join(dir, 'plugin.json'));
  if (!built.ok || !built.bundle) throw new Error(JSON.stringify(built.diagnostics));
  return loadBundle(built.bundle.bytes);
}

/** A code routine that calls its code leaf five times in turn: every call re-runs in a replay. */
async function chainBundle(): Promise<Bundle> {
  const dir = path.join(tmp, 'chain');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'plugin.json'),
    JSON.stringify({ $schema: SCHEMA, name: 'cut.chain', version: '1', extensions: { 'ai.strawberry.berry': { exports: ['chain'] } } }),
  );
  writeFileSync(
    path.join(dir, 'chain.md'),
    '---\nname: chain\ndescription: Calls its leaf five times.\nlanguage: javascript\ntools:\n  - leaf\n---\nexport default async (input, tools) => {\n  let total = 0;\n  for (let i = 1; i <= 5; i++) total += await tools.leaf(i);\n  return total;\n};\n',
  );
  writeFileSync(path.join(dir, 'leaf.md'), '---\nname: leaf\ndescription: Echoes.\nlanguage: javascript\n---\nexport default (input) => input;\n');
  return build(dir);
}

async function record(
  bundle: Bundle,
  run: (runtime: ReturnType<typeof createRuntime>) => Promise<string>,
  options: Parameters<typeof createRuntime>[0] = {},
): Promise<JournalEntry[]> {
  const journal = createMemoryJournal();
  const runtime = createRuntime({ ...options, journal });
  const executionId = await run(runtime);
  expect((await runtime.result(executionId)).status).toBe('completed');
  await runtime.close();
  return [...journal.entries];
}

const cutAt = (entries: readonly JournalEntry[], type: JournalEntry['type'], id?: string): number => {
  const index = entries.findIndex((e) => e.type === type && (id === undefined || ('id' in e && e.id === id)));
  expect(index).toBeGreaterThanOrEqual(0);
  return index + 1;
};

describe('RUN-5: replaying a journal cut short (code routines, re-run for real)', () => {
  let bundle: Bundle;
  let entries: JournalEntry[];
  const runtime = createRuntime();
  afterAll(() => runtime.close());

  beforeAll(async () => {
    bundle = await chainBundle();
    entries = await record(bundle, async (rt) => (await rt.start(rt.prepare(bundle), { export: 'chain' })).executionId);
  });

  it('still matches a complete journal, with no `incomplete` in the report', async () => {
    expect(entries.at(-1)).toMatchObject({ type: 'end', status: 'completed', output: 15 });
    const report = await runtime.replay(bundle, entries);
    expect(report).toMatchObject({ matches: true, status: 'completed', output: 15 });
    expect(report).not.toHaveProperty('incomplete');
    expect(report).not.toHaveProperty('error');
  });

  it('reports every cut as incomplete-recording, never as non-determinism, and says that everything up to it matched', async () => {
    for (let n = 1; n < entries.length; n++) {
      const report = await runtime.replay(bundle, entries.slice(0, n));
      expect(report.matches, `cut after entry ${n}`).toBe(false);
      expect(report.error?.code, `cut after entry ${n}: ${report.error?.message}`).toBe('incomplete-recording');
      expect(report).not.toHaveProperty('divergence');
      expect(report.incomplete).toMatchObject({ endsAfter: n, matched: true });
      expect(report.error!.message).toBe(report.incomplete!.message);
      expect(report.error!.message).toMatch(
        new RegExp(
          `^Missing the end of the recording of ${report.replayOf}: it ends after entry ${n} \\(.+\\) without an \`end\` entry, expected one \\(the run was cut short, by a crash or a kill\\); `,
        ),
      );
    }
  });

  it('stops at the first call past the end: after the execution entry, after the first call, mid-way', async () => {
    const header = await runtime.replay(bundle, entries.slice(0, 1));
    expect(header).toMatchObject({
      status: 'failed',
      incomplete: { endsAfter: 1, last: { type: 'execution' }, matched: true, beyond: { at: 'c1', kind: 'entry' } },
    });
    expect(header.error!.message).toContain('(the execution entry)');
    expect(header.error!.message).toContain('; the recording has no call, and the replay stopped at call c1 entry `');
    expect(header.calls).toEqual([]);

    // Right after the entry call's admission: the replay re-runs the chain up to its first leaf call.
    const first = await runtime.replay(bundle, entries.slice(0, cutAt(entries, 'call', 'c1')));
    expect(first).toMatchObject({ status: 'failed', incomplete: { last: { type: 'call', call: 'c1' }, beyond: { at: 'c1.1', kind: 'tool' } } });
    expect(first.error!.message).toContain('(the admission of call c1 entry `');

    // After the first leaf's admission, before its outcome: the leaf re-runs, the replay stops at the second.
    const admitted = await runtime.replay(bundle, entries.slice(0, cutAt(entries, 'call', 'c1.1')));
    expect(admitted.incomplete).toMatchObject({ last: { type: 'call', call: 'c1.1' }, matched: true, beyond: { at: 'c1.2' } });
    expect(admitted.calls.find((c) => c.id === 'c1.1')).toMatchObject({ status: 'completed', outcome: { output: 1 } });

    const midway = await runtime.replay(bundle, entries.slice(0, cutAt(entries, 'outcome', 'c1.3')));
    expect(midway.incomplete).toMatchObject({ last: { type: 'outcome', call: 'c1.3' }, matched: true, beyond: { at: 'c1.4', kind: 'tool', input: 4 } });
    expect(midway.error!.message).toContain('(the outcome of call c1.3) without an `end` entry');
    expect(midway.error!.message).toContain('; every recorded call up to there matched, and the replay stopped at call c1.4 tool `');
    expect(midway.error!.message).toContain('`, which the recording does not have');
    // The replay never made the call past the end: c1.4 is not among its calls.
    expect(midway.calls.map((c) => c.id)).toEqual(['c1', 'c1.1', 'c1.2', 'c1.3']);
    expect(midway.calls[0]).toMatchObject({ status: 'failed', outcome: { error: { code: 'incomplete-recording' } } });
  });

  it('reports a cut right before the `end` entry as incomplete although the replay completed', async () => {
    const report = await runtime.replay(bundle, entries.slice(0, -1));
    expect(report).toMatchObject({
      matches: false,
      status: 'completed',
      output: 15,
      error: { code: 'incomplete-recording' },
      incomplete: { endsAfter: entries.length - 1, last: { type: 'outcome', call: 'c1' }, matched: true },
    });
    expect(report.incomplete).not.toHaveProperty('beyond');
    expect(report.error!.message).toMatch(/; every recorded call up to there matched, and the replay completed without making another call$/);
  });

  it('still reports a divergence before the cut as non-determinism: a different input, a different outcome', async () => {
    const cut = cutAt(entries, 'outcome', 'c1.4');
    const input = entries.slice(0, cut).map((e) => (e.type === 'call' && e.id === 'c1.2' ? { ...e, input: 42 } : e));
    const byInput = await runtime.replay(bundle, input);
    expect(byInput).toMatchObject({
      matches: false,
      status: 'failed',
      error: { code: 'non-determinism' },
      divergence: { at: 'c1.2', recorded: { input: 42 }, replayed: { input: 2 } },
    });
    expect(byInput.incomplete).toMatchObject({ endsAfter: cut, matched: false });
    expect(byInput.incomplete).not.toHaveProperty('beyond');
    expect(byInput.incomplete!.message).toMatch(/; the replay diverged before that, at c1\.2$/);

    const output = entries.slice(0, cut).map((e) => (e.type === 'outcome' && e.id === 'c1.3' ? { ...e, output: 99 } : e));
    const byOutcome = await runtime.replay(bundle, output);
    expect(byOutcome).toMatchObject({ matches: false, error: { code: 'non-determinism' }, divergence: { at: 'c1.3' }, incomplete: { matched: false } });
    expect(byOutcome.error!.message).toBe(
      'Unexpected outcome {"output":3,"status":"completed"} of call c1.3 `' +
        byOutcome.divergence!.recorded!.name +
        '` in the replay, expected {"output":99,"status":"completed"} as recorded',
    );
  });

  it('does not take a call the recording lacks for the cut when the recording shows it would be there', async () => {
    // A later call of the same parent is recorded: a crash cannot have lost this one.
    const gap = entries.slice(0, cutAt(entries, 'outcome', 'c1.4')).filter((e) => !('id' in e && e.id === 'c1.3'));
    const report = await runtime.replay(bundle, gap);
    expect(report).toMatchObject({ error: { code: 'non-determinism' }, divergence: { at: 'c1.3' }, incomplete: { matched: false } });
    expect(report.error!.message).toMatch(/^Unexpected call c1\.3 tool `.+` in the replay, expected no call at that position \(the recording has none\)$/);

    // The parent's outcome is recorded: it made all its calls before the cut.
    const finished = entries.slice(0, -1).filter((e) => !('id' in e && e.id === 'c1.5'));
    const after = await runtime.replay(bundle, finished);
    expect(after).toMatchObject({ error: { code: 'non-determinism' }, divergence: { at: 'c1.5' }, incomplete: { matched: false } });
  });
});

describe('RUN-5: replaying a journal cut short (served model decisions and tools)', () => {
  const GRANTS = ['weather.get', 'runtime.context.read', 'runtime.user.profile.read', 'runtime.ui.publish'];
  const WEATHER: Script = { 'ask.weather': [{ toolCalls: [{ name: 'weather.get', input: { city: 'Oslo' } }] }, { output: { summary: 'Clear in Oslo' } }] };
  let bundle: Bundle;
  let entries: JournalEntry[];

  beforeAll(async () => {
    const built = createCompiler({}).build(path.join(ROOT, 'fixtures', 'runtime', 'models', 'plugin.json'));
    if (!built.ok || !built.bundle) throw new Error(JSON.stringify(built.diagnostics));
    bundle = await loadBundle(built.bundle.bytes);
    entries = await record(
      bundle,
      async (rt) =>
        (await rt.start(rt.prepare(bundle, { grants: GRANTS, env: { REGION: 'eu', TOKEN: 't' } }), { agent: 'weather' }, { city: 'Oslo' })).executionId,
      {
        providers: { scripted: createScriptedProvider({ script: WEATHER }) },
        defaultModel: { provider: 'scripted' },
        tools: { 'weather.get': () => ({ sky: 'clear' }), 'runtime.user.profile.read': () => ({ name: 'Ada' }) },
      },
    );
  });

  it('replays every cut to incomplete-recording or, at a call without its outcome, replay-missing-outcome, dispatching nothing', async () => {
    expect(entries.map((e) => (e.type === 'call' || e.type === 'outcome' ? `${e.type} ${e.id}` : e.type))).toEqual([
      'execution',
      'call c1',
      'call c1.1',
      'outcome c1.1',
      'call c1.2',
      'outcome c1.2',
      'call c1.3',
      'outcome c1.3',
      'outcome c1',
      'end',
    ]);
    const dispatched = { model: 0, tool: 0 };
    const refuse = (): Promise<never> => {
      dispatched.model++;
      return Promise.reject(new Error('dispatched'));
    };
    const provider: ModelProvider = { generate: refuse, classify: refuse };
    const tool = (): unknown => {
      dispatched.tool++;
      return {};
    };
    const runtime = createRuntime({ providers: { scripted: provider }, tools: { 'weather.get': tool } });
    const answers: string[] = [];
    const reports: ReplayReport[] = [];
    for (let n = 1; n <= entries.length; n++) {
      const report = await runtime.replay(bundle, entries.slice(0, n));
      reports.push(report);
      answers.push(report.matches ? 'matches' : `${report.error?.code}${report.incomplete?.beyond ? ` beyond ${report.incomplete.beyond.at}` : ''}`);
      if (n < entries.length) expect(report.incomplete, `cut after entry ${n}`).toMatchObject({ endsAfter: n, matched: true });
      expect(report).not.toHaveProperty('divergence');
    }
    await runtime.close();
    expect(answers).toEqual([
      'incomplete-recording beyond c1',
      'incomplete-recording beyond c1.1',
      'replay-missing-outcome',
      'incomplete-recording beyond c1.2',
      'replay-missing-outcome',
      'incomplete-recording beyond c1.3',
      'replay-missing-outcome',
      'incomplete-recording',
      'incomplete-recording',
      'matches',
    ]);
    expect(dispatched).toEqual({ model: 0, tool: 0 });
    // A missing outcome keeps its own, more specific refusal; the report says the recording is incomplete too.
    expect(reports[4]!.error!.message).toBe(
      'Missing the recorded outcome of call c1.2, expected one to continue: the original call may have taken effect, so it is not dispatched again',
    );
    expect(reports[4]!.incomplete!.message).toMatch(
      /; every recorded call up to there matched, and the replay stopped at call c1\.2, whose outcome is not recorded$/,
    );
    expect(reports[3]!.incomplete!.beyond).toEqual({ at: 'c1.2', kind: 'tool', name: 'weather.get', input: { city: 'Oslo' } });
    expect(reports[7]).toMatchObject({ status: 'completed', output: { summary: 'Clear in Oslo' }, error: { code: 'incomplete-recording' } });
    expect(reports[9]).not.toHaveProperty('incomplete');
  });

  it('still reports a different tool input before the cut as non-determinism', async () => {
    const runtime = createRuntime({ providers: { scripted: createScriptedProvider({ script: {} }) } });
    const edited = entries
      .slice(0, cutAt(entries, 'outcome', 'c1.3'))
      .map((e) => (e.type === 'call' && e.id === 'c1.2' ? { ...e, input: { city: 'Bergen' } } : e));
    const report = await runtime.replay(bundle, edited);
    await runtime.close();
    expect(report).toMatchObject({ matches: false, error: { code: 'non-determinism' }, divergence: { at: 'c1.2' }, incomplete: { matched: false } });
  });
});

describe('Replayer: where an incomplete recording ends', () => {
  const at = '2030-01-01T00:00:00.000Z';
  const header: JournalEntry = {
    type: 'execution',
    executionId: 'e',
    bundle: 'b',
    target: { export: 'x' },
    routine: 'x',
    grants: [],
    env: {},
    models: {},
    epochMs: 0,
    at,
  };
  const call = (id: string, parent: string | null, name = 'leaf'): JournalEntry & { type: 'call' } => ({
    type: 'call',
    executionId: 'e',
    id,
    parent,
    kind: 'tool',
    name,
    at,
  });
  const outcome = (id: string, output: unknown): JournalEntry => ({ type: 'outcome', executionId: 'e', id, status: 'completed', output, at });

  it('stops a branch that goes past the end before another reached a recorded call, and says which call was not reached', () => {
    // Two concurrent branches: the recording got to c1.2.1, the replay's c1.1 branch runs ahead.
    const recorded = [header, call('c1', null, 'x'), call('c1.1', 'c1', 'a'), call('c1.2', 'c1', 'b'), call('c1.2.1', 'c1.2')];
    const replayer = new Replayer(recorded, { endsAfter: recorded.length, last: recorded.at(-1)! });
    for (const entry of recorded.slice(1, 4)) replayer.admit(entry as never);
    expect(() => replayer.admit(call('c1.1.1', 'c1.1') as never)).toThrow(
      /^Missing the end of the recording of e: it ends after entry 5 \(the admission of call c1\.2\.1 tool `leaf`\)/,
    );
    // Calls that settle as the replay unwinds are not compared any more.
    replayer.settled({
      id: 'c1.2',
      parent: 'c1',
      kind: 'tool',
      name: 'b',
      status: 'failed',
      outcome: { error: { code: 'incomplete-recording', message: '' } },
    });
    replayer.finish({ status: 'failed', error: { code: 'incomplete-recording', message: '' } });
    expect(replayer.divergence).toBeUndefined();
    expect(replayer.incomplete).toMatchObject({
      endsAfter: 5,
      last: { type: 'call', call: 'c1.2.1' },
      matched: false,
      beyond: { at: 'c1.1.1', kind: 'tool', name: 'leaf' },
    });
    expect(replayer.incomplete!.message).toMatch(
      /; every call the replay made matched, but the replay stopped at call c1\.1\.1 tool `leaf`, which the recording does not have, before it made the recorded call c1\.2\.1 \(concurrent calls may be admitted in another order\)$/,
    );
  });

  it('still compares outcomes and reports calls never made when the replay ends within the recording', () => {
    const recorded = [header, call('c1', null, 'x'), call('c1.1', 'c1'), outcome('c1.1', 1), call('c1.2', 'c1')];
    const replayer = new Replayer(recorded, { endsAfter: recorded.length, last: recorded.at(-1)! });
    replayer.admit(recorded[1] as never);
    replayer.admit(recorded[2] as never);
    replayer.settled({ id: 'c1.1', parent: 'c1', kind: 'tool', name: 'leaf', status: 'completed', outcome: { output: 1 } });
    replayer.finish({ status: 'completed' });
    expect(replayer.divergence).toMatchObject({ at: 'c1.2', message: 'Missing call c1.2 tool `leaf` in the replay, expected it as recorded' });
    expect(replayer.incomplete).toMatchObject({ matched: false });
  });

  it('leaves a complete recording alone', () => {
    const recorded = [header, call('c1', null, 'x'), outcome('c1', 1), { type: 'end', executionId: 'e', status: 'completed', output: 1, at } as JournalEntry];
    const replayer = new Replayer(recorded);
    replayer.admit(recorded[1] as never);
    expect(() => replayer.admit(call('c1.1', 'c1') as never)).toThrow(/^Unexpected call c1\.1 tool `leaf` in the replay, expected no call at that position/);
    replayer.finish({ status: 'failed' });
    expect(replayer.incomplete).toBeUndefined();
  });
});
