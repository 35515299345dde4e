import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCheck } from '../src/method/checks.js';
import { createProviderJudge, readMethodRun, runMethod, type CompiledMethod, type JudgeRequest, type RunRecord } from '../src/index.js';
import { compileMethod } from '../../../test/support/method.js';
import { tempDir } from '../../../test/support/temp.js';

const dataDir = (): string => tempDir('berrypack-method-checks-');
const compile = (doc: Record<string, unknown>): CompiledMethod => compileMethod(doc, 'Exercise checks.');
const sha256 = (bytes: string | Buffer) => createHash('sha256').update(bytes).digest('hex');
const text = { type: 'text', description: 'Some text.' };
const reportStep = (check: unknown) => ({ do: 'Write the report.', out: { report: { type: 'file', format: 'markdown', description: 'The report.' } }, check });

describe('method checks (MTH-9, MTH-18)', () => {
  it('MTH-18: saves a file output under the run folder and records its hash before the check runs', async () => {
    const dir = dataDir();
    let seenByJudge: { record: RunRecord; bytes: Buffer } | undefined;
    const result = await runMethod(compile({ steps: { draft: reportStep('The report has a title.') }, result: 'report' }), {
      dataDir: dir,
      executor: () => ({ output: { report: '# Week 14\n' } }),
      judge: (r: JudgeRequest) => {
        const { record } = readMethodRun(r.runId, { dataDir: dir });
        seenByJudge = { record, bytes: readFileSync(path.join(dir, (r.outputs['report'] as { path: string }).path)) };
        return { verdict: 'passed', reason: 'it starts with a heading' };
      },
    });
    const file = { path: `runs/${result.runId}/files/draft/report.md`, sha256: sha256('# Week 14\n'), size: 10, format: 'markdown' };
    expect(result).toMatchObject({ status: 'completed', steps: { draft: 'passed' }, result: file });
    expect(seenByJudge!.record.steps['draft']).toMatchObject({ status: 'checking', outputs: { report: file } });
    expect(seenByJudge!.record.steps['draft']!.check).toBeUndefined();
    expect(seenByJudge!.bytes.toString()).toBe('# Week 14\n');
    const draft = readMethodRun(result.runId, { dataDir: dir }).record.steps['draft']!;
    expect(draft.check).toEqual({ kind: 'english', status: 'passed', reason: 'it starts with a heading', at: expect.any(String) });
    expect(draft.recordedAt! <= draft.check!.at).toBe(true);
  });

  it('MTH-9: saves bytes given as base64 exactly', async () => {
    const dir = dataDir();
    const bytes = Buffer.from([0, 255, 10, 13]);
    const result = await runMethod(compile({ steps: { draft: reportStep({ file: 'report' }) }, result: 'report' }), {
      dataDir: dir,
      executor: () => ({ output: { report: { base64: bytes.toString('base64') } } }),
    });
    expect(result).toMatchObject({ status: 'completed', steps: { draft: 'passed' }, result: { sha256: sha256(bytes), size: 4 } });
    expect(readFileSync(path.join(dir, (result.result as { path: string }).path))).toEqual(bytes);
  });

  const forms = compile({
    inputs: { expected: { ...text, default: 'ok' } },
    steps: {
      equals: { in: { expected: 'inputs.expected' }, do: 'Say ok.', out: { actual: text }, check: { equals: { actual: 'actual', expected: 'expected' } } },
      count: { do: 'List.', out: { items: { type: 'list', description: 'Items.', items: text } }, check: { count: { value: 'items', min: 1, max: 2 } } },
      present: { do: 'Name it.', out: { name: text }, check: { present: 'name' } },
    },
    result: { Actual: 'actual', Items: 'items', Name: 'name' },
  });
  it.each([
    ['equals', { actual: 'ok' }, 'passed', '`actual` equals `expected`'],
    ['equals', { actual: 'no' }, 'failed', '`actual` is "no", expected "ok" (`expected`)'],
    ['count', { items: [] }, 'failed', '`items` has 0 items, expected at least 1 and at most 2'],
    ['count', { items: ['a'] }, 'passed', '`items` has 1 item, expected at least 1 and at most 2'],
    ['count', { items: ['a', 'b', 'c'] }, 'failed', '`items` has 3 items, expected at least 1 and at most 2'],
    ['present', { name: 'Ada' }, 'passed', '`name` is present'],
    ['present', { name: '  ' }, 'failed', '`name` is empty ("  ")'],
  ])('MTH-9: evaluates `%s` mechanically: %j is %s', async (step, output, status, reason) => {
    const dir = dataDir();
    const answers: Record<string, unknown> = { equals: { actual: 'ok' }, count: { items: ['a'] }, present: { name: 'x' }, [step]: output };
    const result = await runMethod(forms, { dataDir: dir, executor: (r) => ({ output: answers[r.step] as Record<string, unknown> }) });
    const rec = readMethodRun(result.runId, { dataDir: dir }).record.steps[step]!;
    expect(rec.check).toEqual({ kind: step, status, reason, at: expect.any(String) });
    expect(rec.status).toBe(status);
    expect(result.status).toBe(status === 'passed' ? 'completed' : 'failed');
    if (status === 'failed')
      expect(result.error).toEqual({
        code: 'check-failed',
        message: `Step \`${step}\` failed: Unexpected result: the check of step \`${step}\` failed: ${reason}`,
      });
  });

  it('MTH-9: a file check verifies the saved bytes against the recorded hash, not the content', async () => {
    const dir = dataDir();
    writeFileSync(path.join(dir, 'a.md'), 'hello');
    const value = { path: 'a.md', sha256: sha256('hello'), size: 5 };
    const context = { dataDir: dir, judge: undefined, now: () => 'now', evidence: {} as never };
    expect(await runCheck({ kind: 'file', name: 'f' }, { ...context, locals: { f: value } })).toEqual({
      kind: 'file',
      status: 'passed',
      reason: `\`f\` is saved (5 bytes, sha256 ${value.sha256})`,
      at: 'now',
    });
    writeFileSync(path.join(dir, 'a.md'), 'hellO');
    expect((await runCheck({ kind: 'file', name: 'f' }, { ...context, locals: { f: value } })).status).toBe('failed');
    expect((await runCheck({ kind: 'file', name: 'f' }, { ...context, locals: { f: { ...value, path: 'gone.md' } } })).reason).toBe(
      '`f` (gone.md) cannot be read: ENOENT',
    );
    expect((await runCheck({ kind: 'file', name: 'f' }, { ...context, locals: { f: 'text' } })).reason).toBe('`f` is not a saved file');
    // A name without a recorded value (a step confirmed done without outputs) is not evidence either way.
    expect(await runCheck({ kind: 'present', name: 'f' }, { ...context, locals: {} })).toEqual({
      kind: 'present',
      status: 'ambiguous',
      reason: '`f` has no recorded value',
      at: 'now',
    });
  });

  const english = compile({
    steps: { say: { do: 'Greet.', out: { greeting: text }, check: 'The greeting is polite.' }, plain: { do: 'Plain.', out: { other: text } } },
    result: 'greeting',
  });
  it('MTH-18: a plain-English check without a judge is ambiguous, never passed; no check is unchecked', async () => {
    const dir = dataDir();
    const result = await runMethod(english, { dataDir: dir, executor: (r) => ({ output: r.step === 'say' ? { greeting: 'Hello' } : { other: 'x' } }) });
    expect(result).toMatchObject({ status: 'completed', steps: { say: 'ambiguous', plain: 'unchecked' } });
    const steps = readMethodRun(result.runId, { dataDir: dir }).record.steps;
    expect(steps['say']!.check).toMatchObject({ status: 'ambiguous', reason: 'no judge: a plain-English check needs a judge to decide' });
    expect(steps['plain']!.check).toBeUndefined();
  });

  it.each([
    ['passed', 'completed'],
    ['failed', 'failed'],
    ['ambiguous', 'completed'],
  ] as const)('MTH-18: a judge verdict %s gives the run %s', async (verdict, status) => {
    const seen: JudgeRequest[] = [];
    const result = await runMethod(english, {
      dataDir: dataDir(),
      executor: (r) => ({ output: r.step === 'say' ? { greeting: 'Hello' } : { other: 'x' } }),
      judge: (r) => (seen.push(r), { verdict, reason: 'because' }),
    });
    expect(result.status).toBe(status);
    expect(result.steps['say']).toBe(verdict);
    expect(seen).toEqual([
      expect.objectContaining({ step: 'say', criteria: 'The greeting is polite.', inputs: {}, outputs: { greeting: 'Hello' }, changes: {}, sequence: 0 }),
    ]);
  });

  it('MTH-18: a judge that throws leaves the check ambiguous', async () => {
    const result = await runMethod(english, {
      dataDir: dataDir(),
      executor: (r) => ({ output: r.step === 'say' ? { greeting: 'Hi' } : { other: 'x' } }),
      judge: () => {
        throw new Error('offline');
      },
    });
    expect(result.steps['say']).toBe('ambiguous');
  });

  it('MTH-18: a provider-backed judge answers from a script keyed `<step>.check`', async () => {
    const dir = dataDir();
    const judge = createProviderJudge({ script: { 'say.check': [{ output: { verdict: 'failed', reason: 'too curt' } }] } });
    const result = await runMethod(english, { dataDir: dir, executor: (r) => ({ output: r.step === 'say' ? { greeting: 'Hi' } : { other: 'x' } }), judge });
    expect(result).toMatchObject({ status: 'failed', steps: { say: 'failed' }, error: { code: 'check-failed' } });
    expect(readMethodRun(result.runId, { dataDir: dir }).record.steps['say']!.check).toMatchObject({ status: 'failed', reason: 'too curt' });
    // Without an entry for the step, the scripted judge does not invent a verdict.
    const unscripted = await runMethod(english, {
      dataDir: dir,
      executor: (r) => ({ output: r.step === 'say' ? { greeting: 'Hi' } : { other: 'x' } }),
      judge: createProviderJudge({ script: {} }),
    });
    expect(unscripted.steps['say']).toBe('ambiguous');
    expect(readMethodRun(unscripted.runId, { dataDir: dir }).record.steps['say']!.check).toMatchObject({
      reason: 'no judge: the script has no `say.check` entry',
    });
  });
});
