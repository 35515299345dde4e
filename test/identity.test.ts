import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import * as esbuild from 'esbuild';
import { rollup } from 'rollup';
import { build as viteBuild } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import esbuildPlugin from '../packages/esbuild/src/index.js';
import rollupPlugin from '../packages/rollup/src/index.js';
import webpackPlugin from '../packages/webpack/src/index.js';
import { run } from '../packages/cli/src/index.js';
import { cleanup, copyFixture, tempDir, writeFiles } from './support/temp.js';
import { build as hostBuild, HOSTS, nodeConfig } from './support/webpack.js';

/** The bundle and blob files under `dir`, relative, with their bytes. */
function emitted(dir: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (const name of readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort()) {
    const file = path.join(dir, name);
    const relative = name.split(path.sep).join('/');
    if (statSync(file).isFile() && (relative.endsWith('.berry.json') || relative.startsWith('blobs/'))) files.set(relative, readFileSync(file));
  }
  return files;
}

// One package with resource blobs and an imported package, built from every entry point.
describe('the same bundle bytes from the CLI, Rollup, Vite, esbuild, webpack and Rspack', () => {
  let dir: string;
  beforeAll(() => {
    dir = tempDir('berrypack-identity-');
    copyFixture('imports/app', dir);
    copyFixture('imports/lib', dir);
    writeFiles(dir, { 'main.js': "import app from './app/plugin.json';\nexport default app;\n" });
  });
  afterAll(() => cleanup(dir));

  it('writes byte-identical bundles and blobs under the same names', { timeout: 120_000 }, async () => {
    const out = (tool: string) => path.join(dir, 'out', tool);
    const io = { stdout: { write: () => true }, stderr: { write: () => true }, cwd: dir, env: { NO_COLOR: '1' } };
    expect(await run(['build', 'app/plugin.json', '--out-dir', out('cli')], io)).toBe(0);

    const rolled = await rollup({ input: path.join(dir, 'main.js'), plugins: [rollupPlugin()], logLevel: 'silent' });
    await rolled.write({ dir: out('rollup'), format: 'es' });
    await rolled.close();

    await viteBuild({
      root: dir,
      configFile: false,
      logLevel: 'silent',
      plugins: [rollupPlugin()],
      build: { outDir: out('vite'), minify: false, rolldownOptions: { input: path.join(dir, 'main.js') } },
    });

    await esbuild.build({
      absWorkingDir: dir,
      entryPoints: ['main.js'],
      bundle: true,
      format: 'esm',
      outdir: out('esbuild'),
      plugins: [esbuildPlugin()],
      logLevel: 'silent',
    });

    for (const host of HOSTS) {
      const outcome = await hostBuild(host, nodeConfig(dir, [webpackPlugin()], { output: { path: out(host.name) } }));
      expect(outcome.errors, host.name).toEqual([]);
    }

    const cli = emitted(out('cli'));
    expect([...cli.keys()].filter((name) => name.endsWith('.berry.json'))).toHaveLength(1);
    expect([...cli.keys()].some((name) => name.startsWith('blobs/sha256/'))).toBe(true);
    for (const tool of ['rollup', 'vite', 'esbuild', 'webpack', 'rspack']) {
      const files = emitted(out(tool));
      expect([...files.keys()], tool).toEqual([...cli.keys()]);
      for (const [name, bytes] of cli) expect(Buffer.compare(files.get(name)!, bytes), `${tool}: ${name}`).toBe(0);
    }
  });
});
