import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readMethodRun, runMethod, type CompiledMethod, type StepRequest, type StepResult } from '../src/index.js';
import { compileMethod } from '../../../test/support/method.js';
import { tempDir } from '../../../test/support/temp.js';

const dataDir = (): string => tempDir('berrypack-method-run-');
const compile = (doc: Record<string, unknown>): CompiledMethod => compileMethod(doc, 'Exercise the runner.');
const text = { type: 'text', description: 'Some text.' };
const people = { type: 'list', description: 'People.', file: 'people.json', items: text };

/**
 * An executor that records when each step starts and ends. A step waits until `width` steps
 * are in flight (or a fallback delay when they never are), so overlapping intervals show
 * concurrency and strictly separate ones show serialization: ordering facts, no timing.
 */
function recorder(answer: (request: StepRequest) => StepResult, width = 2) {
  const events: string[] = [];
  let inFlight = 0;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const run = async (request: StepRequest): Promise<StepResult> => {
    const name = request.item ? `${request.step}#${request.item.index}` : request.step;
    events.push(`start ${name}`);
    if (++inFlight >= width) release();
    await Promise.race([gate, new Promise((resolve) => setTimeout(resolve, 300))]);
    inFlight--;
    events.push(`end ${name}`);
    return answer(request);
  };
  return { events, run };
}
function overlapped(events: string[], a: string, b: string): boolean {
  const at = (e: string) => events.indexOf(e);
  return at(`start ${a}`) < at(`end ${b}`) && at(`start ${b}`) < at(`end ${a}`);
}

describe('method runs: scheduling (MTH-18, MTH-13)', () => {
  it('MTH-18: runs independent steps concurrently', async () => {
    const method = compile({
      steps: { left: { do: 'Left.', out: { l: text } }, right: { do: 'Right.', out: { r: text } } },
      result: { L: 'l', R: 'r' },
    });
    const { events, run } = recorder((r) => ({ output: r.step === 'left' ? { l: 'L' } : { r: 'R' } }));
    const result = await runMethod(method, { dataDir: dataDir(), executor: run });
    expect(result).toEqual({
      runId: expect.stringMatching(/^run-/),
      status: 'completed',
      steps: { left: 'unchecked', right: 'unchecked' },
      pending: [],
      result: { L: 'L', R: 'R' },
    });
    expect(overlapped(events, 'left', 'right')).toBe(true);
  });

  it('MTH-13: serializes steps that read or change the same state or use the same connection, and only those', async () => {
    const dir = dataDir();
    writeFileSync(path.join(dir, 'people.json'), '["Ada"]');
    const method = compile({
      environment: { wiki: { type: 'browser', description: 'The wiki.' } },
      state: { people },
      steps: {
        reader: { in: { who: 'state.people' }, do: 'Read {{who}}.', out: { seen: text } },
        writer: { do: 'Add Grace.', changes: ['state.people'] },
        editor: { in: { wiki: 'environment.wiki' }, do: 'Edit {{wiki}}.', out: { edit: text }, check: 'The page changed.' },
        viewer: { in: { wiki: 'environment.wiki' }, do: 'View {{wiki}}.', out: { view: text } },
      },
      result: 'seen',
    });
    const { events, run } = recorder((r) => {
      if (r.step === 'writer') return { changes: { 'state.people': ['Ada', 'Grace'] } };
      return { output: { reader: { seen: 'x' }, editor: { edit: 'x' }, viewer: { view: 'x' } }[r.step] ?? {} };
    });
    const result = await runMethod(method, { dataDir: dir, executor: run, environment: { wiki: {} } });
    expect(result.status).toBe('completed');
    expect(overlapped(events, 'reader', 'writer')).toBe(false);
    expect(overlapped(events, 'editor', 'viewer')).toBe(false);
    expect(overlapped(events, 'reader', 'editor')).toBe(true);
    expect(JSON.parse(readFileSync(path.join(dir, 'people.json'), 'utf8'))).toEqual(['Ada', 'Grace']);
  });

  it('MTH-18: waits for dependencies: a consumer starts after its producer ended', async () => {
    const method = compile({
      steps: { first: { do: 'One.', out: { one: text } }, second: { in: { one: 'one' }, do: 'Two after {{one}}.', out: { two: text } } },
      result: 'two',
    });
    const seen: StepRequest[] = [];
    const { events, run } = recorder((r) => {
      seen.push(r);
      return { output: r.step === 'first' ? { one: '{{one}} 1' } : { two: '2' } };
    }, 1);
    const result = await runMethod(method, { dataDir: dataDir(), executor: run });
    expect(result.result).toBe('2');
    expect(events).toEqual(['start first', 'end first', 'start second', 'end second']);
    // Substituted once: the value's own `{{one}}` is not expanded again.
    expect(seen[1]!.instructions).toBe('Two after {{one}} 1.');
    expect(seen[1]!.inputs).toEqual({ one: '{{one}} 1' });
  });
});

