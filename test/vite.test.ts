import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createCompiler, loadBundleFile, readBundle } from '@berrypack/compiler';
import { build, createLogger, createServer, type InlineConfig, type Plugin } from 'vite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import berrypack from '../packages/rollup/src/index.js';
import { importModule, nextBuild, readOutput, rebuild, type Watcher } from './support/bundlers.js';
import { cleanup, copyFixture, tempDir, writeFiles } from './support/temp.js';
import { berrypack as runCli } from './support/cli.js';

interface PackageModule {
  id: string;
  name: string;
  fileName: string;
  file: string;
  agents: Record<string, unknown>;
}

const MAIN = [
  "import notebook from './notebook/plugin.json';",
  "import greeter from './app/plugin.json?berrypack';",
  "import compose from './notebook/routines/notes/compose.md';",
  'export { notebook, greeter, compose };',
  '',
].join('\n');

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

describe('@berrypack/rollup in Vite', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir();
    copyFixture('notebook', dir);
  });
  afterEach(() => cleanup(dir));

  /** A library-like build of `main.js` that keeps the entry's exports, so the test can run it. */
  function config(outDir: string, extra: InlineConfig = {}): InlineConfig {
    return {
      root: dir,
      base: '/app/',
      configFile: false,
      logLevel: 'silent',
      plugins: [berrypack()],
      ...extra,
      build: {
        outDir,
        minify: false,
        rolldownOptions: { input: path.join(dir, 'main.js'), preserveEntrySignatures: 'strict', output: { entryFileNames: '[name].js' } },
        ...extra.build,
      },
    };
  }

  it('vite build: the chunk runs, its file URL respects `base`, the assets are the compiler’s bytes', async () => {
    copyFixture('imports/app', dir);
    copyFixture('imports/lib', dir);
    writeFiles(dir, { 'main.js': MAIN });
    const out = path.join(dir, 'dist');
    await build(config(out));

    const { notebook, greeter, compose } = await importModule<{
      notebook: PackageModule;
      greeter: PackageModule;
      compose: { name: string; bundle: { file: string } };
    }>(path.join(out, 'main.js'));
    const compiler = createCompiler();
    const expected = compiler.build(path.join(dir, 'notebook/plugin.json')).bundle!;
    expect(notebook).toMatchObject({
      id: expected.id,
      name: 'example.notebook',
      fileName: expected.fileName,
      file: `/app/${expected.fileName}`,
      agents: { notebook: { title: 'Notebook', description: 'Organize notes and answer questions about them.', entry: 'converse' } },
    });
    const bytes = readOutput(out, expected.fileName);
    expect(Buffer.from(bytes).equals(Buffer.from(expected.bytes))).toBe(true);
    expect(readBundle(bytes, { expectedId: expected.id }).ok).toBe(true);
    expect(compose).toMatchObject({ name: 'notes.compose', bundle: { file: notebook.file } });

    expect(greeter.id).toBe(compiler.build(path.join(dir, 'app/plugin.json')).bundle!.id);
    expect(loadBundleFile(path.join(out, greeter.fileName), { expectedId: greeter.id }).ok).toBe(true);
  });

  it('build.ssr: the server chunk points at the URL the client build serves', async () => {
    writeFiles(dir, { 'main.js': "export { default } from './notebook/plugin.json';\n" });
    const out = path.join(dir, 'dist-ssr');
    await build(config(out, { build: { ssr: path.join(dir, 'main.js') } }));
    const { default: notebook } = await importModule<{ default: PackageModule }>(path.join(out, 'main.js'));
    const expected = createCompiler().build(path.join(dir, 'notebook/plugin.json')).bundle!;
    expect(notebook).toMatchObject({ id: expected.id, file: `/app/${expected.fileName}` });
  });

  it('dev server: the module’s file URL is served by middleware with the CLI’s bytes, and an edit reloads', async () => {
    copyFixture('imports/app', dir);
    copyFixture('imports/lib', dir);
    writeFiles(dir, { 'main.js': MAIN });
    const cliOut = path.join(dir, 'cli-dist');
    const cli = runCli(['build', path.join(dir, 'notebook/plugin.json'), '--out-dir', cliOut, '--json']);
    expect(cli.code).toBe(0);
    const cliFile = (JSON.parse(cli.stdout) as { file: string }).file;

    const server = await createServer({
      root: dir,
      base: '/app/',
      configFile: false,
      logLevel: 'silent',
      plugins: [berrypack()],
      server: { host: '127.0.0.1', port: 0, strictPort: false },
      optimizeDeps: { noDiscovery: true, include: [] },
    });
    try {
      await server.listen();
      const origin = `http://127.0.0.1:${(server.httpServer!.address() as AddressInfo).port}`;
      const { notebook, greeter } = (await server.ssrLoadModule('/main.js')) as { notebook: PackageModule; greeter: PackageModule };
      expect(notebook.file).toBe(`/app/${path.basename(cliFile)}`);
      const served = await fetch(origin + notebook.file);
      expect(served.status).toBe(200);
      expect(Buffer.from(await served.arrayBuffer()).equals(readFileSync(path.resolve(cliFile)))).toBe(true);

      const greeterBundle = createCompiler().build(path.join(dir, 'app/plugin.json')).bundle!;
      for (const [hex, blob] of greeterBundle.blobs) {
        const response = await fetch(`${origin}/app/blobs/sha256/${hex}`);
        expect(Buffer.from(await response.arrayBuffer()).equals(Buffer.from(blob))).toBe(true);
      }
      expect(greeter.file).toBe(`/app/${greeterBundle.fileName}`);

      // The browser's path: the importer is rewritten to a URL of ours, which serves JavaScript.
      const main = await fetch(`${origin}/app/main.js`).then((r) => r.text());
      const url = /from "(\/app\/notebook\/plugin\.json\?[^"]*berrypack)"/.exec(main)?.[1];
      expect(url).toBeDefined();
      const module = await fetch(origin + url!).then((r) => r.text());
      expect(module).toContain(`file: ${JSON.stringify(notebook.file)},`);
      const routineUrl = /from "(\/app\/notebook\/routines\/notes\/compose\.md\?[^"]*berrypack)"/.exec(main)?.[1];
      const routine = await fetch(origin + routineUrl!).then((r) => r.text());
      expect(routine).toContain('name: "notes.compose",');

      const compose = path.join(dir, 'notebook/routines/notes/compose.md');
      writeFileSync(compose, readFileSync(compose, 'utf8').replace('house style.', 'house style, briefly.'));
      let reloaded = notebook;
      // No fixed delay: the file watcher reports the edit when it does; the test timeout bounds the wait.
      while (reloaded.id === notebook.id) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        reloaded = ((await server.ssrLoadModule('/main.js')) as { notebook: PackageModule }).notebook;
      }
      expect((await fetch(origin + reloaded.file)).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('shows a warning with its file, line, frame and hint, and a dev-server error with its File: line', async () => {
    writeFiles(dir, {
      'broken/plugin.json': JSON.stringify({
        $schema: 'https://agent-plugins.org/schemas/1.0.0/plugin.schema.json',
        name: 'example.broken',
        version: '1',
        extensions: { 'ai.strawberry.berry': { sources: 'r', exports: ['pick'] } },
      }),
      'broken/r/pick.md':
        "---\nname: pick\ndescription: Picks a mood.\nmodel:\n  select:\n    operation: generation\ninput:\n  type: string\n  enum: ['a', 'b']\n---\nPick one.\n",
      'main.js': "import app from './broken/plugin.json';\nexport default app;\n",
    });
    const warned: string[] = [];
    const customLogger = {
      ...createLogger('silent'),
      warn: (message: string) => void warned.push(message),
      warnOnce: (message: string) => void warned.push(message),
    };
    await build({ ...config(path.join(dir, 'out'), { build: { write: false } }), customLogger, logLevel: 'warn' });
    const file = path.join(dir, 'broken/r/pick.md');
    const shown = path.relative(process.cwd(), file).split(path.sep).join('/');
    expect(warned.map((m) => m.replace(/\x1b\[[0-9;]*m/g, ''))).toEqual([
      [
        '[plugin berrypack] BP1041 Unexpected non-empty flow list, expected it written expanded',
        `  at ${path.isAbsolute(shown) || shown.startsWith('..') ? file : shown}:9:9`,
        '   7 | input:',
        '   8 |   type: string',
        ">  9 |   enum: ['a', 'b']",
        '     |         ^^^^^^^^^^',
        '  10 | ---',
        '  11 | Pick one.',
        'hint: write one `- item` per line',
      ].join('\n'),
    ]);

    writeFiles(dir, {
      'broken/r/pick.md':
        '---\nname: pick\ndescription: Picks a mood.\nmodel:\n  select:\n    operation: generation\ninput:\n  type: string\n  enum:\n    - 3\n---\nPick one.\n',
    });
    const server = await createServer({
      root: dir,
      configFile: false,
      logLevel: 'silent',
      plugins: [berrypack()],
      server: { host: '127.0.0.1', port: 0, strictPort: false },
      optimizeDeps: { noDiscovery: true, include: [] },
    });
    try {
      const failure = (await server.ssrLoadModule('/main.js').catch((error: unknown) => error)) as {
        id?: string;
        loc?: unknown;
        frame?: string;
        message: string;
      };
      expect(failure.id).toBe(file);
      expect(failure.loc).toEqual({ file, line: 10, column: 6 });
      expect(failure.frame).toContain('> 10 |     - 3');
      expect(failure.message).toContain('BP1282');
    } finally {
      await server.close();
    }
  });

  it('coexists with Vite’s JSON handling, `?raw`, `?url` and a Markdown plugin', async () => {
    writeFiles(dir, {
      'data.json': '{"answer": 42}',
      'README.md': '# Outside any package\n',
      'main.js': [
        "import data from './data.json';",
        "import readme from './README.md';",
        "import raw from './notebook/plugin.json?raw';",
        "import url from './notebook/plugin.json?url';",
        "import notebook from './notebook/plugin.json';",
        'export { data, readme, raw, url, notebook };',
        '',
      ].join('\n'),
    });
    const out = path.join(dir, 'dist');
    await build(config(out, { plugins: [markdown(), berrypack()], build: { assetsInlineLimit: 0 } }));
    const result = await importModule<{ data: unknown; readme: unknown; raw: string; url: string; notebook: PackageModule }>(path.join(out, 'main.js'));
    expect(result.data).toEqual({ answer: 42 });
    expect(result.readme).toEqual({ markdown: '# Outside any package\n' });
    expect(result.raw).toBe(readFileSync(path.join(dir, 'notebook/plugin.json'), 'utf8'));
    expect(result.url).toMatch(/^\/app\/assets\/plugin-[\w-]+\.json$/);
    expect(result.notebook.name).toBe('example.notebook');
  });

  it('vite build --watch rebuilds on an edit', async () => {
    writeFiles(dir, { 'main.js': "export { default } from './notebook/plugin.json';\n" });
    const out = path.join(dir, 'dist');
    const watcher = (await build(config(out, { build: { watch: {} } }))) as unknown as Watcher & { close(): Promise<void> };
    try {
      await nextBuild(watcher);
      const current = async () => (await importModule<{ default: PackageModule }>(path.join(out, 'main.js'))).default;
      const first = await current();
      const compose = path.join(dir, 'notebook/routines/notes/compose.md');
      const original = readFileSync(compose, 'utf8');
      await rebuild(watcher, () => writeFileSync(compose, original.replace('house style.', 'house style, briefly.')));
      const edited = await current();
      expect(edited.id).not.toBe(first.id);
      expect(readOutput(out, edited.fileName).length).toBeGreaterThan(0);
      // Rolldown is given the routines directory, not each file in it: a new file in a subdirectory rebuilds too.
      const sources = (module: PackageModule) => {
        const loaded = loadBundleFile(path.join(out, module.fileName), { expectedId: module.id });
        if (!loaded.ok) throw new Error(loaded.error.message);
        return Object.keys(loaded.bundle.content.sources as Record<string, unknown>);
      };
      const extra = path.join(dir, 'notebook/routines/notes/extra.md');
      await rebuild(watcher, () => writeFileSync(extra, '---\nname: notes.extra\ndescription: One more note.\n---\nBe brief.\n'));
      expect(sources(await current())).toContain('notes.extra');
      await rebuild(watcher, () => rmSync(extra, { force: true }));
      const deleted = await current();
      expect(deleted.id).toBe(edited.id);
      expect(sources(deleted)).not.toContain('notes.extra');
    } finally {
      await watcher.close();
    }
  });
});
