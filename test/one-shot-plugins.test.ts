import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createCompiler, type CompilerOptions } from '@berrypack/compiler';
import { createBuildSlot, createCompilers } from '@berrypack/compiler/internal-adapter';
import { rollup, watch as rollupWatch, type RollupLog } from 'rollup';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import rollupPlugin from '../packages/rollup/src/index.js';
import webpackPlugin from '../packages/webpack/src/index.js';
import { nextBuild } from './support/bundlers.js';
import { cleanup, copyFixture, tempDir, writeFiles } from './support/temp.js';
import { bundleAsset, HOSTS, nodeConfig, watch, type BuildOutcome, type Host } from './support/webpack.js';

// The plugins build with a one-shot compiler (CompilerOptions.oneShot) when the host is not
// watching, and with one compiler kept across rebuilds when it is (createBuildSlot). Both must
// give the same bundle, diagnostics and module; a plugin object built again after an edit must
// give a fresh compiler's bytes.

/** A package with one warning (BP1041: `pick` exported, nothing else wrong). */
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

const EDIT = (text: string) => text.replace('Picks a mood.', 'Picks a mood, quickly.');

/** The bundle a fresh compiler builds from the package as it is now. */
function freshBundle(dir: string) {
  const result = createCompiler().build(path.join(dir, 'warned/plugin.json'));
  expect(result.bundle).toBeDefined();
  return result.bundle!;
}

describe('createBuildSlot', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => cleanup(dir));

  it('a build the host does not watch runs on the one-shot compiler, a watching host’s builds on the normal one; both are kept and shared', () => {
    const notebook = path.join(copyFixture('notebook', dir), 'plugin.json');
    const made: CompilerOptions[] = [];
    const create = (options: CompilerOptions) => (made.push(options), createCompiler(options));
    const compilers = createCompilers({ store: path.join(dir, 'store') });
    const slot = createBuildSlot(compilers);
    // Before any start (a host that loads modules without one): the normal compiler.
    const early = slot.memo(create);
    expect(made).toEqual([{ store: path.join(dir, 'store') }]);

    slot.start(false);
    const once = slot.memo(create);
    expect(slot.memo(create)).toBe(once);
    expect(made[1]).toEqual({ store: path.join(dir, 'store'), oneShot: true });
    const oneShot = once.build(notebook);
    expect(oneShot.first).toBe(true);
    expect(once.build(notebook).first).toBe(false);

    // The next single build: the same one-shot compiler, its memo cleared (the package compiles again).
    slot.start(false);
    expect(slot.memo(create)).toBe(once);
    expect(once.build(notebook).first).toBe(true);
    expect(made).toHaveLength(2);

    slot.start(true);
    expect(slot.memo(create)).toBe(early);
    const kept = early.build(notebook).result;
    slot.start(true, []);
    expect(slot.memo(create)).toBe(early);
    // Another slot of the same plugin object (webpack's multi-compiler) shares the compilers, not the memos.
    const other = createBuildSlot(compilers);
    other.start(false);
    expect(other.memo(create)).not.toBe(once);
    expect(made).toHaveLength(2);

    expect(Buffer.from(oneShot.result.bundle!.bytes).equals(Buffer.from(kept.bundle!.bytes))).toBe(true);
    expect(oneShot.result.diagnostics).toEqual(kept.diagnostics);
    expect(oneShot.result.summary).toEqual(kept.summary);
  });
});

