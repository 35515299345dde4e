import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createCompiler } from '@berrypack/compiler';
import { createBuildSlot, createCompilers, manifestsImportedBy, offloadedBuilds } from '@berrypack/compiler/internal-adapter';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createOffload, offloadWanted } from '../packages/compiler/src/package/offload.js';
import webpackPlugin from '../packages/webpack/src/index.js';
import { cleanup, tempDir, writeFiles } from './support/temp.js';
import { build, bundleAsset, HOSTS, nodeConfig, type BuildOutcome } from './support/webpack.js';

// A one-shot build may compile on a worker thread started before the host asks
// (packages/compiler/src/package/offload.ts): webpack's plugin starts the compile of the packages
// its entries import when it is applied. The result must be the host thread's, byte for byte;
// a worker that cannot start or dies leaves the build to the host's thread.

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** A package with one warning (BP1041: `pick` exported, nothing else wrong), imported by main.js. */
const WARNED = {
  'warned/plugin.json': JSON.stringify({
    $schema: 'https://agent-plugins.org/schemas/1.0.0/plugin.schema.json',
    name: 'example.warned',
    version: '1',
    extensions: { 'ai.strawberry.berry': { sources: 'r', exports: ['pick'] } },
  }),
  'warned/r/pick.md':
    "---\nname: pick\ndescription: Picks a mood.\nmodel:\n  select:\n    operation: generation\ninput:\n  type: string\n  enum: ['été 🍓', 'ü']\n---\nPick one.\n",
  'main.js': "import app from './warned/plugin.json';\nexport default app;\n",
};

let dir: string;
beforeEach(() => {
  dir = tempDir('berrypack-offload-');
  // Off by default (offloadWanted).
  process.env.BERRYPACK_OFFLOAD = '1';
});
afterEach(() => {
  delete process.env.BERRYPACK_OFFLOAD;
  cleanup(dir);
});

describe('offloaded one-shot builds', () => {
  it('a slot’s speculated build is compiled by the worker and equals the host thread’s result', async () => {
    writeFiles(dir, WARNED);
    const manifest = path.join(dir, 'warned/plugin.json');
    const slot = createBuildSlot(createCompilers({}, { offload: true }));
    const before = offloadedBuilds();
    slot.speculate(manifest);
    slot.start(false);
    const memo = slot.memo(createCompiler);
    await memo.prepare(manifest);
    const { result, first } = memo.build(manifest);
    expect(offloadedBuilds()).toBe(before + 1);
    expect(first).toBe(true);
    expect(memo.build(manifest).first).toBe(false);

    const local = createCompiler({ oneShot: true }).build(manifest);
    expect(Buffer.from(result.bundle!.bytes).equals(Buffer.from(local.bundle!.bytes))).toBe(true);
    expect(result.bundle!.text).toBe(local.bundle!.text);
    expect({ ...result.bundle, bytes: undefined, text: undefined, parts: undefined }).toEqual({
      ...local.bundle,
      bytes: undefined,
      text: undefined,
      parts: undefined,
    });
    const { bundle: _a, ...rest } = result;
    const { bundle: _b, ...localRest } = local;
    expect(rest).toEqual(localRest);

    // The next build did not speculate: it compiles on this thread.
    slot.start(false);
    await memo.prepare(manifest);
    expect(memo.build(manifest).first).toBe(true);
    expect(offloadedBuilds()).toBe(before + 1);
    slot.close();
  });

  it('a result nobody took is dropped when the next build starts, and a watched build drops every one', async () => {
    writeFiles(dir, WARNED);
    const manifest = path.join(dir, 'warned/plugin.json');
    const offload = createOffload({})!;
    offload.compile(manifest);
    offload.expire();
    offload.expire();
    expect(await offload.take(manifest)).toBeUndefined();
    offload.compile(manifest);
    offload.close();
    expect(await offload.take(manifest)).toBeUndefined();
  });

  it.each([
    ['cannot start', 'throw new Error("no worker today");\n'],
    ['dies on its first request', "import { parentPort } from 'node:worker_threads';\nparentPort.on('message', () => process.exit(3));\n"],
  ])('a worker that %s answers nothing: the memo builds on this thread, with the same result', async (_, script) => {
    writeFiles(dir, { ...WARNED, 'bad-worker.mjs': script });
    const manifest = path.join(dir, 'warned/plugin.json');
    const offload = createOffload({}, path.join(dir, 'bad-worker.mjs'))!;
    offload.compile(manifest);
    expect(await offload.take(manifest)).toBeUndefined();

    const slot = createBuildSlot(Object.assign(createCompilers({}), { offload: () => createOffload({}, path.join(dir, 'bad-worker.mjs')) }));
    const before = offloadedBuilds();
    slot.speculate(manifest);
    slot.start(false);
    const memo = slot.memo(createCompiler);
    await memo.prepare(manifest);
    const { result } = memo.build(manifest);
    expect(offloadedBuilds()).toBe(before);
    expect(Buffer.from(result.bundle!.bytes).equals(Buffer.from(createCompiler().build(manifest).bundle!.bytes))).toBe(true);
  });

  it('offloads only with BERRYPACK_OFFLOAD=1 and two cores or more', () => {
    expect(offloadWanted('1', 2)).toBe(true);
    expect(offloadWanted('1', 1)).toBe(false);
    expect(offloadWanted('', 8)).toBe(false);
    expect(offloadWanted('0', 8)).toBe(false);
    expect(offloadWanted('yes', 8)).toBe(false);
  });

  it('options that cannot cross threads (a custom host) offload nothing', () => {
    expect(createOffload({ host: { readFile: () => new Uint8Array(), stat: () => undefined } as never })).toBeUndefined();
  });

  it('finds the manifests an entry names: itself, or a relative or absolute plugin.json or .md in its text', () => {
    writeFiles(dir, {
      ...WARNED,
      'other/plugin.json': '{"name": "not-berry"}',
      'a.js': "import app from './warned/plugin.json';\nimport other from './other/plugin.json';\nconst r = require('./warned/r/pick.md?berrypack');\n",
      'b.ts': `export { default } from ${JSON.stringify(path.join(dir, 'warned/r/pick.md'))};\n`,
      'c.js': "import app from 'some-package/plugin.json';\n",
    });
    const manifest = path.join(dir, 'warned/plugin.json');
    const all = () => true;
    expect(manifestsImportedBy([path.join(dir, 'a.js')], all)).toEqual([manifest, path.join(dir, 'other/plugin.json')]);
    expect(manifestsImportedBy([path.join(dir, 'b')], all)).toEqual([manifest]);
    expect(manifestsImportedBy([manifest, path.join(dir, 'c.js'), path.join(dir, 'missing.js')], all)).toEqual([manifest]);
    expect(manifestsImportedBy([path.join(dir, 'a.js')], (file) => !file.endsWith('.md') && !file.includes('other'))).toEqual([manifest]);
  });
});

