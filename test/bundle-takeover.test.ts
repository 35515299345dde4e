import { appendFileSync, existsSync, linkSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as esbuild from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { createCompiler, loadBundleFile, writeBundle } from '@berrypack/compiler';
import berrypack from '../packages/esbuild/src/index.js';
import { copyFixtures, writeFiles } from './support/temp.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'berrypack-takeover-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const bundlesIn = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.berry.json'))
    .sort();

/** Two different builds of the notebook: the one before and the one after an edit. */
function twoBuilds() {
  const dir = copyFixtures(['notebook']);
  const manifest = path.join(dir, 'notebook/plugin.json');
  const compiler = createCompiler();
  const before = compiler.build(manifest).bundle!;
  appendFileSync(path.join(dir, 'notebook/routines/notes/triage.md'), '\nOne more sentence.\n');
  const after = compiler.build(manifest).bundle!;
  expect(after.fileName).not.toBe(before.fileName);
  return { before, after };
}

describe('a watch rebuild takes over the bundle it supersedes', () => {
  it('overwrites the older bundle in place, leaving one verifying bundle', () => {
    const { before, after } = twoBuilds();
    const out = path.join(root, 'out1');
    writeBundle(out, before);
    writeBundle(out, after, { durable: false, replaces: before.fileName });
    expect(bundlesIn(out)).toEqual([after.fileName]);
    expect(Buffer.from(readFileSync(path.join(out, after.fileName))).equals(Buffer.from(after.bytes))).toBe(true);
    expect(loadBundleFile(path.join(out, after.fileName)).ok).toBe(true);
    // Shorter after longer: the file is cut to the new length.
    writeBundle(out, before, { durable: false, replaces: after.fileName });
    expect(bundlesIn(out)).toEqual([before.fileName]);
    expect(loadBundleFile(path.join(out, before.fileName)).ok).toBe(true);
  });

  it('leaves a hard-linked older bundle, a missing one and a name that is not a bundle alone', () => {
    const { before, after } = twoBuilds();
    const out = path.join(root, 'out2');
    writeBundle(out, before);
    const copy = path.join(root, 'elsewhere.berry.json');
    linkSync(path.join(out, before.fileName), copy);
    writeBundle(out, after, { durable: false, replaces: before.fileName });
    expect(bundlesIn(out)).toEqual([after.fileName, before.fileName].sort());
    expect(Buffer.from(readFileSync(copy)).equals(Buffer.from(before.bytes))).toBe(true);

    const out3 = path.join(root, 'out3');
    writeBundle(out3, after, { durable: false, replaces: 'gone.0123456789ab.berry.json' });
    writeBundle(out3, before, { durable: false, replaces: '../out2/x.berry.json' });
    expect(existsSync(path.join(root, 'out2', before.fileName))).toBe(true);
    expect(bundlesIn(out3)).toEqual([after.fileName, before.fileName].sort());
  });

  it('esbuild context rebuilds keep one bundle per package in the out dir', async () => {
    const dir = copyFixtures(['notebook']);
    writeFiles(dir, { 'main.js': "import app from './notebook/plugin.json';\nexport default app.id;\n" });
    const ctx = await esbuild.context({
      absWorkingDir: dir,
      entryPoints: ['main.js'],
      bundle: true,
      format: 'esm',
      outdir: 'dist',
      plugins: [berrypack()],
      logLevel: 'silent',
    });
    try {
      await ctx.rebuild();
      const first = bundlesIn(path.join(dir, 'dist'));
      for (let i = 0; i < 3; i++) {
        appendFileSync(path.join(dir, 'notebook/routines/notes/triage.md'), `\nEdit ${i}.\n`);
        await ctx.rebuild();
      }
      const last = bundlesIn(path.join(dir, 'dist'));
      expect(first).toHaveLength(1);
      expect(last).toHaveLength(1);
      expect(last).not.toEqual(first);
      const built = createCompiler().build(path.join(dir, 'notebook/plugin.json')).bundle!;
      expect(last).toEqual([built.fileName]);
      expect(loadBundleFile(path.join(dir, 'dist', last[0]!)).ok).toBe(true);
      expect(readFileSync(path.join(dir, 'dist/main.js'), 'utf8')).toContain(built.id);
    } finally {
      await ctx.dispose();
    }
  });
});