describe('@berrypack/rollup: one-shot builds and watch builds', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => cleanup(dir));

  /** One `rollup()` build (not watched) with `plugin`: its warnings, chunk code and bundle bytes. */
  async function once(plugin: ReturnType<typeof rollupPlugin>, out: string) {
    const warnings: RollupLog[] = [];
    const build = await rollup({ input: path.join(dir, 'main.js'), plugins: [plugin], onLog: (level, log) => void (level === 'warn' && warnings.push(log)) });
    const { output } = await build.write({ dir: out, format: 'es' });
    await build.close();
    return outcome(warnings, out, output[0].code);
  }

  function outcome(warnings: RollupLog[], out: string, code: string) {
    const name = /"?([\w.-]+\.berry\.json)"?/.exec(readFileSync(path.join(out, 'main.js'), 'utf8'))?.[1];
    expect(name).toBeDefined();
    return { warnings: warnings.map(({ pluginCode, loc, message }) => ({ pluginCode, loc, message })), code, name, bytes: readFileSync(path.join(out, name!)) };
  }

  it('rollup() and rollup.watch give the same bundle, warnings and module; the plugin object built again after an edit gives a fresh compiler’s bytes', async () => {
    writeFiles(dir, WARNED);
    const plugin = rollupPlugin();
    const single = await once(plugin, path.join(dir, 'once'));
    expect(single.warnings.map((w) => w.pluginCode)).toEqual(['BP1041']);
    expect(single.bytes.equals(Buffer.from(freshBundle(dir).bytes))).toBe(true);

    const warnings: RollupLog[] = [];
    const watchOut = path.join(dir, 'watched');
    const watcher = rollupWatch({
      input: path.join(dir, 'main.js'),
      plugins: [rollupPlugin()],
      output: { dir: watchOut, format: 'es' },
      onLog: (level, log) => void (level === 'warn' && warnings.push(log)),
    });
    try {
      await nextBuild(watcher);
    } finally {
      await watcher.close();
    }
    const watched = outcome(warnings, watchOut, readFileSync(path.join(watchOut, 'main.js'), 'utf8'));
    expect(watched).toEqual(single);

    const pick = path.join(dir, 'warned/r/pick.md');
    writeFileSync(pick, EDIT(readFileSync(pick, 'utf8')));
    const second = await once(plugin, path.join(dir, 'again'));
    const fresh = freshBundle(dir);
    expect(second.name).toBe(fresh.fileName);
    expect(second.name).not.toBe(single.name);
    expect(second.bytes.equals(Buffer.from(fresh.bytes))).toBe(true);
    expect(second.warnings).toEqual(single.warnings);
  });
});

describe.each(HOSTS)('@berrypack/webpack in $name: one-shot builds and watch builds', (host) => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir('berrypack-webpack-');
  });
  afterEach(() => cleanup(dir));

  const config = (plugin: unknown, out: string) => nodeConfig(dir, [plugin], { output: { path: path.join(dir, out), library: { type: 'commonjs2' } } });
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

  /** `run` twice on one host compiler (the same plugin object and apply), `between` before the second. */
  async function runTwice(h: Host, plugin: unknown, between: () => void): Promise<[BuildOutcome, BuildOutcome]> {
    const compiler = h.create(config(plugin, 'once')) as unknown as {
      run(
        cb: (error: Error | null, stats?: { compilation: { errors: Error[]; warnings: Error[] }; toJson(o: object): { assets?: { name: string }[] } }) => void,
      ): void;
      close(cb: () => void): void;
    };
    const run = () =>
      new Promise<BuildOutcome>((resolve, reject) =>
        compiler.run((error, stats) =>
          error || !stats
            ? reject(error ?? new Error('no stats'))
            : resolve({
                errors: [...stats.compilation.errors],
                warnings: [...stats.compilation.warnings],
                assets: (stats.toJson({ all: false, assets: true }).assets ?? []).map((a) => a.name).sort(),
              }),
        ),
      );
    try {
      const first = await run();
      const firstSeen = seen(first, 'once');
      between();
      const second = await run();
      return [Object.assign(first, { seen: firstSeen }), second];
    } finally {
      await new Promise<void>((resolve) => compiler.close(() => resolve()));
    }
  }

  it('run and watch give the same bundle, warnings and module; a second run after an edit gives a fresh compiler’s bytes', { timeout: 120_000 }, async () => {
    writeFiles(dir, WARNED);
    const pick = path.join(dir, 'warned/r/pick.md');
    const original = readFileSync(pick, 'utf8');

    const session = watch(host, config(webpackPlugin(), 'watched'));
    let watched: ReturnType<typeof seen>;
    try {
      watched = seen(await session.first(), 'watched');
    } finally {
      await session.close();
    }
    expect(watched.warnings.map((w) => w.message)).toEqual([expect.stringContaining('BP1041')]);
    expect(watched.bytes.equals(Buffer.from(freshBundle(dir).bytes))).toBe(true);

    const [first, second] = await runTwice(host, webpackPlugin(), () => writeFileSync(pick, EDIT(original)));
    expect((first as BuildOutcome & { seen: typeof watched }).seen).toEqual(watched);
    const fresh = freshBundle(dir);
    const after = seen(second, 'once');
    expect(bundleAsset(second)).toBe(fresh.fileName);
    expect(bundleAsset(second)).not.toBe(bundleAsset(first));
    expect(after.bytes.equals(Buffer.from(fresh.bytes))).toBe(true);
    expect(after.warnings).toEqual(watched.warnings);
  });
});