describe('method runs: each (MTH-11)', () => {
  const doc = (check: unknown) => ({
    inputs: { names: { type: 'list', description: 'Names.', items: text } },
    steps: {
      greet: { each: { name: 'inputs.names' }, do: 'Greet {{name}}.', out: { greeting: text }, ...(check ? { check } : {}) },
      join: { in: { all: 'greeting' }, do: 'Join {{all}}.', out: { joined: text } },
    },
    result: { Greetings: 'greeting', Joined: 'joined' },
  });
  const executor = (r: StepRequest): StepResult =>
    r.step === 'greet'
      ? { output: { greeting: r.item!.value === 'Bob' ? '' : `Hello ${String(r.item!.value)}` } }
      : { output: { joined: (r.inputs['all'] as string[]).join(' / ') } };

  it('MTH-11: repeats a step per item with its own result and check; its outputs become lists downstream', async () => {
    const dir = dataDir();
    const { events, run } = recorder(executor, 3);
    const result = await runMethod(compile(doc({ present: 'greeting' })), { dataDir: dir, executor: run, inputs: { names: ['Ada', 'Cy', 'Di'] } });
    expect(result).toMatchObject({
      status: 'completed',
      steps: { greet: 'passed', join: 'unchecked' },
      result: { Greetings: ['Hello Ada', 'Hello Cy', 'Hello Di'], Joined: 'Hello Ada / Hello Cy / Hello Di' },
    });
    expect(overlapped(events, 'greet#0', 'greet#2')).toBe(true);
    const { record } = readMethodRun(result.runId, { dataDir: dir });
    expect(record.steps['greet']!.items!.map((i) => [i.index, i.item, i.status, i.outputs, i.check?.status])).toEqual([
      [0, 'Ada', 'passed', { greeting: 'Hello Ada' }, 'passed'],
      [1, 'Cy', 'passed', { greeting: 'Hello Cy' }, 'passed'],
      [2, 'Di', 'passed', { greeting: 'Hello Di' }, 'passed'],
    ]);
    expect(record.steps['greet']!.outputs).toEqual({ greeting: ['Hello Ada', 'Hello Cy', 'Hello Di'] });
  });

  it('MTH-11: checks each item on its own: one failing item fails the step, the others keep their results', async () => {
    const dir = dataDir();
    const result = await runMethod(compile(doc({ present: 'greeting' })), { dataDir: dir, executor, inputs: { names: ['Ada', 'Bob', 'Cy'] } });
    expect(result).toMatchObject({ status: 'failed', steps: { greet: 'failed', join: 'pending' }, error: { code: 'check-failed' } });
    expect(result.error!.message).toContain('Item 1');
    const items = readMethodRun(result.runId, { dataDir: dir }).record.steps['greet']!.items!;
    expect(items.map((i) => i.check?.status)).toEqual(['passed', 'failed', 'passed']);
    expect(items[1]!.outputs).toEqual({ greeting: '' });
  });

  it('MTH-11: an empty collection gives empty lists; nothing ran, so nothing is verified', async () => {
    const calls: string[] = [];
    const result = await runMethod(compile(doc({ present: 'greeting' })), {
      dataDir: dataDir(),
      executor: (r) => (calls.push(r.step), executor(r)),
      inputs: { names: [] },
    });
    expect(result).toMatchObject({ status: 'completed', steps: { greet: 'unchecked', join: 'unchecked' }, result: { Greetings: [], Joined: '' } });
    expect(calls).toEqual(['join']);
  });

  it('MTH-13: repeats items one at a time when the step changes a state, each seeing the previous replacement', async () => {
    const dir = dataDir();
    writeFileSync(path.join(dir, 'people.json'), '[]');
    const method = compile({
      inputs: { names: { type: 'list', description: 'Names.', items: text } },
      state: { people },
      steps: { add: { each: { name: 'inputs.names' }, do: 'Add {{name}}.', changes: ['state.people'] } },
      result: 'state.people',
    });
    const { events, run } = recorder((r) => {
      const before = (r.changes[0] as { before: string[] }).before;
      return { changes: { 'state.people': [...before, r.item!.value as string] } };
    });
    const result = await runMethod(method, { dataDir: dir, executor: run, inputs: { names: ['Ada', 'Cy'] } });
    expect(result).toMatchObject({ status: 'completed', result: ['Ada', 'Cy'] });
    expect(overlapped(events, 'add#0', 'add#1')).toBe(false);
  });
});

