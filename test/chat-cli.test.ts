import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, ROOT } from './support/cli.js';
import { tempDir } from './support/temp.js';

const SCRIPT = 'fixtures/runtime/scripts/conversation.json';
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** `berrypack chat` as a child process, its stdin fed with `input` and then closed. */
function chat(args: string[], input: string) {
  const result = spawnSync(process.execPath, [BIN, 'chat', ...args], {
    cwd: ROOT,
    input,
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, NO_COLOR: '1' },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const lines = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('berrypack chat', () => {
  it('text mode: each stdin line is a turn; answers print in order; end of stdin ends it completed', () => {
    const r = chat(['fixtures/conversation', '--agent', 'assistant', '--script', SCRIPT], 'hello\nwhich notes mention milk?\n');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        'Hello! Ask me anything about your notes.',
        'Let me look through your notes.',
        'Two notes mention milk: "Buy oat milk." and "Milk the cows at six."',
        '',
      ].join('\n'),
    );
  });

  it('--json: delta, publication, call lines and a last end line; the journal replays', () => {
    const dir = tempDir();
    dirs.push(dir);
    const journal = path.join(dir, 'chat.jsonl');
    const r = chat(
      ['fixtures/conversation', '--agent', 'desk', '--script', SCRIPT, '--json', '--journal', journal],
      '{"parts":[{"text":"hello"}]}\nnot json\n{"parts":[{"text":"my invoice is wrong"}]}\n',
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('line 2 is not JSON');
    const out = lines(r.stdout);
    expect(out[out.length - 1]).toEqual({ type: 'end', status: 'completed', output: 'Happy to help with that.' });
    const deltas = out.filter((l) => l['type'] === 'delta');
    const publications = out.filter((l) => l['type'] === 'publication');
    expect(deltas.map((d) => d['text']).join('')).toBe('Happy to help with that.');
    expect(publications).toEqual([
      { type: 'publication', id: deltas[0]!['publication'], value: { parts: [{ text: 'Happy to help with that.' }] }, kind: 'message', answers: 'm1' },
      {
        type: 'publication',
        id: expect.any(String),
        value: { route: 'thread', thread: 'billing', title: 'Billing', request: 'my invoice is wrong' },
        kind: 'route',
        answers: 'm2',
      },
    ]);
    expect(out.filter((l) => l['type'] === 'call').every((l) => ['id', 'name', 'kind', 'status', 'type'].every((k) => k in l))).toBe(true);
    expect(out.some((l) => l['type'] === 'call' && l['kind'] === 'route' && l['status'] === 'completed')).toBe(true);
    // Usage (estimated: the scripted provider reports none) comes with each completed decision.
    expect(out.find((l) => l['type'] === 'call' && l['kind'] === 'model' && l['status'] === 'completed')).toMatchObject({
      usage: { inputTokens: expect.any(Number), outputTokens: 6, estimated: true },
    });
    const replay = spawnSync(process.execPath, [BIN, 'replay', journal, '--json'], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
    expect(JSON.parse(replay.stdout)).toMatchObject({ matches: true });
    expect(replay.status).toBe(0);
  });

  it('--continue: replays the stopped conversation without publishing it again, then answers the new line', () => {
    const dir = tempDir();
    dirs.push(dir);
    const journal = path.join(dir, 'chat.jsonl');
    const first = chat(['fixtures/conversation', '--agent', 'assistant', '--script', SCRIPT, '--json', '--journal', journal], '{"parts":[{"text":"hello"}]}\n');
    expect(first.code).toBe(0);
    const again = chat(
      ['fixtures/conversation', '--agent', 'assistant', '--script', SCRIPT, '--json', '--journal', journal, '--continue', journal],
      '{"parts":[{"text":"milk?"}]}\n',
    );
    expect(again.stderr).toBe('');
    expect(again.code).toBe(0);
    const out = lines(again.stdout);
    expect(out.filter((l) => l['type'] === 'publication').map((l) => [l['kind'], l['answers']])).toEqual([
      ['progress', 'm2'],
      ['message', 'm2'],
    ]);
    expect(out[out.length - 1]).toMatchObject({
      type: 'end',
      status: 'completed',
      output: 'Two notes mention milk: "Buy oat milk." and "Milk the cows at six."',
    });
    const entries = readFileSync(journal, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const headers = entries.filter((e) => e['type'] === 'execution');
    expect(headers).toHaveLength(2);
    expect(headers[1]!['continues']).toBe(headers[0]!['executionId']);
    const replay = spawnSync(process.execPath, [BIN, 'replay', journal, '--json'], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
    expect(JSON.parse(replay.stdout)).toMatchObject({ matches: true, output: 'Two notes mention milk: "Buy oat milk." and "Milk the cows at six."' });
  });

  it("run answers a conversational entry's --input once and completes: it sends no messages", () => {
    const r = spawnSync(
      process.execPath,
      [BIN, 'run', 'fixtures/conversation', '--agent', 'assistant', '--script', SCRIPT, '--input', '{"parts":[{"text":"hello"}]}', '--json'],
      { cwd: ROOT, encoding: 'utf8', timeout: 120_000 },
    );
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'completed', output: 'Hello! Ask me anything about your notes.' });
  });

  it('refuses to continue an execution that was not stopped waiting for input, and fails (exit 1) when the agent fails', () => {
    const dir = tempDir();
    dirs.push(dir);
    const journal = path.join(dir, 'run.jsonl');
    const run = spawnSync(process.execPath, [BIN, 'run', 'fixtures/notebook', '--agent', 'notebook', '--input', '{"message":"hi"}', '--journal', journal], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(run.status).toBe(0);
    const refused = chat(['fixtures/notebook', '--agent', 'notebook', '--json', '--continue', journal], '');
    expect(refused.code).toBe(1);
    expect(lines(refused.stdout)).toEqual([
      { type: 'end', status: 'failed', error: { code: 'not-continuable', message: expect.stringContaining('was not stopped while waiting for input') } },
    ]);

    const bad = path.join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ chat: [{ nonsense: true }] }));
    const failed = chat(['fixtures/conversation', '--agent', 'assistant', '--script', bad], 'hello\n');
    expect(failed.code).toBe(1);
    expect(failed.stdout).toMatch(/^✖ provider-failed: /m);
  });
});
