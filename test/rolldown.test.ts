import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createCompiler, loadBundleFile } from '@berrypack/compiler';
import { rolldown, type RolldownPluginOption } from 'rolldown';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import berrypack from '../packages/rollup/src/index.js';
import { importModule, readOutput } from './support/bundlers.js';
import { cleanup, copyFixture, tempDir, writeFiles } from './support/temp.js';

interface PackageModule {
  id: string;
  name: string;
  fileName: string;
  file: string;
  agents: Record<string, unknown>;
}

describe('@berrypack/rollup in rolldown', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => cleanup(dir));

  it('the same plugin object builds packages and routines', async () => {
    copyFixture('notebook', dir);
    copyFixture('imports/app', dir);
    copyFixture('imports/lib', dir);
    writeFiles(dir, {
      'main.js': [
        "import notebook from './notebook/plugin.json';",
        "import greeter from './app/plugin.json';",
        "import compose from './notebook/routines/notes/compose.md?berrypack';",
        'export { notebook, greeter, compose };',
        '',
      ].join('\n'),
    });
    const plugin: RolldownPluginOption = berrypack();
    const build = await rolldown({ input: path.join(dir, 'main.js'), plugins: [plugin], logLevel: 'silent' });
    const out = path.join(dir, 'out');
    await build.write({ dir: out, format: 'es' });
    await build.close();

    const { notebook, greeter, compose } = await importModule<{
      notebook: PackageModule;
      greeter: PackageModule;
      compose: { name: string; bundle: { id: string } };
    }>(path.join(out, 'main.js'));
    const compiler = createCompiler();
    const expected = compiler.build(path.join(dir, 'notebook/plugin.json')).bundle!;
    expect(notebook).toMatchObject({
      id: expected.id,
      name: 'example.notebook',
      file: pathToFileURL(path.join(out, expected.fileName)).href,
      agents: { notebook: { title: 'Notebook', description: 'Organize notes and answer questions about them.', entry: 'converse' } },
    });
    expect(Buffer.from(readOutput(out, expected.fileName)).equals(Buffer.from(expected.bytes))).toBe(true);
    expect(greeter.id).toBe(compiler.build(path.join(dir, 'app/plugin.json')).bundle!.id);
    expect(loadBundleFile(new URL(greeter.file), { expectedId: greeter.id }).ok).toBe(true);
    expect(compose).toMatchObject({ name: 'notes.compose', bundle: { id: notebook.id } });
  });

  it('reports an error diagnostic with its code, rule, location and frame', async () => {
    writeFiles(dir, {
      'broken/plugin.json': JSON.stringify({
        $schema: 'https://agent-plugins.org/schemas/1.0.0/plugin.schema.json',
        name: 'demo.broken',
        version: '1',
        extensions: { 'ai.strawberry.berry': { exports: ['hello'] } },
      }),
      'broken/hello.md': '---\nname: hello\ndescription: Says hello.\ntools:\n  - nowhere\n---\nSay hello.\n',
      'main.js': "export { default } from './broken/plugin.json';\n",
    });
    const failure = await rolldown({ input: path.join(dir, 'main.js'), plugins: [berrypack()], logLevel: 'silent' })
      .then((build) => build.generate({ format: 'es' }))
      .catch((error: unknown) => error);
    // rolldown gathers the build's errors in `errors`, each the log the plugin gave it plus its own fields.
    expect((failure as { errors?: unknown[] }).errors).toMatchObject([
      {
        message:
          'BP2110 Unexpected unknown tool `nowhere`, expected a model or code routine, a callable import or an external tool\nhint: if `nowhere` is an external tool, list it in plugin.json `requires` (the build has no catalog)',
        pluginCode: 'BP2110',
        rule: 'TOOL-6',
        hint: 'if `nowhere` is an external tool, list it in plugin.json `requires` (the build has no catalog)',
        loc: { file: path.join(dir, 'broken/hello.md'), line: 5, column: 4 },
        frame: ['  3 | description: Says hello.', '  4 | tools:', '> 5 |   - nowhere', '    |     ^^^^^^^', '  6 | ---', '  7 | Say hello.'].join('\n'),
        code: 'PLUGIN_ERROR',
        plugin: 'berrypack',
        hook: 'load',
      },
    ]);
  });

  it('reports a package imported through its manifest and one of its routines once', async () => {
    writeFiles(dir, {
      'twice/plugin.json': JSON.stringify({
        $schema: 'https://agent-plugins.org/schemas/1.0.0/plugin.schema.json',
        name: 'example.twice',
        version: '1',
        extensions: { 'ai.strawberry.berry': { exports: ['hello'] } },
      }),
      'twice/hello.md': '---\nname: hello\ndescription: Says hello.\ntools:\n  - nowhere\n---\nSay hello.\n',
      'both.js': "import app from './twice/plugin.json';\nimport hello from './twice/hello.md';\nexport default [app, hello];\n",
    });
    const failure = await rolldown({ input: path.join(dir, 'both.js'), plugins: [berrypack()], logLevel: 'silent' })
      .then((build) => build.generate({ format: 'es' }))
      .catch((error: unknown) => error);
    expect(((failure as { errors?: { pluginCode?: string }[] }).errors ?? []).map((e) => e.pluginCode)).toEqual(['BP2110']);
  });
});
