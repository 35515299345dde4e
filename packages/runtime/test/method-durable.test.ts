import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  confirmStep,
  methodStatus,
  readMethodRun,
  resumeMethod,
  runMethod,
  type CompiledMethod,
  type JudgeRequest,
  type MethodJudge,
  type StepRequest,
  type StepResult,
} from '../src/index.js';
import { compileMethod } from '../../../test/support/method.js';
import { tempDir as tempFolder } from '../../../test/support/temp.js';

const tempDir = (): string => tempFolder('berrypack-method-durable-');
const compile = (doc: Record<string, unknown>): CompiledMethod => compileMethod(doc, 'Exercise durability.');
function signal(): { promise: Promise<void>; fire: () => void } {
  let fire!: () => void;
  const promise = new Promise<void>((resolve) => (fire = resolve));
  return { promise, fire };
}
const forever = new Promise<never>(() => {});
/**
 * A crash, in process: the run is left blocked forever and its data folder is copied at that
 * moment. The copy is exactly what a killed process leaves on disk (test/method-kill.test.ts
 * does it with a real SIGKILL).
 */
function snapshot(dir: string): string {
  const copy = tempDir();
  cpSync(dir, copy, { recursive: true });
  return copy;
}

const text = { type: 'text', description: 'Some text.' };
const method = compile({
  state: { counter: { type: 'number', description: 'A counter.', file: 'counter.json', default: 0 } },
  steps: {
    fetch: { do: 'Fetch.', out: { data: text } },
    slow: { in: { data: 'data' }, do: 'Think about {{data}}.', out: { thought: text } },
    bump: { in: { data: 'data' }, do: 'Count {{data}}.', changes: ['state.counter'], check: 'The counter went up by one.' },
    report: { in: { thought: 'thought' }, after: 'bump', do: 'Report {{thought}}.', out: { report: text } },
  },
  result: 'report',
});
const answer = (r: StepRequest): StepResult =>
  r.step === 'bump'
    ? { changes: { 'state.counter': (r.changes[0] as { before: number }).before + 1 } }
    : { output: { fetch: { data: 'D' }, slow: { thought: 'T' }, report: { report: 'R' } }[r.step]! };
const judge: MethodJudge = (r: JudgeRequest) => {
  const change = r.changes['state.counter']!;
  return (change.after as number) === (change.before as number) + 1
    ? { verdict: 'passed' }
    : { verdict: 'failed', reason: `${String(change.after)} is not ${String(change.before)} + 1` };
};

/** Starts a run whose `slow` and `bump` steps block forever once both started; resolves when they have. */
async function crashedRun(): Promise<{ dir: string; runId: string; copy: string }> {
  const dir = tempDir();
  const entered = { slow: signal(), bump: signal() };
  let runId: string | undefined;
  void runMethod(method, {
    dataDir: dir,
    judge,
    executor: async (r) => {
      runId = r.runId;
      if (r.step === 'slow' || r.step === 'bump') {
        entered[r.step].fire();
        return forever;
      }
      return answer(r);
    },
  });
  await Promise.all([entered.slow.promise, entered.bump.promise]);
  return { dir, runId: runId!, copy: snapshot(dir) };
}

