// The CLI's answers to a wrong call: one line on stderr, exit 2, and a pointer to the right thing
// (CONTRACTS.md, CLI). In process (`run` with a memory io), except the version, read from the bin.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../packages/cli/src/index.js';
import { berrypack, ROOT } from './support/cli.js';
import { cleanup, copyFixtures } from './support/temp.js';

const dirs: string[] = [];
afterAll(() => cleanup(...dirs));

async function cli(args: string[], cwd: string) {
  const out: string[] = [];
  const err: string[] = [];
  const io = { stdout: { write: (s: string) => void out.push(s) }, stderr: { write: (s: string) => void err.push(s) }, cwd, env: { NO_COLOR: '1' } };
  const code = await run(args, io);
  return { code, stdout: out.join(''), stderr: err.join('') };
}

function workspace(): string {
  const dir = copyFixtures(['notebook']);
  dirs.push(dir);
  return dir;
}

describe('berrypack usage errors', () => {
  it('--version prints the package version', () => {
    const r = berrypack(['--version']);
    expect(r).toEqual({
      code: 0,
      stdout: `${(JSON.parse(readFileSync(path.join(ROOT, 'packages/cli/package.json'), 'utf8')) as { version: string }).version}\n`,
      stderr: '',
    });
  });

  it('an unknown option gets a "did you mean" and no argument-parser text', async () => {
    const r = await cli(['build', 'notebook', '--out-dirr', 'x'], workspace());
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: 'berrypack build: Unexpected option `--out-dirr` (did you mean `--out-dir`?); run with --help for the options\n',
    });
  });

  it('check on a directory with no sources is an error, not "no problems"', async () => {
    const dir = workspace();
    mkdirSync(path.join(dir, 'empty'));
    writeFileSync(path.join(dir, 'empty', 'README.md'), '# Notes\n');
    const r = await cli(['check', 'empty'], dir);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `berrypack check: Unexpected PATH ${path.join(dir, 'empty')}: it holds no plugin.json and no routine sources (.md files whose first line is \`---\`)\n`,
    );
  });

  it('--out-dir naming a file is a usage error, and nothing is written', async () => {
    const dir = workspace();
    writeFileSync(path.join(dir, 'out.txt'), 'keep');
    const r = await cli(['build', 'notebook', '--out-dir', 'out.txt'], dir);
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: 'berrypack build: Unexpected --out-dir out.txt: it is a file, expected a directory (or a path to create one at)\n',
    });
    expect(readFileSync(path.join(dir, 'out.txt'), 'utf8')).toBe('keep');
  });

  it('a missing bundle is exit 2 for inspect, check and build alike', async () => {
    const dir = workspace();
    const results = await Promise.all(
      [
        ['inspect', 'nope.berry.json'],
        ['check', 'nope.berry.json'],
        ['build', 'nope.berry.json'],
      ].map((args) => cli(args, dir)),
    );
    expect(results.map((r) => r.code)).toEqual([2, 2, 2]);
    expect(results[0]!.stderr).toBe('berrypack inspect: Unexpected BUNDLE nope.berry.json: no such file or directory\n');
  });

  it('check on a bundle points to inspect', async () => {
    const dir = workspace();
    expect((await cli(['build', 'notebook', '--out-dir', 'dist', '--no-cache'], dir)).code).toBe(0);
    const { readdirSync } = await import('node:fs');
    const bundle = path.join(
      'dist',
      readdirSync(path.join(dir, 'dist')).find((f) => f.endsWith('.berry.json'))!,
    );
    const r = await cli(['check', bundle], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/; a bundle is verified and listed with `berrypack inspect`\n$/);
  });

  it('help points to documentation that exists outside the repository', async () => {
    const r = await cli(['--help'], ROOT);
    expect(r.stdout).toMatch(/Documentation: https:\/\/github\.com\/\S+#readme/);
    expect(r.stdout).not.toMatch(/see docs\//);
  });
});
