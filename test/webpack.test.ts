import { existsSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { createCompiler, loadBundleFile, nodeHost } from '@berrypack/compiler';
import type webpack from 'webpack';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import berrypack from '../packages/webpack/src/index.js';
import { agePastRacyWindow, recordStamps } from './support/stamps.js';
import { cleanup, copyFixture, tempDir, writeFiles } from './support/temp.js';
import { editedNotebook } from './support/edited-notebook.js';
import { build, bundleAsset, HOSTS, nodeConfig, requireFresh, watch } from './support/webpack.js';

interface PackageModule {
  id: string;
  name: string;
  fileName: string;
  file: string;
  agents: Record<string, unknown>;
  exports: string[];
  requirements: Record<string, unknown>;
}

/** A package with a warning (BP1041) and an error (BP1282), non-ASCII before the error's column. */
const BROKEN = {
  'broken/plugin.json': JSON.stringify({
    $schema: 'https://agent-plugins.org/schemas/1.0.0/plugin.schema.json',
    name: 'example.broken',
    version: '1',
    extensions: { 'ai.strawberry.berry': { sources: 'r', exports: ['pick'] } },
  }),
  'broken/r/pick.md':
    "---\nname: pick\ndescription: Picks a mood.\nmodel:\n  select:\n    operation: generation\ninput:\n  type: string\n  enum: ['été 🍓', 'ü', 3]\n---\nPick one.\n",
  'main.js': "import app from './broken/plugin.json';\nexport default app;\n",
};

/** An error's message without the margin Rspack draws around it (`  × `, `  │ `). */
function plain(message: string): string {
  return message.replace(/^ {2}[×⚠│] ?/gmu, '');
}

/** The notebook, imported by main.js, with search/rank.md importing a module that does not exist (lib/extra.js). */
function probingMissing(dir: string): { notebook: string; rank: string; extra: string } {
  const notebook = copyFixture('notebook', dir);
  writeFiles(dir, { 'main.js': "export { default } from './notebook/plugin.json';\n" });
  const rank = path.join(notebook, 'routines/search/rank.md');
  writeFileSync(rank, readFileSync(rank, 'utf8').replace("'../lib/score.js'", "'../lib/extra.js'"));
  return { notebook, rank, extra: path.join(notebook, 'routines/lib/extra.js') };
}

/** Every file under `dir`, relative, sorted. */
function listing(dir: string): string[] {
  return existsSync(dir)
    ? readdirSync(dir, { recursive: true, encoding: 'utf8' })
        .map((f) => f.split(path.sep).join('/'))
        .sort()
    : [];
}

describe.each(HOSTS)('@berrypack/webpack in $name', (host) => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir('berrypack-webpack-');
  });
  afterEach(() => cleanup(dir));

  it('imports a package and a routine: the output runs, the asset is the compiler’s bytes and name', async () => {
    copyFixture('notebook', dir);
    writeFiles(dir, {
      'main.js': "import app from './notebook/plugin.json';\nimport compose from './notebook/routines/notes/compose.md';\nexport default { app, compose };\n",
    });
    const outcome = await build(host, nodeConfig(dir, [berrypack()]));
    expect(outcome.errors).toEqual([]);
    expect(outcome.warnings).toEqual([]);
    const expected = createCompiler().build(path.join(dir, 'notebook/plugin.json')).bundle!;
    expect(outcome.assets).toEqual([expected.fileName, 'main.js']);
    const { app, compose } = requireFresh<{ default: { app: PackageModule; compose: Record<string, unknown> } }>(path.join(dir, 'out/main.js')).default;
    expect(app).toEqual({
      id: expected.id,
      name: 'example.notebook',
      fileName: expected.fileName,
      // `__webpack_public_path__` + the name; a Node build's public path is empty.
      file: expected.fileName,
      agents: { notebook: { title: 'Notebook', description: 'Organize notes and answer questions about them.', entry: 'converse' } },
      exports: ['converse', 'notes.compose', 'search.answer'],
      requirements: expect.objectContaining({ tools: [], env: [] }),
    });
    expect(compose).toMatchObject({
      name: 'notes.compose',
      kind: 'model',
      visibility: 'public',
      input: { type: 'object', required: ['text'] },
      bundle: { id: expected.id, name: 'example.notebook', fileName: expected.fileName, file: expected.fileName },
    });
    expect(Buffer.compare(readFileSync(path.join(dir, 'out', expected.fileName)), expected.bytes)).toBe(0);
  });

  it('gives `file` under the public path, and emits resource blobs beside the bundle', async () => {
    copyFixture('imports/app', dir);
    copyFixture('imports/lib', dir);
    writeFiles(dir, { 'main.js': "export { default } from './app/plugin.json?berrypack';\n" });
    const outcome = await build(
      host,
      nodeConfig(dir, [berrypack()], { output: { path: path.join(dir, 'out'), publicPath: '/static/', library: { type: 'commonjs2' } } }),
    );
    expect(outcome.errors).toEqual([]);
    const expected = createCompiler().build(path.join(dir, 'app/plugin.json')).bundle!;
    const app = requireFresh<{ default: PackageModule }>(path.join(dir, 'out/main.js')).default;
    expect(app.file).toBe(`/static/${expected.fileName}`);
    const blobs = [...expected.blobs.keys()].map((hex) => `blobs/sha256/${hex}`).sort();
    expect(blobs.length).toBeGreaterThan(0);
    expect(outcome.assets).toEqual([...blobs, expected.fileName, 'main.js'].sort());
    expect(loadBundleFile(path.join(dir, 'out', expected.fileName), { expectedId: expected.id }).ok).toBe(true);
  });

  it('writes the compiler’s bytes when the output names carry content hashes (the host rewrites hashes in assets)', async () => {
    copyFixture('imports/app', dir);
    copyFixture('imports/lib', dir);
    writeFiles(dir, { 'main.js': "export { default } from './app/plugin.json';\n" });
    const output = { path: path.join(dir, 'out'), filename: '[name].[contenthash].js', library: { type: 'commonjs2' } };
    const outcome = await build(host, nodeConfig(dir, [berrypack()], { output, optimization: { minimize: false, realContentHash: true } }));
    expect(outcome.errors).toEqual([]);
    const expected = createCompiler().build(path.join(dir, 'app/plugin.json')).bundle!;
    expect(outcome.assets).toContain(expected.fileName);
    expect(outcome.assets.find((name) => /^main\.[0-9a-f]+\.js$/.test(name))).toBeDefined();
    // Rspack gets the bundle as its parts (joined in Rust): the file is still exactly the compiler's bytes.
    expect(readFileSync(path.join(dir, 'out', expected.fileName)).equals(Buffer.from(expected.bytes))).toBe(true);
    for (const [hex, blob] of expected.blobs) expect(readFileSync(path.join(dir, 'out/blobs/sha256', hex)).equals(Buffer.from(blob))).toBe(true);
  });

  it('reports diagnostics as errors and warnings with file, loc, frame and hint, and emits no bundle', async () => {
    writeFiles(dir, BROKEN);
    // development: webpack emits the chunks of a failed build; the bundle must not be among them.
    const outcome = await build(host, nodeConfig(dir, [berrypack()], { mode: 'development' }));
    const ours = outcome.errors.find((e) => e.file !== undefined);
    expect(ours).toMatchObject({ file: 'broken/r/pick.md', loc: { start: { line: 9, column: 24 }, end: { line: 9, column: 25 } } });
    const text = plain(ours!.message);
    expect(text).toMatch(/^BP1282 Unexpected `3` in `input.enum`, expected a string/);
    expect(text).toContain(">  9 |   enum: ['été 🍓', 'ü', 3]\n     |                         ^");
    expect(text).toContain("hint: quote it to make it a string: `'3'`");
    // webpack keeps the fields it does not know; Rspack passes errors through Rust and keeps its own only.
    if (host.name === 'webpack') expect(ours).toMatchObject({ code: 'BP1282', rule: 'SCH-8', hint: "quote it to make it a string: `'3'`" });
    // The importing module fails too, pointing at the reported errors rather than repeating them.
    expect(outcome.errors.map((e) => e.message).join('\n')).toContain('Unexpected failed build of broken/plugin.json: 1 error, reported with its position');
    expect(outcome.errors.map((e) => e.message).join('\n')).not.toMatch(/\n\s+at /);
    expect(outcome.errors).toHaveLength(2);
    expect(outcome.warnings).toHaveLength(1);
    expect(outcome.warnings[0]).toMatchObject({ file: 'broken/r/pick.md', loc: { start: { line: 9, column: 8 } } });
    expect(outcome.warnings[0]!.message).toContain('BP1041');
    expect(outcome.assets.filter((a) => !a.endsWith('.js'))).toEqual([]);
    expect(listing(path.join(dir, 'out')).filter((f) => !f.endsWith('.js'))).toEqual([]);
  });

  it('strict turns warnings into errors: a package with only a warning emits nothing', async () => {
    writeFiles(dir, { ...BROKEN, 'broken/r/pick.md': BROKEN['broken/r/pick.md'].replace(', 3]', ']') });
    const lenient = await build(host, nodeConfig(dir, [berrypack()]));
    expect(lenient.errors).toEqual([]);
    expect(lenient.warnings.map((w) => w.message)).toEqual([expect.stringContaining('BP1041')]);
    expect(bundleAsset(lenient)).toBeDefined();
    rmSync(path.join(dir, 'out'), { recursive: true });

    const strict = await build(host, nodeConfig(dir, [berrypack({ strict: true })]));
    expect(strict.warnings).toEqual([]);
    expect(strict.errors.find((e) => e.file !== undefined)).toMatchObject({ file: 'broken/r/pick.md', loc: { start: { line: 9, column: 8 } } });
    expect(listing(path.join(dir, 'out'))).toEqual([]);
  });

  it('follows emit, namedExports, include and exclude; leaves other .json and .md imports alone', async () => {
    copyFixture('notebook', dir);
    writeFiles(dir, {
      'other/plugin.json': '{"name": "not-berry"}\n',
      'docs/guide.md': '# Guide\n',
      'main.js':
        "import { id, fileName, file } from './notebook/plugin.json';\nimport other from './other/plugin.json';\nimport readme from './notebook/routines/README.md';\nimport guide from './docs/guide.md';\nimport compose from './notebook/routines/notes/compose.md';\nexport default { id, fileName, file, other, readme, guide, compose };\n",
    });
    // Markdown that is not ours is another rule's: here, raw text. A package's README is
    // documentation, claimed (and refused) unless excluded.
    const rules = { module: { rules: [{ test: /\.md$/, type: 'asset/source' }] } };
    const output = { path: path.join(dir, 'out'), publicPath: '/static/', library: { type: 'commonjs2' } };
    const outcome = await build(host, nodeConfig(dir, [berrypack({ emit: false, namedExports: true, exclude: /README\.md$/ })], { ...rules, output }));
    expect(outcome.errors).toEqual([]);
    expect(outcome.assets).toEqual(['main.js']);
    const expected = createCompiler().build(path.join(dir, 'notebook/plugin.json')).bundle!;
    const loaded = requireFresh<{ default: Record<string, unknown> }>(path.join(dir, 'out/main.js')).default;
    // Nothing emitted: `file` is only the name, not a URL under the public path.
    expect(loaded).toMatchObject({ id: expected.id, fileName: expected.fileName, file: expected.fileName, other: { name: 'not-berry' } });
    expect(loaded.readme).toBe(readFileSync(path.join(dir, 'notebook/routines/README.md'), 'utf8'));
    expect(loaded.guide).toBe('# Guide\n');
    // A routine is ours even though the Markdown rule matches it too.
    expect(loaded.compose).toMatchObject({ name: 'notes.compose', kind: 'model', bundle: { id: expected.id } });

    writeFiles(dir, { 'main.js': "export { default } from './notebook/plugin.json';\n" });
    const excluded = await build(host, nodeConfig(dir, [berrypack({ exclude: '**/notebook/**' })]));
    expect(excluded.errors).toEqual([]);
    expect(bundleAsset(excluded)).toBeUndefined();
    expect(requireFresh<{ default: Record<string, unknown> }>(path.join(dir, 'out/main.js')).default).toMatchObject({
      name: 'example.notebook',
      version: expect.any(String),
    });
  });

  it('applies `catalog`, and claims a plugin.json without the Berry extension only with `?berrypack`', async () => {
    writeFiles(dir, {
      'tools/plugin.json': BROKEN['broken/plugin.json'],
      'tools/r/pick.md': '---\nname: pick\ndescription: Picks a tool.\nmodel:\n  select:\n    operation: generation\ntools:\n  - nowhere\n---\nPick.\n',
      'main.js': "export { default } from './tools/plugin.json';\n",
    });
    const without = await build(host, nodeConfig(dir, [berrypack()]));
    expect(without.errors.find((e) => e.file !== undefined)).toMatchObject({ file: 'tools/r/pick.md', loc: { start: { line: 8, column: 4 } } });
    expect(plain(without.errors.find((e) => e.file !== undefined)!.message)).toMatch(/^BP2110 Unexpected unknown tool `nowhere`/);
    writeFiles(dir, { 'catalog.json': JSON.stringify({ models: [], tools: [{ name: 'nowhere' }] }) });
    const withCatalog = await build(host, nodeConfig(dir, [berrypack({ catalog: path.join(dir, 'catalog.json') })]));
    expect(withCatalog.errors).toEqual([]);
    expect(bundleAsset(withCatalog)).toBeDefined();

    rmSync(path.join(dir, 'out'), { recursive: true });
    writeFiles(dir, { 'other/plugin.json': '{"name": "not-berry"}\n', 'main.js': "export { default } from './other/plugin.json?berrypack';\n" });
    const explicit = await build(host, nodeConfig(dir, [berrypack()]));
    const reported = explicit.errors.filter((e) => e.file !== undefined);
    expect(reported.length).toBeGreaterThan(0);
    expect(reported.every((e) => e.file === 'other/plugin.json')).toBe(true);
    expect(listing(path.join(dir, 'out'))).toEqual([]);
  });

  it('refuses a .md that is not a source of its package, with a message and no stack', async () => {
    copyFixture('notebook', dir);
    writeFiles(dir, { 'notebook/notes.md': '---\nname: stray\n---\nNot under sources.\n', 'main.js': "export { default } from './notebook/notes.md';\n" });
    const outcome = await build(host, nodeConfig(dir, [berrypack()]));
    const message = outcome.errors.map((e) => e.message).join('\n');
    expect(message).toContain('Unexpected import of notebook/notes.md, expected a routine source of package example.notebook');
    expect(message).not.toMatch(/\n\s+at /);
    expect(listing(path.join(dir, 'out'))).toEqual([]);
  });

  it('reports and emits for a module kept from the cache: a watch rebuild caused by another file', { timeout: 120_000 }, async () => {
    writeFiles(dir, { ...BROKEN, 'broken/r/pick.md': BROKEN['broken/r/pick.md'].replace(', 3]', ']'), 'other.js': 'export default 1;\n' });
    writeFiles(dir, { 'main.js': "import app from './broken/plugin.json';\nimport other from './other.js';\nexport default { app, other };\n" });
    const session = watch(host, nodeConfig(dir, [berrypack()], { mode: 'development' }));
    try {
      const first = await session.first();
      expect(first.warnings.map((w) => w.message)).toEqual([expect.stringContaining('BP1041')]);
      const name = bundleAsset(first);
      expect(name).toBeDefined();
      rmSync(path.join(dir, 'out', name!));
      // Only other.js changes: webpack and Rspack keep the package's module as it was built.
      const next = await session.change(() => writeFileSync(path.join(dir, 'other.js'), 'export default 2;\n'));
      expect(next.warnings.map((w) => w.message)).toEqual([expect.stringContaining('BP1041')]);
      expect(bundleAsset(next)).toBe(name);
      expect(existsSync(path.join(dir, 'out', name!))).toBe(true);
      expect(requireFresh<{ default: { other: number } }>(path.join(dir, 'out/main.js')).default.other).toBe(2);
    } finally {
      await session.close();
    }
  });

  it('reports and emits for a module restored from the persistent cache by a new compiler', { timeout: 120_000 }, async () => {
    writeFiles(dir, { ...BROKEN, 'broken/r/pick.md': BROKEN['broken/r/pick.md'].replace(', 3]', ']') });
    const cacheDir = path.join(dir, '.cache');
    const cache =
      host.name === 'webpack' ? { type: 'filesystem', cacheDirectory: cacheDir } : { type: 'persistent', storage: { type: 'filesystem', directory: cacheDir } };
    const first = await build(host, nodeConfig(dir, [berrypack()], { cache }));
    expect(first.warnings.map((w) => w.message)).toEqual([expect.stringContaining('BP1041')]);
    rmSync(path.join(dir, 'out'), { recursive: true });
    const second = await build(host, nodeConfig(dir, [berrypack()], { cache }));
    expect(second.warnings.map((w) => w.message)).toEqual([expect.stringContaining('BP1041')]);
    expect(bundleAsset(second)).toBe(bundleAsset(first));
    expect(existsSync(path.join(dir, 'out', bundleAsset(first)!))).toBe(true);
  });

  it('rebuilds in watch mode when a resource or an imported package changes', { timeout: 120_000 }, async () => {
    copyFixture('imports/app', dir);
    copyFixture('imports/lib', dir);
    writeFiles(dir, { 'main.js': "export { default } from './app/plugin.json';\n" });
    const session = watch(host, nodeConfig(dir, [berrypack()]));
    try {
      const first = bundleAsset(await session.first());
      const resource = bundleAsset(await session.change(() => writeFileSync(path.join(dir, 'app/banner.txt'), 'HELLO AGAIN\n')));
      expect(resource).toBeDefined();
      expect(resource).not.toBe(first);
      const tone = path.join(dir, 'lib/text/tone.md');
      const text = readFileSync(tone, 'utf8') + '\nStay warm.\n';
      const imported = bundleAsset(await session.change(() => writeFileSync(tone, text)));
      expect(imported).toBeDefined();
      expect(imported).not.toBe(resource);
    } finally {
      await session.close();
    }
  });

  it('rebuilds in watch mode: an edit, a break and its fix, an added and a deleted routine', { timeout: 120_000 }, async () => {
    const notebook = copyFixture('notebook', dir);
    writeFiles(dir, { 'main.js': "export { default } from './notebook/plugin.json';\n" });
    const compose = path.join(notebook, 'routines/notes/compose.md');
    const original = readFileSync(compose, 'utf8');
    const extra = path.join(notebook, 'routines/notes/extra.md');
    const current = () => requireFresh<{ default: PackageModule }>(path.join(dir, 'out/main.js')).default;
    const sources = (module: PackageModule) => {
      const loaded = loadBundleFile(path.join(dir, 'out', module.fileName), { expectedId: module.id });
      if (!loaded.ok) throw new Error(loaded.error.message);
      return Object.keys(loaded.bundle.content.sources as Record<string, unknown>);
    };
    const session = watch(host, nodeConfig(dir, [berrypack()], { mode: 'development' }));
    try {
      const initial = await session.first();
      expect(initial.errors).toEqual([]);
      const first = current();
      expect(bundleAsset(initial)).toBe(first.fileName);

      const edited = await session.change(() => writeFileSync(compose, original.replace('house style.', 'house style, briefly.')));
      expect(edited.errors).toEqual([]);
      expect(current().id).not.toBe(first.id);
      expect(bundleAsset(edited)).toBe(current().fileName);

      const broken = await session.change(() => writeFileSync(compose, original.replace('visibility: public\n', 'visibility: public\ntools:\n  - nowhere\n')));
      expect(broken.errors.find((e) => e.file !== undefined)).toMatchObject({
        file: 'notebook/routines/notes/compose.md',
        loc: { start: { line: 5, column: 4 } },
      });
      expect(bundleAsset(broken)).toBeUndefined();

      const fixed = await session.change(() => writeFileSync(compose, original));
      expect(fixed.errors).toEqual([]);
      expect(current().id).toBe(first.id);

      const added = await session.change(() => writeFileSync(extra, '---\nname: notes.extra\ndescription: One more note.\n---\nBe brief.\n'));
      expect(added.errors).toEqual([]);
      expect(sources(current())).toContain('notes.extra');

      const deleted = await session.change(() => rmSync(extra, { force: true }));
      expect(deleted.errors).toEqual([]);
      expect(current().id).toBe(first.id);
      expect(sources(current())).not.toContain('notes.extra');
    } finally {
      await session.close();
    }
  });

  it('a watch session hands the superseded bundle over: one bundle, the right bytes after an edit, its undo and a redo', { timeout: 120_000 }, async () => {
    const { compose, original, edited, before, after } = editedNotebook(dir);
    const out = path.join(dir, 'out');
    const onDisk = () => listing(out).filter((f) => f.endsWith('.berry.json'));
    const check = (bundle: { fileName: string; bytes: Uint8Array; id: string }) => {
      expect(onDisk()).toEqual([bundle.fileName]);
      expect(readFileSync(path.join(out, bundle.fileName)).equals(Buffer.from(bundle.bytes))).toBe(true);
      const module = requireFresh<{ default: PackageModule }>(path.join(out, 'main.js')).default;
      expect(module.id).toBe(bundle.id);
      expect(loadBundleFile(path.join(out, module.fileName), { expectedId: module.id }).ok).toBe(true);
    };
    // With `output.clean`, whose `emit` tap removes the files of the previous build's assets that
    // this one does not emit: in webpack after the plugin's tap, in Rspack possibly while the
    // plugin renames the file (so there the plugin leaves the superseded bundle to `clean`, and
    // only without `clean` is the file handed over).
    for (const clean of host.name === 'webpack' ? [true] : [false, true]) {
      rmSync(out, { recursive: true, force: true });
      writeFileSync(compose, original);
      const config = nodeConfig(dir, [berrypack()], { mode: 'development' }) as { output: object };
      const session = watch(host, { ...config, output: { ...config.output, clean } });
      try {
        expect((await session.first()).errors).toEqual([]);
        check(before);
        const inode = statSync(path.join(out, before.fileName)).ino;
        for (const [text, bundle] of [
          [edited, after],
          [original, before],
          [edited, after],
        ] as const) {
          expect((await session.change(() => writeFileSync(compose, text))).errors).toEqual([]);
          check(bundle);
          // The same file, renamed and overwritten, not a new one beside it.
          if (host.name === 'webpack' || !clean) expect(statSync(path.join(out, bundle.fileName)).ino).toBe(inode);
        }
      } finally {
        await session.close();
      }
    }
  });

  it('a build outside watch mode leaves an older bundle in the output directory alone', { timeout: 120_000 }, async () => {
    const notebook = copyFixture('notebook', dir);
    writeFiles(dir, { 'main.js': "export { default } from './notebook/plugin.json';\n" });
    const compose = path.join(notebook, 'routines/notes/compose.md');
    const config = nodeConfig(dir, [berrypack()]);
    const first = await build(host, config);
    const older = bundleAsset(first)!;
    const stamp = statSync(path.join(dir, 'out', older));
    writeFileSync(compose, readFileSync(compose, 'utf8').replace('house style.', 'house style, briefly.'));
    const second = await build(host, config);
    expect(second.errors).toEqual([]);
    expect(bundleAsset(second)).not.toBe(older);
    expect(listing(path.join(dir, 'out')).filter((f) => f.endsWith('.berry.json'))).toEqual([older, bundleAsset(second)!].sort());
    const kept = statSync(path.join(dir, 'out', older));
    expect([kept.ino, kept.mtimeMs, kept.size]).toEqual([stamp.ino, stamp.mtimeMs, stamp.size]);
  });

  it('rebuilds in watch mode when a missing module an import probed is created', { timeout: 120_000 }, async () => {
    const { notebook, extra } = probingMissing(dir);
    const session = watch(host, nodeConfig(dir, [berrypack()], { mode: 'development' }));
    try {
      const broken = await session.first();
      expect(broken.errors.length).toBeGreaterThan(0);
      expect(bundleAsset(broken)).toBeUndefined();
      // Known missing from the first run; its creation is reported, so it is looked at again.
      const fixed = await session.change(() => writeFileSync(extra, readFileSync(path.join(notebook, 'routines/lib/score.js'))));
      expect(fixed.errors).toEqual([]);
      expect(bundleAsset(fixed)).toBeDefined();
    } finally {
      await session.close();
    }
  });

  it('registers the files the compiler found missing as missing dependencies, the others as file dependencies', { timeout: 120_000 }, async () => {
    const { notebook, rank, extra } = probingMissing(dir);
    const result = createCompiler().build(path.join(notebook, 'plugin.json'));
    expect(result.missing).toContain(extra);
    expect(result.missing!.every((file) => result.files.includes(file) && nodeHost.stat(file) === undefined)).toBe(true);
    expect(result.files.filter((file) => !result.missing!.includes(file)).every((file) => nodeHost.stat(file) !== undefined)).toBe(true);
    const compiler = host.create(nodeConfig(dir, [berrypack()])) as unknown as {
      hooks: { afterCompile: { tap(name: string, fn: (c: { fileDependencies: Iterable<string>; missingDependencies: Iterable<string> }) => void): void } };
      run(cb: (error: Error | null) => void): void;
      close(cb: () => void): void;
    };
    let files: string[] = [];
    let missing: string[] = [];
    compiler.hooks.afterCompile.tap('test', (compilation) => {
      files = [...compilation.fileDependencies];
      missing = [...compilation.missingDependencies];
    });
    await new Promise<void>((resolve, reject) => compiler.run((error) => (error ? reject(error) : resolve())));
    await new Promise<void>((resolve) => compiler.close(() => resolve()));
    expect(missing).toContain(extra);
    expect(files).not.toContain(extra);
    expect(files).toEqual(expect.arrayContaining([rank, path.join(notebook, 'plugin.json')]));
  });

  it('a watch rebuild checks only the files the watcher reported changed (modifiedFiles)', { timeout: 120_000 }, async () => {
    const notebook = copyFixture('notebook', dir);
    writeFiles(dir, { 'main.js': "export { default } from './notebook/plugin.json';\n" });
    const compose = realpathSync(path.join(notebook, 'routines/notes/compose.md'));
    const original = readFileSync(compose, 'utf8');
    await agePastRacyWindow();
    const session = watch(host, nodeConfig(dir, [berrypack()], { mode: 'development' }));
    const stamps = recordStamps();
    const stat = nodeHost.stat;
    const statted: string[] = [];
    nodeHost.stat = (file) => (statted.push(file), stat(file));
    try {
      expect((await session.first()).errors).toEqual([]);
      stamps.paths.length = 0;
      statted.length = 0;
      const edited = await session.change(() => writeFileSync(compose, original.replace('house style.', 'house style, briefly.')));
      expect(edited.errors).toEqual([]);
      // The plugin knows from the first run which files exist: it stats none of the sources again.
      expect(statted.filter((p) => p.endsWith('.md') && p !== compose)).toEqual([]);
      // Only the reported file is checked (and plugin.json, which `prepare` reads first to decide
      // on a second thread); every other file of the package is served from memory.
      const manifest = realpathSync(path.join(notebook, 'plugin.json'));
      expect([...new Set(stamps.paths)].filter((p) => p !== manifest)).toEqual([compose]);
      // The same bytes as a fresh build of the edited package.
      const fresh = createCompiler().build(path.join(notebook, 'plugin.json'));
      expect(bundleAsset(edited)).toBe(fresh.bundle!.fileName);
      expect(readFileSync(path.join(dir, 'out', fresh.bundle!.fileName)).equals(Buffer.from(fresh.bundle!.bytes))).toBe(true);
    } finally {
      nodeHost.stat = stat;
      stamps.restore();
      await session.close();
    }
  });
});