describe('method runs: when (MTH-12)', () => {
  const doc = {
    inputs: { publish: { type: 'boolean', description: 'Whether to publish.' } },
    steps: {
      draft: { do: 'Draft.', out: { page: text } },
      post: { when: 'inputs.publish', in: { page: 'page' }, do: 'Post {{page}}.', out: { url: text } },
      announce: { when: 'inputs.publish', in: { url: 'url' }, do: 'Announce {{url}}.', out: { note: text } },
      archive: { in: { url: 'url' }, do: 'Archive {{url}}.', out: { archived: text } },
    },
    result: { Page: 'page', Url: 'url' },
  };
  const executor = (r: StepRequest): StepResult => ({
    output: { draft: { page: 'P' }, post: { url: 'U' }, announce: { note: 'N' }, archive: { archived: 'A' } }[r.step]!,
  });

  it('MTH-12: false skips; a consumer with the same condition is skipped; one without it stops with the reason', async () => {
    const dir = dataDir();
    const calls: string[] = [];
    const result = await runMethod(compile(doc), { dataDir: dir, executor: (r) => (calls.push(r.step), executor(r)), inputs: { publish: false } });
    expect(result).toEqual({
      runId: result.runId,
      status: 'failed',
      steps: { draft: 'unchecked', post: 'skipped', announce: 'skipped', archive: 'stopped' },
      pending: [],
      error: {
        code: 'stopped',
        message:
          'Step `archive` stopped: step `post` was skipped (`when: inputs.publish` is false), so `url` has no value; add `when: inputs.publish` to skip it too',
      },
    });
    expect(calls).toEqual(['draft']);
    const steps = readMethodRun(result.runId, { dataDir: dir }).record.steps;
    expect(steps['announce']!.reason).toBe('`when: inputs.publish` is false');
    expect(steps['post']!.outputs).toBeUndefined();
  });

  it('MTH-12: true runs the conditional steps', async () => {
    const result = await runMethod(compile(doc), { dataDir: dataDir(), executor, inputs: { publish: true } });
    expect(result).toMatchObject({
      status: 'completed',
      steps: { draft: 'unchecked', post: 'unchecked', announce: 'unchecked', archive: 'unchecked' },
      result: { Page: 'P', Url: 'U' },
    });
  });

  it('MTH-15: leaves the output of a skipped step out of a completed result', async () => {
    const method = compile({ ...doc, steps: { draft: doc.steps.draft, post: doc.steps.post } });
    const result = await runMethod(method, { dataDir: dataDir(), executor, inputs: { publish: false } });
    expect(result).toMatchObject({ status: 'completed', steps: { draft: 'unchecked', post: 'skipped' }, result: { Page: 'P' } });
  });
});

