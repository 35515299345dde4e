import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isolatedTurboEnv } from '../scripts/scale/remote-cache.mjs';
import { BIN, ROOT } from './support/cli.js';
import { cleanup, copyFixtures } from './support/temp.js';

const dir = copyFixtures(['monorepo']);
const repo = path.join(dir, 'monorepo');
afterAll(() => cleanup(dir));

// The temporary copy gets the repository's berrypack bin and its own workspace links, as
// `npm install` would make them, so turbo runs the packages' real `build` scripts.
mkdirSync(path.join(repo, 'node_modules/.bin'), { recursive: true });
symlinkSync(BIN, path.join(repo, 'node_modules/.bin/berrypack'));
for (const p of ['text-kit', 'greeter', 'notes']) symlinkSync(path.join('..', 'packages', p), path.join(repo, 'node_modules', p));

function turbo(): { status: Record<string, 'hit' | 'miss'>; output: string } {
  const result = spawnSync(path.join(ROOT, 'node_modules/.bin/turbo'), ['run', 'build', '--output-logs=hash-only'], {
    cwd: repo,
    env: isolatedTurboEnv(),
    encoding: 'utf8',
    timeout: 120_000,
  });
  const output = result.stdout + result.stderr;
  expect(result.status, output).toBe(0);
  const status: Record<string, 'hit' | 'miss'> = {};
  for (const m of output.matchAll(/^(\S+):build: cache (hit|miss)/gm)) status[m[1]!] = m[2] as 'hit' | 'miss';
  return { status, output };
}

function bundles(pkg: string): Record<string, string> {
  const out = path.join(repo, 'packages', pkg, 'dist');
  return Object.fromEntries(
    readdirSync(out)
      .filter((f) => f.endsWith('.berry.json'))
      .map((f) => [f, readFileSync(path.join(out, f), 'utf8')]),
  );
}

describe('a turbo monorepo of plugin packages', () => {
  it('builds every package, then serves the second run from the cache with identical bundles', () => {
    expect(turbo().status).toEqual({ 'text-kit': 'miss', greeter: 'miss', notes: 'miss' });
    const before = { kit: bundles('text-kit'), greeter: bundles('greeter'), notes: bundles('notes') };
    expect(Object.keys(before.greeter)).toHaveLength(1);
    expect(turbo().status).toEqual({ 'text-kit': 'hit', greeter: 'hit', notes: 'hit' });
    expect({ kit: bundles('text-kit'), greeter: bundles('greeter'), notes: bundles('notes') }).toEqual(before);
  });
  it('rebuilds the changed package and its dependent only', () => {
    const before = bundles('greeter');
    const tone = path.join(repo, 'packages/text-kit/text/tone.md');
    writeFileSync(tone, readFileSync(tone, 'utf8').replace('Be warm and brief.', 'Be warm, brief and kind.'));
    expect(turbo().status).toEqual({ 'text-kit': 'miss', greeter: 'miss', notes: 'hit' });
    const after = bundles('greeter');
    const added = Object.keys(after).filter((f) => !(f in before));
    expect(added).toHaveLength(1);
    expect(after[added[0]!]).toContain('Be warm, brief and kind.');
  });
});
