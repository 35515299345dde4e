import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { berrypack, ROOT } from './support/cli.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'berrypack-run-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

interface RunJson {
  executionId: string | null;
  status: 'completed' | 'failed';
  diagnostics: { code: string; severity: string }[];
  calls: { id: string; kind: string; name: string; status: string }[];
  output?: unknown;
  error?: { code: string; message: string };
}

function runJson(args: string[]): { code: number | null; json: RunJson; stderr: string } {
  const r = berrypack(['run', ...args, '--json']);
  return { code: r.code, json: JSON.parse(r.stdout) as RunJson, stderr: r.stderr };
}

function file(name: string, text: string): string {
  const target = path.join(tmp, name);
  mkdirSync(path.dirname(target), { recursive: true });
  writeFileSync(target, text);
  return target;
}

describe('berrypack run (the real bin)', () => {
  it('builds a manifest in memory, runs an agent and prints exactly the run object', () => {
    const script = file('farewell.json', JSON.stringify({ farewell: [{ text: 'Goodbye!' }] }));
    const r = runJson(['fixtures/runtime/agents', '--agent', 'solo', '--script', script]);
    expect(r.code).toBe(0);
    expect(Object.keys(r.json).sort()).toEqual(['calls', 'diagnostics', 'executionId', 'output', 'status']);
    expect(r.json).toMatchObject({ status: 'completed', output: 'Goodbye!', diagnostics: [] });
    expect(r.json.executionId).toMatch(/^exec-/);
    expect(r.json.calls.map((c) => `${c.id} ${c.kind} ${c.name} ${c.status}`)).toEqual(['c1 entry farewell completed', 'c1.1 model farewell completed']);
  });

  it('prints the output pretty and a one-line summary as text', () => {
    const r = berrypack(['run', 'fixtures/runtime/agents/plugin.json', '--agent', 'formal']);
    expect(r.code).toBe(0);
    const [output, summary] = r.stdout.trimEnd().split('\n');
    expect(output).toBe('"Scripted answer from greet."');
    expect(summary).toMatch(/^completed · 2 calls \(1 entry, 1 model\) · exec-[0-9a-f-]{36}$/);
  });

  it('fails a run with invalid input: status failed, the error and the calls, exit 1', () => {
    const r = runJson(['fixtures/notebook', '--export', 'notes.compose', '--input', '{"text": 5}']);
    expect(r.code).toBe(1);
    expect(Object.keys(r.json).sort()).toEqual(['calls', 'diagnostics', 'error', 'executionId', 'status']);
    expect(r.json).toMatchObject({
      status: 'failed',
      error: { code: 'invalid-input', message: 'Unexpected input for `notes.compose`: $.text must be string' },
    });
    expect(r.json.executionId).toMatch(/^exec-/);
    expect(r.json.diagnostics).toEqual([expect.objectContaining({ code: 'BP1003', severity: 'info' })]);
  });

  it('reports a bundle that does not load with executionId null', () => {
    const built = berrypack(['build', 'fixtures/runtime/agents', '--out-dir', path.join(tmp, 'dist'), '--json']);
    const bundle = (JSON.parse(built.stdout) as { file: string }).file;
    const bytes = readFileSync(path.resolve(ROOT, bundle));
    const at = bytes.indexOf('Greets formally');
    bytes[at] = 'g'.charCodeAt(0);
    const flipped = file('flipped.berry.json', bytes.toString('utf8'));
    const r = runJson([flipped, '--agent', 'formal']);
    expect(r.code).toBe(1);
    expect(r.json).toEqual({
      executionId: null,
      status: 'failed',
      diagnostics: [],
      calls: [],
      error: { code: 'BP4009', message: expect.stringContaining("(the content's digest)") },
    });
    const ok = runJson([path.resolve(ROOT, bundle), '--agent', 'formal']);
    expect(ok.json.status).toBe('completed');
  });

  it('reports a manifest that does not build with its diagnostics and executionId null', () => {
    const dir = path.join(tmp, 'broken');
    file(
      'broken/plugin.json',
      JSON.stringify({
        $schema: 'https://agent-plugins.org/schemas/1.0.0/plugin.schema.json',
        name: 'broken.pkg',
        version: '1',
        extensions: { 'ai.strawberry.berry': { agents: { a: { title: 'A', description: 'A.', entry: 'missing' } } } },
      }),
    );
    const r = runJson([dir, '--agent', 'a']);
    expect(r.code).toBe(1);
    expect(r.json).toMatchObject({ executionId: null, status: 'failed', calls: [], error: { code: 'build-failed' } });
    expect(r.json.diagnostics.some((d) => d.severity === 'error')).toBe(true);
  });

  it('reports a refused preparation (an external tool nobody grants) with executionId null', () => {
    const r = runJson(['fixtures/runtime/models', '--agent', 'weather', '--input', '{"city":"Oslo"}', '--env', 'REGION=eu', '--env', 'TOKEN=t']);
    expect(r.code).toBe(1);
    expect(r.json).toMatchObject({ executionId: null, status: 'failed', error: { code: 'not-granted' } });
  });

  it('exits 2 with one line on stderr for usage errors', () => {
    for (const args of [
      ['fixtures/runtime/agents'],
      ['fixtures/runtime/agents', '--agent', 'solo', '--export', 'greet'],
      ['fixtures/runtime/agents', '--agent', 'solo', '--input', '{not json'],
      ['fixtures/runtime/agents', '--agent', 'nobody'],
      ['fixtures/runtime/agents', '--export', 'greet'],
      ['fixtures/runtime/agents', '--agent', 'solo', '--timeout', '0'],
    ]) {
      const r = berrypack(['run', ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/^berrypack run: /);
    }
  });
});

describe('berrypack replay (the real bin)', () => {
  it('replays a journal written by run and exits 1 on a divergence', () => {
    const journal = path.join(tmp, 'solo.jsonl');
    const script = file('solo.json', JSON.stringify({ farewell: [{ text: 'Bye.' }] }));
    expect(berrypack(['run', 'fixtures/runtime/agents', '--agent', 'solo', '--script', script, '--journal', journal]).code).toBe(0);
    const replayed = berrypack(['replay', journal, '--json']);
    expect(replayed.code).toBe(0);
    expect(JSON.parse(replayed.stdout)).toMatchObject({ matches: true, status: 'completed', output: 'Bye.' });
    const text = berrypack(['replay', journal]);
    expect(text.stdout).toMatch(/^replay of exec-[0-9a-f-]{36} matches the journal \(completed\)\n/);

    // A recording made with another body: the replayed decision differs at the same position.
    const lines = readFileSync(journal, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const edited = lines.map((e) => (e['type'] === 'call' && e['kind'] === 'model' ? { ...e, input: { instructions: 'Say hello.', messages: [] } } : e));
    const divergent = file('divergent.jsonl', edited.map((e) => JSON.stringify(e)).join('\n') + '\n');
    const r = berrypack(['replay', divergent, '--json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({
      matches: false,
      divergence: { at: 'c1.1', recorded: { name: 'farewell' }, replayed: { name: 'farewell' } },
      error: { code: 'non-determinism' },
    });
    const shown = berrypack(['replay', divergent]);
    expect(shown.stdout).toMatch(/^✖ divergence at c1\.1: Unexpected call c1\.1 model `farewell`/);
  });

  it('runs the notebook agent with its script and replays its code routines', () => {
    const journal = path.join(tmp, 'notebook.jsonl');
    const r = runJson([
      'fixtures/notebook',
      '--agent',
      'notebook',
      '--input',
      '{"message":"Note: buy oat milk."}',
      '--script',
      'fixtures/runtime/scripts/notebook.json',
      '--journal',
      journal,
    ]);
    expect(r.code).toBe(0);
    expect(r.json.output).toBe('Saved your note; notes 0 and 2 mention milk.');
    expect(r.json.calls.map((c) => `${c.kind} ${c.name}`)).toEqual(expect.arrayContaining(['next notes.count', 'tool search.rank']));
    const replayed = berrypack(['replay', journal, '--bundle', 'fixtures/notebook', '--json']);
    expect(replayed.code).toBe(0);
    expect(JSON.parse(replayed.stdout)).toMatchObject({ matches: true });
  });
});