describe('@berrypack/webpack', () => {
  it('validates its options when created', () => {
    expect(() => berrypack({ strictt: true } as never)).toThrow(
      'Unexpected option `strictt`, expected one of `include`, `exclude`, `catalog`, `store`, `emit`, `strict`, `namedExports`',
    );
    expect(() => berrypack({ emit: 'yes' } as never)).toThrow('Unexpected type string for option `emit`, expected a boolean');
    expect(berrypack().name).toBe('berrypack');
  });

  it('lets webpack snapshot the package only when webpack keeps a cache', { timeout: 120_000 }, async () => {
    const dir = tempDir('berrypack-webpack-');
    try {
      copyFixture('notebook', dir);
      writeFiles(dir, { 'main.js': "export { default } from './notebook/plugin.json';\n" });
      /** Each built module of the package's manifest: whether webpack will snapshot (and in production hash) its dependencies. */
      const recorded: boolean[] = [];
      const recorder = {
        apply(compiler: webpack.Compiler) {
          compiler.hooks.compilation.tap('test', (compilation) =>
            compilation.hooks.succeedModule.tap('test', (module) => {
              if ((module as webpack.NormalModule).resource?.endsWith('plugin.json')) recorded.push(module.buildInfo!.cacheable === true);
            }),
          );
        },
      };
      const [webpackHost] = HOSTS;
      // Production: no cache, so no snapshot of the package's files (webpack would read and hash each).
      expect((await build(webpackHost!, nodeConfig(dir, [berrypack(), recorder]))).errors).toEqual([]);
      // Development: the memory cache keeps the module while its files are unchanged.
      expect((await build(webpackHost!, nodeConfig(dir, [berrypack(), recorder], { mode: 'development' }))).errors).toEqual([]);
      expect(recorded).toEqual([false, true]);
    } finally {
      cleanup(dir);
    }
  });

  /**
   * A webpack watch session over the notebook fixture with `recorder` beside the plugin; `edit(n)`
   * gives compose.md a different length each time. Resolves with each build's bundle: its file
   * name, the memory webpack's asset read from (seen in a later `processAssets` stage) and the
   * file's bytes on disk once the build is done (a watch session hands the older bundle over).
   */
  async function watchBundles(dir: string, recorder: (compiler: webpack.Compiler) => void, edits: number) {
    const [webpackHost] = HOSTS;
    const seen: { name: string; memory: ArrayBufferLike; disk?: Buffer }[] = [];
    const observer = {
      apply(compiler: webpack.Compiler) {
        recorder(compiler);
        compiler.hooks.thisCompilation.tap('test', (compilation) => {
          const stage = compiler.webpack.Compilation.PROCESS_ASSETS_STAGE_REPORT;
          compilation.hooks.processAssets.tap({ name: 'test', stage }, () => {
            const asset = compilation.getAssets().find((a) => a.name.endsWith('.berry.json'));
            if (asset) seen.push({ name: asset.name, memory: asset.source.buffer().buffer });
          });
        });
      },
    };
    const notebook = copyFixture('notebook', dir);
    writeFiles(dir, { 'main.js': "export { default } from './notebook/plugin.json';\n" });
    const compose = path.join(notebook, 'routines/notes/compose.md');
    const original = readFileSync(compose, 'utf8');
    const session = watch(webpackHost!, nodeConfig(dir, [berrypack(), observer], { mode: 'development' }));
    const onDisk = () => {
      const last = seen.at(-1)!;
      last.disk = readFileSync(path.join(dir, 'out', last.name));
    };
    try {
      expect((await session.first()).errors).toEqual([]);
      onDisk();
      for (let n = 1; n <= edits; n++) {
        const sentence = n % 2 ? `Edit ${n}, a longer sentence than the one before it.` : `Edit ${n}.`;
        expect((await session.change(() => writeFileSync(compose, `${original}\n${sentence}\n`))).errors).toEqual([]);
        onDisk();
      }
    } finally {
      await session.close();
    }
    // Every bundle written is the compiler's build of that state of the package.
    const compiler = createCompiler();
    for (let n = edits; n >= 0; n--) {
      const sentence = n === 0 ? undefined : n % 2 ? `Edit ${n}, a longer sentence than the one before it.` : `Edit ${n}.`;
      writeFileSync(compose, sentence === undefined ? original : `${original}\n${sentence}\n`);
      const built = compiler.build(path.join(notebook, 'plugin.json'));
      expect(built.bundle?.fileName).toBe(seen[n]!.name);
      expect(seen[n]!.disk?.equals(Buffer.from(built.bundle!.bytes))).toBe(true);
    }
    return seen;
  }

  it('joins each watch rebuild’s bundle into the memory of the previous one, which webpack already wrote', { timeout: 120_000 }, async () => {
    const dir = tempDir('berrypack-webpack-');
    try {
      const seen = await watchBundles(dir, () => undefined, 3);
      expect(new Set(seen.map((s) => s.name)).size).toBe(4);
      // The first join takes fresh memory with room to grow; the rebuilds reuse it.
      expect(seen.slice(1).every((s) => s.memory === seen[0]!.memory)).toBe(true);
    } finally {
      cleanup(dir);
    }
  });

  it('joins into fresh memory when something may keep the bytes: an assetEmitted listener, another output file system', { timeout: 120_000 }, async () => {
    const dir = tempDir('berrypack-webpack-');
    const other = tempDir('berrypack-webpack-');
    try {
      // A listener handed the buffer keeps it: each build's bytes must stay as written.
      const handed: { file: string; content: Buffer }[] = [];
      const listening = await watchBundles(
        dir,
        (compiler) => {
          compiler.hooks.assetEmitted.tap('test', (file, { content }) => {
            if (file.endsWith('.berry.json')) handed.push({ file, content });
          });
        },
        2,
      );
      expect(new Set(listening.map((s) => s.memory)).size).toBe(3);
      expect(handed).toHaveLength(3);
      for (const { file, content } of handed) expect(content.equals(listening.find((s) => s.name === file)!.disk!)).toBe(true);

      // An output file system of the user's (as webpack-dev-middleware's in-memory one) that keeps what it is given.
      const kept = new Map<string, Buffer>();
      const keeping = await watchBundles(
        other,
        (compiler) => {
          const fs = compiler.outputFileSystem!;
          compiler.outputFileSystem = Object.assign(Object.create(fs) as typeof fs, {
            writeFile(file: string, content: Buffer, callback: (error?: NodeJS.ErrnoException | null) => void) {
              if (file.endsWith('.berry.json')) kept.set(path.basename(file), content);
              fs.writeFile(file, content, callback);
            },
          });
        },
        2,
      );
      expect(new Set(keeping.map((s) => s.memory)).size).toBe(3);
      expect(kept.size).toBe(3);
      for (const [file, content] of kept) expect(content.equals(keeping.find((s) => s.name === file)!.disk!)).toBe(true);
      // Not Node's output file system: no bundle is handed over (with Node's, one is left).
      expect(listing(path.join(other, 'out')).filter((f) => f.endsWith('.berry.json'))).toHaveLength(3);
      expect(listing(path.join(dir, 'out')).filter((f) => f.endsWith('.berry.json'))).toHaveLength(1);
    } finally {
      cleanup(dir);
      cleanup(other);
    }
  });

  it('keeps no hold on the bundle bytes webpack wrote, so a watch rebuild can reuse their memory', { timeout: 120_000 }, async () => {
    const dir = tempDir('berrypack-webpack-');
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const [webpackHost] = HOSTS;
    const written: WeakRef<ArrayBufferLike>[] = [];
    const recorder = {
      apply(compiler: webpack.Compiler) {
        compiler.hooks.assetEmitted.tap('test', (file, { content }) => {
          if (file.endsWith('.berry.json')) written.push(new WeakRef(content.buffer));
        });
      },
    };
    // A watch session stays open: the plugin, its compiler and the compilation are all alive.
    const session = watch(webpackHost!, nodeConfig(dir, [berrypack(), recorder], { mode: 'development' }));
    try {
      copyFixture('notebook', dir);
      writeFiles(dir, { 'main.js': "export { default } from './notebook/plugin.json';\n" });
      expect((await session.first()).errors).toEqual([]);
      expect(written).toHaveLength(1);
      await new Promise((resolve) => setTimeout(resolve, 50));
      gc();
      expect(written[0]!.deref()).toBeUndefined();
    } finally {
      await session.close();
      cleanup(dir);
    }
  });
});
