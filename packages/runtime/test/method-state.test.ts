import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readMethodRun, runMethod, type CompiledMethod, type JudgeRequest, type StepRequest } from '../src/index.js';
import { compileMethod } from '../../../test/support/method.js';
import { tempDir } from '../../../test/support/temp.js';

function dataDir(files: Record<string, string> = {}): string {
  const dir = tempDir('berrypack-method-state-');
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  return dir;
}
const compile = (doc: Record<string, unknown>): CompiledMethod => compileMethod(doc, 'Exercise state.');

const last = { type: 'record', description: 'The last report.', file: 'last.json', fields: { week: { type: 'text' }, count: { type: 'number' } } };
const method = (state: Record<string, unknown>) =>
  compile({
    state: { last: state },
    steps: {
      read: { in: { previous: 'state.last' }, do: 'Read {{previous.week}}.', out: { week: { type: 'text', description: 'The week read.' } } },
      remember: { in: { week: 'week' }, do: 'Remember after {{week}}.', changes: ['state.last'], check: 'The saved report counts one more.' },
    },
    result: 'state.last',
  });
const executor = (replacement: unknown) => (r: StepRequest) =>
  r.step === 'read' ? { output: { week: (r.inputs['previous'] as { week: string }).week } } : { changes: { 'state.last': replacement } };

describe('method state (MTH-5, MTH-13, MTH-18)', () => {
  it('MTH-5: reads the declared default when the file is missing, and writes the complete replacement', async () => {
    const dir = dataDir();
    const judged: JudgeRequest[] = [];
    const result = await runMethod(method({ ...last, default: { week: 'none', count: 0 } }), {
      dataDir: dir,
      executor: executor({ week: 'W2', count: 1 }),
      judge: (r) => (judged.push(r), { verdict: 'passed', reason: 'one more' }),
    });
    expect(result).toMatchObject({ status: 'completed', steps: { read: 'unchecked', remember: 'passed' }, result: { week: 'W2', count: 1 } });
    expect(readFileSync(path.join(dir, 'last.json'), 'utf8')).toBe('{"count":1,"week":"W2"}\n');
    // MTH-18: the check of a change sees the before and after values and the saved target.
    expect(judged[0]!.changes).toEqual({
      'state.last': {
        target: 'state.last',
        file: 'last.json',
        before: { week: 'none', count: 0 },
        after: { week: 'W2', count: 1 },
        sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      },
    });
  });

  it('MTH-13: replaces the file atomically: a new file renamed over the old one, no temporary file left', async () => {
    const dir = dataDir({ 'last.json': '{"week":"W1","count":4}' });
    const before = statSync(path.join(dir, 'last.json')).ino;
    const result = await runMethod(method(last), { dataDir: dir, executor: executor({ week: 'W2', count: 5 }) });
    expect(result.status).toBe('completed');
    expect(statSync(path.join(dir, 'last.json')).ino).not.toBe(before);
    expect(readdirSync(dir).sort()).toEqual(['last.json', 'runs']);
    const { record } = readMethodRun(result.runId, { dataDir: dir });
    expect(record.steps['read']!.outputs).toEqual({ week: 'W1' });
    expect(record.steps['remember']!.changes!['state.last']).toMatchObject({ before: { week: 'W1', count: 4 }, after: { week: 'W2', count: 5 } });
  });

  it('MTH-5: fails before any step when a state without a default is missing', async () => {
    const calls: string[] = [];
    const result = await runMethod(method(last), { dataDir: dataDir(), executor: (r) => (calls.push(r.step), { output: {} }) });
    expect(result).toEqual({
      runId: result.runId,
      status: 'failed',
      steps: { read: 'pending', remember: 'pending' },
      pending: [],
      error: {
        code: 'state-missing',
        message: 'Unexpected missing state `last`: last.json does not exist in the data folder and the method declares no default',
      },
    });
    expect(calls).toEqual([]);
  });

  it.each([
    ['not JSON', '{week', 'that is not JSON'],
    ['a missing field', '{"week":"W1"}', 'state `last` lacks the field `count`'],
    ['an extra field', '{"week":"W1","count":1,"x":2}', 'state `last` has the field `x`, which is not declared'],
  ])('MTH-5: fails before any step when the state file is %s', async (_, text, message) => {
    const result = await runMethod(method(last), { dataDir: dataDir({ 'last.json': text }), executor: executor({}) });
    expect(result).toMatchObject({ status: 'failed', error: { code: 'state-invalid' } });
    expect(result.error!.message).toContain(message);
  });

  it.each([
    ['an invalid replacement', { week: 'W2' }, 'the replacement of `state.last` lacks the field `count`'],
    ['no replacement', undefined, 'without `state.last`, expected its complete replacement value'],
  ])('MTH-13: fails the step and leaves the file as it was on %s', async (_, replacement, message) => {
    const dir = dataDir({ 'last.json': '{"week":"W1","count":4}' });
    const result = await runMethod(method(last), {
      dataDir: dir,
      executor: (r) => (r.step === 'read' ? { output: { week: 'W1' } } : replacement === undefined ? {} : { changes: { 'state.last': replacement } }),
    });
    expect(result).toMatchObject({ status: 'failed', steps: { read: 'unchecked', remember: 'failed' }, error: { code: 'invalid-change' } });
    expect(result.error!.message).toContain(message);
    expect(readFileSync(path.join(dir, 'last.json'), 'utf8')).toBe('{"week":"W1","count":4}');
  });

  it('MTH-13: refuses a change to a target the step did not declare', async () => {
    const dir = dataDir({ 'last.json': '{"week":"W1","count":4}' });
    const result = await runMethod(method(last), {
      dataDir: dir,
      executor: (r) => (r.step === 'read' ? { output: { week: 'W1' } } : { changes: { 'state.last': { week: 'W', count: 1 }, 'state.other': 1 } }),
    });
    expect(result.error).toEqual({
      code: 'invalid-change',
      message: 'Step `remember` failed: Unexpected change `state.other` from step `remember`, which declares `state.last`',
    });
  });
});