describe('method runs: after a step stops or fails (MTH-12, MTH-18)', () => {
  const steps = {
    slow: { do: 'Take a while.', out: { thought: text } },
    post: { when: 'inputs.publish', do: 'Post.', out: { url: text } },
    archive: { in: { url: 'url' }, do: 'Archive {{url}}.', out: { archived: text } },
    later: { after: 'slow', do: 'Then this.', out: { note: text } },
    fresh: { do: 'Independent, listed after the stop.', out: { fresh: text } },
  };
  const doc = { inputs: { publish: { type: 'boolean', description: 'Whether to publish.' } }, steps, result: 'note' };

  it('MTH-12: a step stopped by the output of a skipped step halts the run: running steps finish, nothing new starts, the run fails', async () => {
    const calls: string[] = [];
    const result = await runMethod(compile(doc), {
      dataDir: dataDir(),
      inputs: { publish: false },
      executor: async (r) => {
        calls.push(r.step);
        // `slow` is in flight while `archive` stops; it finishes after that.
        await new Promise((resolve) => setImmediate(resolve));
        return { output: { slow: { thought: 'T' }, later: { note: 'N' }, fresh: { fresh: 'F' } }[r.step]! };
      },
    });
    expect(result).toEqual({
      runId: result.runId,
      status: 'failed',
      steps: { slow: 'unchecked', post: 'skipped', archive: 'stopped', later: 'pending', fresh: 'pending' },
      pending: [],
      error: {
        code: 'stopped',
        message:
          'Step `archive` stopped: step `post` was skipped (`when: inputs.publish` is false), so `url` has no value; add `when: inputs.publish` to skip it too',
      },
    });
    expect(calls).toEqual(['slow']);
  });

  it('MTH-18: a failed step halts the run the same way', async () => {
    const calls: string[] = [];
    let failed!: () => void;
    const failing = new Promise<void>((resolve) => (failed = resolve));
    const result = await runMethod(
      compile({ ...doc, steps: { slow: steps.slow, post: { do: 'Post.', out: { url: text } }, later: steps.later, fresh: steps.fresh } }),
      {
        dataDir: dataDir(),
        inputs: { publish: true },
        executor: async (r) => {
          calls.push(r.step);
          if (r.step === 'post') {
            failed();
            throw new Error('the wiki refused the post');
          }
          await failing;
          await new Promise((resolve) => setImmediate(resolve));
          return { output: { slow: { thought: 'T' }, later: { note: 'N' }, fresh: { fresh: 'F' } }[r.step]! };
        },
      },
    );
    expect(result).toMatchObject({
      status: 'failed',
      steps: { slow: 'unchecked', post: 'failed', later: 'pending' },
      error: { message: 'Step `post` failed: the wiki refused the post' },
    });
    // `fresh` was ready at the start, with `slow` and `post`; nothing started after the failure.
    expect(calls).toEqual(['slow', 'post', 'fresh']);
  });
});

