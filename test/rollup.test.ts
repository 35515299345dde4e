import { readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import jsonPlugin from '@rollup/plugin-json';
import { createCompiler, loadBundleFile, readBundle } from '@berrypack/compiler';
import { rollup, watch, type Plugin, type RollupLog } from 'rollup';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import berrypack from '../packages/rollup/src/index.js';
import { importModule, nextBuild, readOutput, rebuild } from './support/bundlers.js';
import { agePastRacyWindow, recordStamps } from './support/stamps.js';
import { cleanup, copyFixture, tempDir, writeFiles } from './support/temp.js';

// Under NodeNext, TypeScript reads this package's types as CommonJS (it has no "type": "module")
// and puts the factory at `.default`; Vitest loads its ESM build, whose default export is the factory.
const json = jsonPlugin as unknown as typeof jsonPlugin.default;

interface PackageModule {
  id: string;
  name: string;
  fileName: string;
  file: string;
  agents: Record<string, unknown>;
  exports: string[];
}

interface RoutineModule {
  name: string;
  kind: string;
  bundle: { id: string; name: string; fileName: string; file: string };
}

/** A stand-in for a Markdown plugin: it takes every `.md` module nobody else claimed. */
function markdown(): Plugin {
  return {
    name: 'markdown',
    transform: {
      filter: { id: /\.md$/ },
      handler: (code, id) => (id.endsWith('.md') ? `export default ${JSON.stringify({ markdown: code })};` : null),
    },
  };
}

/** A package with one warning (BP1041) and, without a catalog naming `nowhere`, one error (BP2110). */
const BROKEN = {
  'broken/plugin.json': JSON.stringify({
    $schema: 'https://agent-plugins.org/schemas/1.0.0/plugin.schema.json',
    name: 'demo.broken',
    version: '1',
    extensions: { 'ai.strawberry.berry': { exports: ['hello'] } },
  }),
  'broken/hello.md': '---\nname: hello\ndescription: Says hello.\nmodel:\n  select: {operation: generation}\ntools:\n  - nowhere\n---\nSay hello.\n',
  'main.js': "export { default } from './broken/plugin.json';\n",
};

describe('@berrypack/rollup in Rollup', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => cleanup(dir));

  it('imports packages and routines: the chunk runs, the assets are the compiler’s bytes and names', async () => {
    copyFixture('notebook', dir);
    copyFixture('imports/app', dir);
    copyFixture('imports/lib', dir);
    writeFiles(dir, {
      'main.js': [
        "import notebook from './notebook/plugin.json';",
        "import greeter from './app/plugin.json?berrypack';",
        "import compose from './notebook/routines/notes/compose.md';",
        'export { notebook, greeter, compose };',
        '',
      ].join('\n'),
    });
    const logs: [string, RollupLog][] = [];
    const build = await rollup({ input: path.join(dir, 'main.js'), plugins: [berrypack()], onLog: (level, log) => void logs.push([level, log]) });
    const out = path.join(dir, 'out');
    await build.write({ dir: out, format: 'es' });
    await build.close();

    const { notebook, greeter, compose } = await importModule<{ notebook: PackageModule; greeter: PackageModule; compose: RoutineModule }>(
      path.join(out, 'main.js'),
    );
    const compiler = createCompiler();
    const expected = compiler.build(path.join(dir, 'notebook/plugin.json')).bundle!;
    expect(notebook).toMatchObject({
      id: expected.id,
      name: 'example.notebook',
      fileName: expected.fileName,
      file: pathToFileURL(path.join(out, expected.fileName)).href,
      agents: { notebook: { title: 'Notebook', description: 'Organize notes and answer questions about them.', entry: 'converse' } },
      exports: ['converse', 'notes.compose', 'search.answer'],
    });
    expect(notebook.fileName).toMatch(/^example\.notebook\.[0-9a-f]{12}\.berry\.json$/);
    const bytes = readOutput(out, expected.fileName);
    expect(Buffer.from(bytes).equals(Buffer.from(expected.bytes))).toBe(true);
    expect(readBundle(bytes, { expectedId: notebook.id }).ok).toBe(true);

    const greeterExpected = compiler.build(path.join(dir, 'app/plugin.json')).bundle!;
    expect(greeter.id).toBe(greeterExpected.id);
    expect([...greeterExpected.blobs.keys()]).toHaveLength(1);
    for (const [hex, blob] of greeterExpected.blobs) expect(Buffer.from(readOutput(out, `blobs/sha256/${hex}`)).equals(Buffer.from(blob))).toBe(true);
    // Reads the resource blobs beside the file and verifies each one.
    expect(loadBundleFile(new URL(greeter.file), { expectedId: greeter.id }).ok).toBe(true);

    expect(compose).toMatchObject({ name: 'notes.compose', kind: 'model', bundle: { id: notebook.id, name: 'example.notebook', file: notebook.file } });
    expect(logs.map(([level, log]) => [level, log.pluginCode])).toEqual([['info', 'BP1003']]);
  });

  it('emit: false only describes the bundle; namedExports adds named exports', async () => {
    copyFixture('notebook', dir);
    writeFiles(dir, { 'main.js': "export { id, fileName, file } from './notebook/plugin.json';\n" });
    const build = await rollup({ input: path.join(dir, 'main.js'), plugins: [berrypack({ emit: false, namedExports: true })], logLevel: 'silent' });
    const out = path.join(dir, 'out');
    const { output } = await build.write({ dir: out, format: 'es' });
    await build.close();
    expect(output.map((o) => o.fileName)).toEqual(['main.js']);
    const expected = createCompiler().build(path.join(dir, 'notebook/plugin.json')).bundle!;
    const module = await importModule(path.join(out, 'main.js'));
    expect({ ...module }).toEqual({ id: expected.id, fileName: expected.fileName, file: expected.fileName });
  });

  it('turns diagnostics into Rollup logs: errors fail, warnings warn, `catalog` and `strict` apply', async () => {
    writeFiles(dir, BROKEN);
    const hello = path.join(dir, 'broken/hello.md');
    const warning = {
      pluginCode: 'BP1041',
      rule: 'SRC-5',
      hint: 'write one `key: value` per line',
      loc: { file: hello, line: 5, column: 10 },
      frame: [
        '  3 | description: Says hello.',
        '  4 | model:',
        '> 5 |   select: {operation: generation}',
        '    |           ^^^^^^^^^^^^^^^^^^^^^^^',
        '  6 | tools:',
        '  7 |   - nowhere',
      ].join('\n'),
      plugin: 'berrypack',
      code: 'PLUGIN_WARNING',
    };
    const shown = path.relative(process.cwd(), hello);
    const input = path.join(dir, 'main.js');
    // Rollup's own wrapping of a failed load around the plugin's message.
    const failedLoad = `Could not load ${path.join(dir, 'broken/plugin.json')}?berrypack (imported by ${path.relative(process.cwd(), input)}): [plugin berrypack] ${shown}`;

    const warnings: RollupLog[] = [];
    const failure = await rollup({ input, plugins: [berrypack()], onLog: (level, log) => void (level === 'warn' && warnings.push(log)) }).catch(
      (error: unknown) => error,
    );
    expect(failure).toMatchObject({
      // The hint in the message: Rollup prints no `hint` field.
      message: `${failedLoad} (7:4): BP2110 Unexpected unknown tool \`nowhere\`, expected a model or code routine, a callable import or an external tool\nhint: if \`nowhere\` is an external tool, list it in plugin.json \`requires\` (the build has no catalog)`,
      pluginCode: 'BP2110',
      rule: 'TOOL-6',
      hint: 'if `nowhere` is an external tool, list it in plugin.json `requires` (the build has no catalog)',
      loc: { file: hello, line: 7, column: 4 },
      frame: ['  5 |   select: {operation: generation}', '  6 | tools:', '> 7 |   - nowhere', '    |     ^^^^^^^', '  8 | ---', '  9 | Say hello.'].join('\n'),
      plugin: 'berrypack',
      code: 'PLUGIN_ERROR',
      hook: 'load',
    });
    expect(warnings).toHaveLength(1);
    expect(Object.keys(warnings[0]!).sort()).toEqual(['code', 'frame', 'hint', 'id', 'loc', 'message', 'plugin', 'pluginCode', 'rule']);
    expect(warnings[0]).toMatchObject({
      ...warning,
      message: `[plugin berrypack] ${shown} (5:10): BP1041 Unexpected non-empty flow mapping, expected it written expanded\nhint: ${warning.hint}`,
    });

    // A catalog (here by path) that lists the tool clears the error; the warning stays a warning.
    writeFiles(dir, { 'catalog.json': JSON.stringify({ models: [], tools: [{ name: 'nowhere' }] }) });
    const catalog = path.relative(process.cwd(), path.join(dir, 'catalog.json'));
    warnings.length = 0;
    const build = await rollup({ input, plugins: [berrypack({ catalog })], onLog: (level, log) => void (level === 'warn' && warnings.push(log)) });
    await build.close();
    expect(warnings.map((w) => w.pluginCode)).toEqual(['BP1041']);

    const strict = await rollup({ input, plugins: [berrypack({ catalog, strict: true })], logLevel: 'silent' }).catch((error: unknown) => error);
    expect(strict).toMatchObject({
      ...warning,
      code: 'PLUGIN_ERROR',
      hook: 'load',
      message: `${failedLoad} (5:10): BP1041 Unexpected non-empty flow mapping, expected it written expanded\nhint: ${warning.hint}`,
    });
  });

  it('refuses an imported .md that is not a source of its package', async () => {
    const notebook = copyFixture('notebook', dir);
    writeFiles(dir, {
      'readme.js': "export { default } from './notebook/routines/README.md';\n",
      'guide.js': "export { default } from './notebook/docs/guide.md';\n",
      'notebook/docs/guide.md': '---\nname: guide\ndescription: Not under `sources`.\n---\nRead me.\n',
      'loose.js': "export { default } from './loose.md?berrypack';\n",
      'loose.md': '---\nname: loose\ndescription: In no package.\n---\nHello.\n',
    });
    const readme = await rollup({ input: path.join(dir, 'readme.js'), plugins: [berrypack()], logLevel: 'silent' }).catch((error: unknown) => error);
    expect(readme).toMatchObject({
      pluginCode: 'BP1002',
      rule: 'SRC-1',
      loc: { file: path.join(notebook, 'routines/README.md'), line: 1, column: 0 },
      hint: 'a routine starts with `---`, its YAML frontmatter, a closing `---` line, then the body',
    });
    const guide = await rollup({ input: path.join(dir, 'guide.js'), plugins: [berrypack()], logLevel: 'silent' }).catch((error: unknown) => error);
    expect(guide).toMatchObject({
      message:
        `Could not load ${path.join(notebook, 'docs/guide.md')}?berrypack (imported by ${path.relative(process.cwd(), path.join(dir, 'guide.js'))}): ` +
        "[plugin berrypack] Unexpected import of docs/guide.md, expected a routine source of package example.notebook: it is not under the package's `sources` directory (or lies in a dot-directory or node_modules)",
      code: 'PLUGIN_ERROR',
      plugin: 'berrypack',
    });
    const loose = await rollup({ input: path.join(dir, 'loose.js'), plugins: [berrypack()], logLevel: 'silent' }).catch((error: unknown) => error);
    expect((loose as Error).message).toBe(
      `Could not load ${path.join(dir, 'loose.md')}?berrypack (imported by ${path.relative(process.cwd(), path.join(dir, 'loose.js'))}): ` +
        `[plugin berrypack] Unexpected import of ${path.join(dir, 'loose.md')}, expected a routine inside a Berry package: no plugin.json with the \`ai.strawberry.berry\` extension in its directory or above`,
    );
  });

  it('coexists with @rollup/plugin-json and a Markdown plugin, in either order', async () => {
    copyFixture('notebook', dir);
    writeFiles(dir, {
      'data.json': '{"answer": 42}',
      'README.md': '# Outside any package\n',
      'main.js': [
        "import data from './data.json';",
        "import readme from './README.md';",
        "import notebook from './notebook/plugin.json';",
        "import compose from './notebook/routines/notes/compose.md';",
        "import packageReadme from './notebook/routines/README.md';",
        'export { data, readme, notebook, compose, packageReadme };',
        '',
      ].join('\n'),
    });
    const orders = [
      [berrypack({ exclude: '**/README.md' }), json(), markdown()],
      [json(), markdown(), berrypack({ exclude: /README\.md$/ })],
    ];
    for (const [index, plugins] of orders.entries()) {
      const build = await rollup({ input: path.join(dir, 'main.js'), plugins, logLevel: 'silent' });
      const out = path.join(dir, `out-${index}`);
      await build.write({ dir: out, format: 'es' });
      await build.close();
      const result = await importModule<Record<string, { name?: string; answer?: number; markdown?: string }>>(path.join(out, 'main.js'));
      expect(result.data).toEqual({ answer: 42 });
      expect(result.readme).toEqual({ markdown: '# Outside any package\n' });
      expect(result.packageReadme?.markdown).toMatch(/^# Notebook routines/);
      expect(result.notebook?.name).toBe('example.notebook');
      expect(result.compose?.name).toBe('notes.compose');
    }
  });

  it('rebuilds in watch mode: an edit, a break and its fix, an added and a deleted routine', async () => {
    const notebook = copyFixture('notebook', dir);
    writeFiles(dir, { 'main.js': "export { default } from './notebook/plugin.json';\n" });
    const out = path.join(dir, 'out');
    const current = async () => (await importModule<{ default: PackageModule }>(path.join(out, 'main.js'))).default;
    const sources = (module: PackageModule) => {
      const loaded = loadBundleFile(new URL(module.file), { expectedId: module.id });
      if (!loaded.ok) throw new Error(loaded.error.message);
      return Object.keys(loaded.bundle.content.sources as Record<string, unknown>);
    };
    const compose = path.join(notebook, 'routines/notes/compose.md');
    const original = readFileSync(compose, 'utf8');
    const extra = path.join(notebook, 'routines/notes/extra.md');
    const watcher = watch({ input: path.join(dir, 'main.js'), plugins: [berrypack()], output: { dir: out, format: 'es' }, logLevel: 'silent' });
    try {
      await nextBuild(watcher);
      const first = await current();

      await rebuild(watcher, () => writeFileSync(compose, original.replace('house style.', 'house style, briefly.')));
      const edited = await current();
      expect(edited.id).not.toBe(first.id);

      const broken = await rebuild(watcher, () =>
        writeFileSync(compose, original.replace('visibility: public\n', 'visibility: public\ntools:\n  - nowhere\n')),
      ).catch((error: unknown) => error);
      expect(broken).toMatchObject({ pluginCode: 'BP2110', plugin: 'berrypack', loc: { file: compose, line: 5, column: 4 } });

      await rebuild(watcher, () => writeFileSync(compose, original));
      expect((await current()).id).toBe(first.id);

      await rebuild(watcher, () => writeFileSync(extra, '---\nname: notes.extra\ndescription: One more note.\n---\nBe brief.\n'));
      const added = await current();
      expect(sources(added)).toContain('notes.extra');

      await rebuild(watcher, () => rmSync(extra, { force: true }));
      const deleted = await current();
      expect(deleted.id).toBe(first.id);
      expect(sources(deleted)).not.toContain('notes.extra');
    } finally {
      await watcher.close();
    }
  });

  it('a watch rebuild checks only the files Rollup reported changed (watchChange), and watches directories, not each file in them', async () => {
    const notebook = copyFixture('notebook', dir);
    writeFiles(dir, { 'main.js': "export { default } from './notebook/plugin.json';\n" });
    const out = path.join(dir, 'out');
    const compose = realpathSync(path.join(notebook, 'routines/notes/compose.md'));
    const original = readFileSync(compose, 'utf8');
    // The directories the compiler listed cover the sources in them (chokidar watches a subtree).
    const once = await rollup({ input: path.join(dir, 'main.js'), plugins: [berrypack()], logLevel: 'silent' });
    await once.close();
    const routines = realpathSync(path.join(notebook, 'routines'));
    expect(once.watchFiles).toEqual(expect.arrayContaining([routines, realpathSync(path.join(notebook, 'plugin.json'))]));
    // Nor the directories inside a watched one: chokidar walks each re-added directory again.
    expect(once.watchFiles.filter((f) => f.startsWith(routines + path.sep))).toEqual([]);
    await agePastRacyWindow();
    const watcher = watch({ input: path.join(dir, 'main.js'), plugins: [berrypack()], output: { dir: out, format: 'es' }, logLevel: 'silent' });
    const stamps = recordStamps();
    try {
      await nextBuild(watcher);
      const first = (await importModule<{ default: PackageModule }>(path.join(out, 'main.js'))).default;
      stamps.paths.length = 0;
      await rebuild(watcher, () => writeFileSync(compose, original.replace('house style.', 'house style, briefly.')));
      // Only the reported file is checked (and plugin.json, which `prepare` reads first to decide
      // on a second thread); every other file of the package is served from memory.
      const manifest = realpathSync(path.join(notebook, 'plugin.json'));
      expect([...new Set(stamps.paths)].filter((p) => p !== manifest)).toEqual([compose]);
      const edited = (await importModule<{ default: PackageModule }>(path.join(out, 'main.js'))).default;
      expect(edited.id).not.toBe(first.id);
      // The same bytes as a fresh build of the edited package.
      const fresh = createCompiler().build(path.join(notebook, 'plugin.json'));
      expect(edited.id).toBe(fresh.bundle!.id);
      expect(readFileSync(path.join(out, edited.fileName)).equals(Buffer.from(fresh.bundle!.bytes))).toBe(true);
    } finally {
      stamps.restore();
      await watcher.close();
    }
  });
});