describe('method run durability (MTH-18)', () => {
  it('MTH-18: after a crash, completed steps never run again, an interrupted step without changes runs again, a started change is uncertain', async () => {
    const { dir, runId, copy } = await crashedRun();
    // The crashed run is still held by this process: a second operation on it is refused.
    await expect(resumeMethod(runId, { dataDir: dir })).rejects.toMatchObject({ code: 'run-busy' });
    expect((await methodStatus(runId, { dataDir: dir })).status).toBe('running');

    const runJson = path.join(copy, 'runs', runId, 'run.json');
    const onDisk = readFileSync(runJson, 'utf8');
    expect(JSON.parse(onDisk)).toMatchObject({
      status: 'running',
      steps: { fetch: { status: 'unchecked' }, slow: { status: 'running' }, bump: { status: 'running', changes: { 'state.counter': { before: 0 } } } },
    });
    const status = await methodStatus(runId, { dataDir: copy });
    expect(status).toEqual({
      runId,
      status: 'needs_attention',
      steps: { fetch: 'unchecked', slow: 'pending', bump: 'uncertain', report: 'pending' },
      pending: [
        { step: 'slow', kind: 'interrupted', request: expect.stringContaining('it runs again when the run is resumed') },
        { step: 'bump', kind: 'uncertain', request: expect.stringContaining('recorded no outcome, so the change may or may not have happened') },
      ],
    });
    expect(readFileSync(runJson, 'utf8')).toBe(onDisk);

    const calls: string[] = [];
    const resumed = await resumeMethod(runId, { dataDir: copy, judge, executor: (r) => (calls.push(r.step), answer(r)) });
    expect(calls).toEqual(['slow']);
    expect(resumed).toEqual({
      runId,
      status: 'needs_attention',
      steps: { fetch: 'unchecked', slow: 'unchecked', bump: 'uncertain', report: 'pending' },
      pending: [{ step: 'bump', kind: 'uncertain', request: expect.stringContaining('Confirm with --done if it happened') }],
    });
    // A plain resume never retries the uncertain write.
    const again = await resumeMethod(runId, { dataDir: copy, judge, executor: (r) => (calls.push(r.step), answer(r)) });
    expect(again.steps['bump']).toBe('uncertain');
    expect(calls).toEqual(['slow']);
  });

  it('MTH-18: confirm --done runs only the check, on what is there now, and the run continues', async () => {
    const { runId, copy } = await crashedRun();
    writeFileSync(path.join(copy, 'counter.json'), '1');
    const calls: string[] = [];
    const done = await confirmStep(runId, { dataDir: copy, step: 'bump', decision: 'done', judge, executor: (r) => (calls.push(r.step), answer(r)) });
    expect(done).toEqual({
      runId,
      status: 'completed',
      steps: { fetch: 'unchecked', slow: 'unchecked', bump: 'passed', report: 'unchecked' },
      pending: [],
      result: 'R',
    });
    expect(calls).toEqual(['slow', 'report']);
    expect(readMethodRun(runId, { dataDir: copy }).record.steps['bump']).toMatchObject({
      confirmed: 'done',
      changes: { 'state.counter': { before: 0, after: 1 } },
      check: { status: 'passed' },
    });
    await expect(confirmStep(runId, { dataDir: copy, step: 'bump', decision: 'done' })).rejects.toMatchObject({ code: 'run-completed' });
  });

  it('MTH-18: confirm --done when nothing changed fails the check', async () => {
    const { runId, copy } = await crashedRun();
    const done = await confirmStep(runId, { dataDir: copy, step: 'bump', decision: 'done', judge, executor: answer });
    expect(done).toMatchObject({
      status: 'failed',
      steps: { bump: 'failed' },
      error: { code: 'check-failed', message: 'Step `bump` failed: Unexpected result: the check of step `bump` failed: 0 is not 0 + 1' },
    });
  });

  it('MTH-18: confirm --redo runs the step again', async () => {
    const { runId, copy } = await crashedRun();
    await expect(confirmStep(runId, { dataDir: copy, step: 'fetch', decision: 'redo' })).rejects.toMatchObject({ code: 'not-uncertain' });
    const calls: string[] = [];
    const redone = await confirmStep(runId, {
      dataDir: copy,
      step: 'bump',
      decision: 'redo',
      judge,
      executor: (r) => (calls.push(`${r.step}:${r.sequence}`), answer(r)),
    });
    expect(redone).toMatchObject({ status: 'completed', steps: { bump: 'passed' }, result: 'R' });
    // Sequences keep counting across the interruption: the crashed attempt was bump's invocation 0.
    expect(calls.sort()).toEqual(['bump:1', 'report:0', 'slow:1']);
    expect(readFileSync(path.join(copy, 'counter.json'), 'utf8')).toBe('1\n');
    const bump = readMethodRun(runId, { dataDir: copy }).record.steps['bump']!;
    expect(bump.previous).toEqual([
      expect.objectContaining({ status: 'uncertain', changes: { 'state.counter': { target: 'state.counter', file: 'counter.json', before: 0 } } }),
    ]);
  });

  it("MTH-18: confirm --done takes the step's outputs and the run goes on to its result; without them the step waits (missing-output)", async () => {
    const dir = tempDir();
    const publish = compile({
      environment: { wiki: { type: 'browser', description: 'The wiki.' } },
      steps: {
        post: {
          in: { wiki: 'environment.wiki' },
          do: 'Post on {{wiki}}.',
          changes: ['environment.wiki'],
          out: { url: text, words: { type: 'number', description: 'Words posted.' } },
          check: 'The page shows the post.',
        },
        share: { in: { url: 'url' }, do: 'Share {{url}}.', out: { note: text } },
      },
      result: 'note',
    });
    const entered = signal();
    let runId = '';
    void runMethod(publish, { dataDir: dir, environment: { wiki: {} }, executor: async (r) => ((runId = r.runId), entered.fire(), forever) });
    await entered.promise;
    const copy = snapshot(dir);
    await expect(confirmStep(runId, { dataDir: copy, step: 'post', decision: 'done' })).rejects.toMatchObject({ code: 'environment-missing' });
    const host = {
      dataDir: copy,
      environment: { wiki: {} },
      judge: (r: JudgeRequest) => ({ verdict: Object.keys(r.outputs).length === 0 ? ('ambiguous' as const) : ('passed' as const) }),
      executor: (r: StepRequest) => ({ output: { note: `shared ${String(r.inputs['url'])}` } }),
    };

    // Without the outputs: never completed with a null result; the step waits for them.
    const waiting = await confirmStep(runId, { ...host, step: 'post', decision: 'done' });
    expect(waiting).toEqual({
      runId,
      status: 'needs_attention',
      steps: { post: 'waiting', share: 'pending' },
      pending: [
        {
          step: 'post',
          kind: 'missing-output',
          request:
            'a person confirmed that the change happened, but its outputs (`url`, `words`) were not given; confirm it again with them (--done --response-json VALUE), or --redo to run it again',
        },
      ],
    });
    expect(await methodStatus(runId, { dataDir: copy })).toEqual(waiting);

    // Outputs of the wrong shape change nothing.
    await expect(confirmStep(runId, { ...host, step: 'post', decision: 'done', response: { url: 'https://wiki.example/p' } })).rejects.toMatchObject({
      code: 'invalid-response',
    });
    await expect(confirmStep(runId, { ...host, step: 'post', decision: 'redo', response: { url: 'x', words: 1 } })).rejects.toMatchObject({
      code: 'invalid-response',
    });
    expect(await methodStatus(runId, { dataDir: copy })).toEqual(waiting);

    const done = await confirmStep(runId, { ...host, step: 'post', decision: 'done', response: { url: 'https://wiki.example/p', words: 120 } });
    expect(done).toEqual({ runId, status: 'completed', steps: { post: 'passed', share: 'unchecked' }, pending: [], result: 'shared https://wiki.example/p' });
    expect(readMethodRun(runId, { dataDir: copy }).record.steps['post']).toMatchObject({
      confirmed: 'done',
      outputs: { url: 'https://wiki.example/p', words: 120 },
      check: { status: 'passed' },
    });
  });

  it('MTH-18: confirm --done with the outputs settles an uncertain step in one go', async () => {
    const dir = tempDir();
    const publish = compile({
      environment: { wiki: { type: 'browser', description: 'The wiki.' } },
      steps: {
        post: { in: { wiki: 'environment.wiki' }, do: 'Post on {{wiki}}.', changes: ['environment.wiki'], out: { url: text }, check: { present: 'url' } },
      },
      result: 'url',
    });
    const entered = signal();
    let runId = '';
    void runMethod(publish, { dataDir: dir, environment: { wiki: {} }, executor: async (r) => ((runId = r.runId), entered.fire(), forever) });
    await entered.promise;
    const copy = snapshot(dir);
    const done = await confirmStep(runId, { dataDir: copy, environment: { wiki: {} }, step: 'post', decision: 'done', response: 'https://wiki.example/p' });
    expect(done).toMatchObject({ status: 'completed', result: 'https://wiki.example/p' });
  });

  it('MTH-18: an outcome recorded before a crash is not produced again: only its check runs', async () => {
    const dir = tempDir();
    const judging = signal();
    let runId = '';
    void runMethod(method, {
      dataDir: dir,
      executor: (r) => ((runId = r.runId), answer(r)),
      judge: async () => (judging.fire(), forever),
    });
    await judging.promise;
    const copy = snapshot(dir);
    expect(await methodStatus(runId, { dataDir: copy })).toMatchObject({
      status: 'needs_attention',
      steps: { bump: 'checking' },
      pending: [{ step: 'bump', kind: 'interrupted', request: expect.stringContaining('only the check runs again') }],
    });
    const calls: string[] = [];
    const resumed = await resumeMethod(runId, { dataDir: copy, judge, executor: (r) => (calls.push(r.step), answer(r)) });
    expect(resumed).toMatchObject({ status: 'completed', steps: { bump: 'passed' }, result: 'R' });
    expect(calls).not.toContain('bump');
    expect(calls).toContain('report');
    expect(readFileSync(path.join(copy, 'counter.json'), 'utf8')).toBe('1\n');
  });
});