describe.each(HOSTS)('@berrypack/webpack in $name: the offloaded run', (host) => {
  const seen = (outcome: BuildOutcome, out: string) => {
    const name = bundleAsset(outcome);
    expect(name).toBeDefined();
    return {
      errors: outcome.errors.map((e) => e.message),
      warnings: outcome.warnings.map((w) => ({ message: w.message, loc: w.loc, code: w.code })),
      assets: outcome.assets,
      module: readFileSync(path.join(dir, out, 'main.js'), 'utf8'),
      bytes: readFileSync(path.join(dir, out, name!)),
    };
  };
  const config = (out: string) => nodeConfig(dir, [webpackPlugin()], { output: { path: path.join(dir, out), library: { type: 'commonjs2' } } });

  it('gives the same bundle, warnings and module as a run on the host thread; webpack’s compile ran on the worker, Rspack’s on its own thread', async () => {
    writeFiles(dir, WARNED);
    process.env.BERRYPACK_OFFLOAD = '0';
    const local = seen(await build(host, config('local')), 'local');
    process.env.BERRYPACK_OFFLOAD = '1';
    const before = offloadedBuilds();
    const offloaded = seen(await build(host, config('offloaded')), 'offloaded');
    expect(offloadedBuilds() - before).toBe(host.name === 'webpack' ? 1 : 0);
    expect(offloaded).toEqual(local);
    expect(offloaded.warnings).toHaveLength(1);
    expect(offloaded.warnings[0]!.message).toContain('BP1041');
    expect(offloaded.bytes.equals(Buffer.from(createCompiler().build(path.join(dir, 'warned/plugin.json')).bundle!.bytes))).toBe(true);
  });

  it('a package with an error fails the run with the same error as on the host thread', async () => {
    writeFiles(dir, { ...WARNED, 'warned/r/pick.md': '---\nname: pick\n---\nno description\n' });
    process.env.BERRYPACK_OFFLOAD = '0';
    const local = await build(host, config('local'));
    process.env.BERRYPACK_OFFLOAD = '1';
    const offloaded = await build(host, config('offloaded'));
    expect(offloaded.errors.length).toBeGreaterThan(0);
    const shown = (o: BuildOutcome) => o.errors.map((e) => ({ message: e.message, loc: e.loc, code: e.code }));
    expect(shown(offloaded)).toEqual(shown(local));
  });
});

describe('@berrypack/webpack: a process that ran an offloaded build exits by itself', () => {
  it.each([
    ['a build that imports the package', WARNED['main.js'], 0],
    ['a build whose entry only names the package in a comment (the worker’s result is never taken)', "// see './warned/plugin.json'\nexport default 1;\n", 0],
    ['a failed build', "import app from './warned/plugin.json';\nimport missing from './nowhere.js';\nexport default [app, missing];\n", 1],
  ])('%s', (_, main, errors) => {
    writeFiles(dir, { ...WARNED, 'main.js': main });
    // The packages as installed (dist/), where the worker script is; webpack from this repository.
    const script = [
      "import { createRequire } from 'node:module';",
      `const require = createRequire(${JSON.stringify(path.join(ROOT, 'package.json'))});`,
      "const webpack = require('webpack');",
      `const { default: berrypack } = await import(${JSON.stringify(pathToFileURL(path.join(ROOT, 'packages/webpack/dist/index.js')).href)});`,
      `const config = ${JSON.stringify(nodeConfig(dir, []))};`,
      'const compiler = webpack({ ...config, plugins: [berrypack()] });',
      'compiler.run((error, stats) => {',
      '  process.stdout.write(JSON.stringify({ fault: String(error ?? ""), errors: stats?.compilation.errors.length }));',
      '  compiler.close(() => {});',
      '});',
    ].join('\n');
    writeFileSync(path.join(dir, 'run.mjs'), script);
    const run = spawnSync(process.execPath, [path.join(dir, 'run.mjs')], { encoding: 'utf8', timeout: 60_000 });
    expect(run.signal).toBeNull();
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ fault: '', errors });
  });
});
