import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { methodStatus, readMethodRun, resumeMethod, runMethod, type CompiledMethod, type HumanRequest, type StepRequest } from '../src/index.js';
import { compileMethod } from '../../../test/support/method.js';
import { tempDir } from '../../../test/support/temp.js';

const dataDir = (): string => tempDir('berrypack-method-ask-');
const compile = (doc: Record<string, unknown>): CompiledMethod => compileMethod(doc, 'Exercise asks.');
const text = { type: 'text', description: 'Some text.' };
const approval = { type: 'record', description: 'The decision.', fields: { approved: { type: 'boolean' }, comment: { type: 'text' } } };

const method = compile({
  inputs: { week: text },
  steps: {
    draft: { in: { week: 'inputs.week' }, do: 'Draft week {{week}}.', out: { summary: text } },
    approve: { in: { week: 'inputs.week', summary: 'summary' }, ask: 'Approve week {{week}}? Summary: {{summary}}', out: { approval } },
    publish: { when: 'approval.approved', in: { summary: 'summary' }, do: 'Publish {{summary}}.', out: { url: text } },
  },
  result: { Approval: 'approval', Url: 'url' },
});
const calls: string[] = [];
const executor = (r: StepRequest) => (calls.push(r.step), { output: r.step === 'draft' ? { summary: 'All {{week}} done.' } : { url: 'https://wiki/w14' } });

describe('method asks (MTH-18)', () => {
  it('MTH-18: an ask saves its request and leaves the run needing attention; a resume with the response completes it', async () => {
    const dir = dataDir();
    calls.length = 0;
    const first = await runMethod(method, { dataDir: dir, executor, inputs: { week: '2025-W14' } });
    expect(first).toEqual({
      runId: first.runId,
      status: 'needs_attention',
      steps: { draft: 'unchecked', approve: 'waiting', publish: 'pending' },
      // Substituted once: the summary's own `{{week}}` stays as written.
      pending: [{ step: 'approve', kind: 'ask', request: 'Approve week 2025-W14? Summary: All {{week}} done.' }],
    });
    expect(await methodStatus(first.runId, { dataDir: dir })).toEqual(first);
    const done = await resumeMethod(first.runId, { dataDir: dir, executor, step: 'approve', response: { approved: true, comment: '' } });
    expect(done).toEqual({
      runId: first.runId,
      status: 'completed',
      steps: { draft: 'unchecked', approve: 'unchecked', publish: 'unchecked' },
      pending: [],
      result: { Approval: { approved: true, comment: '' }, Url: 'https://wiki/w14' },
    });
    // Completed steps never ran again.
    expect(calls).toEqual(['draft', 'publish']);
    expect(readMethodRun(first.runId, { dataDir: dir }).record.steps['approve']).toMatchObject({
      request: 'Approve week 2025-W14? Summary: All {{week}} done.',
      response: { approved: true, comment: '' },
      outputs: { approval: { approved: true, comment: '' } },
    });
  });

  it('MTH-12: a rejection skips the conditional step and completes without its output', async () => {
    const dir = dataDir();
    const first = await runMethod(method, { dataDir: dir, executor, inputs: { week: 'W1' } });
    const done = await resumeMethod(first.runId, { dataDir: dir, executor, step: 'approve', response: { approved: false, comment: 'Not yet' } });
    expect(done).toMatchObject({ status: 'completed', steps: { publish: 'skipped' }, result: { Approval: { approved: false, comment: 'Not yet' } } });
  });

  it('refuses a response of the wrong type, or to a step that is not waiting, and leaves the run as it was', async () => {
    const dir = dataDir();
    const first = await runMethod(method, { dataDir: dir, executor, inputs: { week: 'W1' } });
    const runJson = path.join(dir, 'runs', first.runId, 'run.json');
    const before = readFileSync(runJson, 'utf8');
    await expect(resumeMethod(first.runId, { dataDir: dir, executor, step: 'approve', response: 'yes' })).rejects.toThrow(
      'Unexpected response: the response to `approve` (`approval`) must be a record, not text (give JSON with --response-json)',
    );
    await expect(resumeMethod(first.runId, { dataDir: dir, executor, step: 'approve', response: { approved: true } })).rejects.toThrow(
      'lacks the field `comment`',
    );
    await expect(resumeMethod(first.runId, { dataDir: dir, executor, step: 'draft', response: 'x' })).rejects.toMatchObject({
      code: 'not-waiting',
      message: 'Unexpected response to step `draft`, which is unchecked, expected a step waiting for a response (waiting: approve)',
    });
    await expect(resumeMethod(first.runId, { dataDir: dir, executor, step: 'nope', response: 'x' })).rejects.toMatchObject({ code: 'unknown-step' });
    await expect(resumeMethod('run-nope', { dataDir: dir, step: 'approve', response: 'x' })).rejects.toMatchObject({ code: 'unknown-run' });
    expect(readFileSync(runJson, 'utf8')).toBe(before);
  });

  it('MTH-11: an ask repeated per item waits for each item; a response names its item', async () => {
    const dir = dataDir();
    const perPerson = compile({
      inputs: { people: { type: 'list', description: 'People.', items: text } },
      steps: { confirm: { each: { person: 'inputs.people' }, ask: 'Is {{person}} in?', out: { answer: text }, check: { present: 'answer' } } },
      result: 'answer',
    });
    const first = await runMethod(perPerson, { dataDir: dir, inputs: { people: ['Ada', 'Cy'] } });
    expect(first).toMatchObject({
      status: 'needs_attention',
      steps: { confirm: 'waiting' },
      pending: [
        { step: 'confirm', item: 0, kind: 'ask', request: 'Is Ada in?' },
        { step: 'confirm', item: 1, kind: 'ask', request: 'Is Cy in?' },
      ],
    });
    await expect(resumeMethod(first.runId, { dataDir: dir, step: 'confirm', response: 'yes' })).rejects.toMatchObject({ code: 'item-required' });
    await expect(resumeMethod(first.runId, { dataDir: dir, step: 'confirm', item: 2, response: 'yes' })).rejects.toMatchObject({ code: 'unknown-item' });
    const one = await resumeMethod(first.runId, { dataDir: dir, step: 'confirm', item: 1, response: 'no' });
    expect(one).toMatchObject({ status: 'needs_attention', steps: { confirm: 'waiting' }, pending: [{ step: 'confirm', item: 0 }] });
    const both = await resumeMethod(first.runId, { dataDir: dir, step: 'confirm', item: 0, response: 'yes' });
    expect(both).toMatchObject({ status: 'completed', steps: { confirm: 'passed' }, result: ['yes', 'no'] });
  });

  it('MTH-18: a human callback may answer at once; otherwise the request stays saved', async () => {
    const seen: HumanRequest[] = [];
    const result = await runMethod(method, {
      dataDir: dataDir(),
      executor,
      inputs: { week: 'W2' },
      human: (r) => (seen.push(r), { response: { approved: true, comment: 'fine' } }),
    });
    expect(result).toMatchObject({ status: 'completed', result: { Approval: { approved: true, comment: 'fine' }, Url: 'https://wiki/w14' } });
    expect(seen).toEqual([
      {
        runId: result.runId,
        step: 'approve',
        request: 'Approve week W2? Summary: All {{week}} done.',
        inputs: { week: 'W2', summary: 'All {{week}} done.' },
        outputs: method.steps['approve']!.out,
      },
    ]);
    const later = await runMethod(method, { dataDir: dataDir(), executor, inputs: { week: 'W2' }, human: () => undefined });
    expect(later.status).toBe('needs_attention');
  });
});