describe('method runs: inputs, outputs and environment', () => {
  const method = compile({
    inputs: { topic: text, limit: { type: 'number', description: 'At most.', default: 3 } },
    environment: { tracker: { type: 'service', description: 'The issue tracker.' } },
    steps: {
      search: {
        in: { topic: 'inputs.topic', limit: 'inputs.limit', tracker: 'environment.tracker' },
        do: 'Search {{tracker}} for {{limit}} issues about {{topic}}.',
        out: { found: { type: 'record', description: 'What was found.', fields: { titles: { type: 'list', items: text }, total: { type: 'number' } } } },
      },
    },
    result: 'found',
  });

  it('MTH-18: gives the executor its resolved inputs, substituted instructions, output definitions and connection configuration', async () => {
    let seen: StepRequest | undefined;
    const result = await runMethod(method, {
      dataDir: dataDir(),
      inputs: { topic: 'login' },
      environment: { tracker: { token: 'x' } },
      executor: (r) => ((seen = r), { output: { found: { titles: ['A'], total: 1 } } }),
    });
    expect(result).toMatchObject({ status: 'completed', result: { titles: ['A'], total: 1 } });
    expect(seen).toMatchObject({
      step: 'search',
      instructions: 'Search tracker for 3 issues about login.',
      inputs: { topic: 'login', limit: 3, tracker: { connection: 'tracker', type: 'service' } },
      outputs: method.steps['search']!.out,
      environment: { tracker: { token: 'x' } },
      changes: [],
      sequence: 0,
    });
  });

  it.each([
    ['a missing field', { found: { titles: [] } }, 'lacks the field `total`'],
    ['an extra field', { found: { titles: [], total: 0, more: 1 } }, 'has the field `more`, which is not declared'],
    ['a wrong type', { found: { titles: [1], total: 0 } }, '.found.titles[0] must be text'],
    ['an undeclared output', { found: { titles: [], total: 0 }, extra: 'x' }, 'has the field `extra`'],
  ])('MTH-3: fails a step whose executor returns %s', async (_, output, message) => {
    const result = await runMethod(method, { dataDir: dataDir(), inputs: { topic: 't' }, environment: { tracker: {} }, executor: () => ({ output }) });
    expect(result).toMatchObject({ status: 'failed', steps: { search: 'failed' }, error: { code: 'invalid-output' } });
    expect(result.error!.message).toContain(message);
  });

  it('MTH-14: fails before any step starts when a declared connection has no configuration, or the executor refuses it', async () => {
    const calls: string[] = [];
    const executor = {
      run: (r: StepRequest) => (calls.push(r.step), { output: {} }),
      checkAccess: (name: string, _: unknown, config: unknown) => ((config as { token?: string }).token ? undefined : `\`${name}\` needs a token`),
    };
    const missing = await runMethod(method, { dataDir: dataDir(), inputs: { topic: 't' }, executor });
    expect(missing).toMatchObject({ status: 'failed', steps: { search: 'pending' }, pending: [], error: { code: 'environment-missing' } });
    expect(missing.error!.message).toContain('connection `tracker` (service: The issue tracker.) has no configuration');
    const refused = await runMethod(method, { dataDir: dataDir(), inputs: { topic: 't' }, environment: { tracker: {} }, executor });
    expect(refused.error).toEqual({ code: 'environment-missing', message: 'Unexpected environment: connection `tracker`: `tracker` needs a token' });
    expect(calls).toEqual([]);
  });

  it('fails a run whose inputs are missing, unknown or of the wrong type, before any step', async () => {
    const run = (inputs: Record<string, unknown>) =>
      runMethod(method, { dataDir: dataDir(), inputs, environment: { tracker: {} }, executor: () => ({ output: {} }) });
    expect((await run({})).error).toEqual({ code: 'invalid-inputs', message: 'Unexpected run without input `topic` (Some text.), which has no default' });
    expect((await run({ topic: 't', other: 1 })).error?.message).toBe('Unexpected input `other`, expected `topic`, `limit`');
    expect((await run({ topic: 5 })).error?.message).toBe('Unexpected inputs: input `topic` must be text, not number 5');
  });

  it('fails a `do` step when the run has no executor', async () => {
    const result = await runMethod(method, { dataDir: dataDir(), inputs: { topic: 't' }, environment: { tracker: {} } });
    expect(result).toMatchObject({ status: 'failed', error: { code: 'no-executor' } });
  });
});
