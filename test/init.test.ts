// `berrypack init`: a new package that checks, builds and runs at once, and never overwrites.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { berrypack } from './support/cli.js';
import { cleanup, listFiles, tempDir } from './support/temp.js';

const dirs: string[] = [];
afterAll(() => cleanup(...dirs));

describe('berrypack init', () => {
  it('creates a package that checks clean, builds and runs its agent through a model and a code routine', () => {
    const cwd = tempDir();
    dirs.push(cwd);
    const init = berrypack(['init', 'my-agent'], { cwd });
    expect(init.code).toBe(0);
    expect(init.stderr).toBe('');
    expect(init.stdout.split('\n')[0]).toBe('created my-agent: plugin.json, routines/greet.md, routines/count.md, runtime.yaml, answers.json');
    expect(listFiles(path.join(cwd, 'my-agent'))).toEqual(['answers.json', 'plugin.json', 'routines/count.md', 'routines/greet.md', 'runtime.yaml']);
    expect((JSON.parse(readFileSync(path.join(cwd, 'my-agent/plugin.json'), 'utf8')) as { name: string }).name).toBe('local.my-agent');

    const check = berrypack(['check', 'my-agent', '--json'], { cwd });
    expect(check.code).toBe(0);
    expect((JSON.parse(check.stdout) as { diagnostics: unknown[] }).diagnostics).toEqual([]);
    const build = berrypack(['build', 'my-agent', '--out-dir', 'dist', '--json'], { cwd });
    expect(build.code).toBe(0);
    expect(readdirSync(path.join(cwd, 'dist')).filter((f) => f.endsWith('.berry.json'))).toHaveLength(1);
    // The commands init prints, as printed: runtime.yaml's scripted `models:` entry answers from answers.json.
    expect(init.stdout).toContain(`  berrypack run my-agent --agent greeter --input '{"name":"Ada"}'\n`);
    const run = berrypack(['run', 'my-agent', '--agent', 'greeter', '--input', '{"name":"Ada"}', '--json', '--journal', 'run.jsonl'], { cwd });
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout) as { status: string; output: unknown; calls: { kind: string }[] };
    expect(result.status).toBe('completed');
    expect(result.output).toEqual({ text: 'Hello Ada, good to see you!', words: 6 });
    expect(result.calls.map((c) => c.kind)).toEqual(['entry', 'model', 'next']);
    const header = JSON.parse(readFileSync(path.join(cwd, 'run.jsonl'), 'utf8').split('\n')[0]!) as { models: unknown };
    expect(header.models).toEqual({ greet: { provider: 'scripted', configured: 'offline' } });
    // --script still forces its own answers.
    writeFileSync(path.join(cwd, 'other.json'), JSON.stringify({ greet: [{ output: { text: 'Hi there' } }] }));
    const forced = berrypack(['run', 'my-agent', '--agent', 'greeter', '--input', '{"name":"Ada"}', '--script', 'other.json', '--json'], { cwd });
    expect((JSON.parse(forced.stdout) as { output: unknown }).output).toEqual({ text: 'Hi there', words: 2 });
  });

  it('never overwrites, and refuses a bad name', () => {
    const cwd = tempDir();
    dirs.push(cwd);
    writeFileSync(path.join(cwd, 'plugin.json'), '{}');
    const again = berrypack(['init'], { cwd });
    expect(again.code).toBe(2);
    expect(again.stderr).toBe('berrypack init: Unexpected plugin.json in ., expected none: berrypack init never overwrites\n');
    expect(readFileSync(path.join(cwd, 'plugin.json'), 'utf8')).toBe('{}');
    const bad = berrypack(['init', 'x', '--name', 'My_Plugin'], { cwd });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^berrypack init: Unexpected --name My_Plugin, expected lowercase/);
  });
});
