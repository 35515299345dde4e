import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { describe, expect, it } from 'vitest';
import { createCompiler, readBundle } from '@berrypack/compiler';
import berrypack from '../packages/esbuild/src/index.js';
import { run } from '../packages/cli/src/index.js';
import { bundleId, bundleOutput, recordEnds } from './support/esbuild.js';
import { copyFixtures, tempDir, writeFiles } from './support/temp.js';
import { memoryIo } from './support/memory-io.js';

const silent = { logLevel: 'silent' } as const;

async function failureOf(promise: Promise<unknown>): Promise<esbuild.BuildFailure> {
  try {
    await promise;
  } catch (error) {
    return error as esbuild.BuildFailure;
  }
  throw new Error('expected the build to fail');
}

const BROKEN = {
  'broken/plugin.json': JSON.stringify({
    $schema: 'https://agent-plugins.org/schemas/1.0.0/plugin.schema.json',
    name: 'example.broken',
    version: '1',
    extensions: { 'ai.strawberry.berry': { sources: 'r', exports: ['pick'] } },
  }),
  // Non-ASCII before the error's column: esbuild counts UTF-8 bytes, the compiler UTF-16 units.
  'broken/r/pick.md':
    "---\nname: pick\ndescription: Picks a mood.\nmodel:\n  select:\n    operation: generation\ninput:\n  type: string\n  enum: ['été 🍓', 'ü', 3]\n---\nPick one.\n",
  'main.js': "import app from './broken/plugin.json';\nexport default app;\n",
};

/** A context building `main.js` of `dir` into `dist`, without writing. */
function rebuildingContext(dir: string, plugins: esbuild.Plugin[] = []): Promise<esbuild.BuildContext> {
  return esbuild.context({
    absWorkingDir: dir,
    entryPoints: ['main.js'],
    bundle: true,
    outdir: 'dist',
    write: false,
    plugins: [berrypack(), ...plugins],
    ...silent,
  });
}

describe('@berrypack/esbuild', () => {
  it('exposes the factory as default, by name, and as what require() returns', async () => {
    const api = await import('../packages/esbuild/src/index.js');
    expect(Object.keys(api).sort()).toEqual(['berrypack', 'default', 'module.exports']);
    expect(api['module.exports'].berrypack).toBe(api.default);
    expect(berrypack().name).toBe('berrypack');
  });

  it('builds an imported package: the executed module describes the bundle written beside it', async () => {
    const dir = copyFixtures(['notebook']);
    writeFiles(dir, {
      'main.js': "import app from './notebook/plugin.json';\nimport compose from './notebook/routines/notes/compose.md';\nexport default { app, compose };\n",
    });
    const result = await esbuild.build({
      absWorkingDir: dir,
      entryPoints: ['main.js'],
      bundle: true,
      format: 'esm',
      outdir: 'dist',
      plugins: [berrypack()],
      ...silent,
    });
    expect(result.errors).toEqual([]);
    const expected = createCompiler().build(path.join(dir, 'notebook/plugin.json')).bundle!;
    const { default: loaded } = (await import(pathToFileURL(path.join(dir, 'dist/main.js')).href)) as {
      default: { app: Record<string, unknown>; compose: Record<string, unknown> };
    };
    expect(loaded.app).toEqual({
      id: expected.id,
      name: 'example.notebook',
      fileName: expected.fileName,
      file: pathToFileURL(path.join(dir, 'dist', expected.fileName)).href,
      agents: { notebook: { title: 'Notebook', description: 'Organize notes and answer questions about them.', entry: 'converse' } },
      exports: ['converse', 'notes.compose', 'search.answer'],
      requirements: expect.objectContaining({ tools: [], env: [] }),
    });
    expect(loaded.compose).toMatchObject({
      name: 'notes.compose',
      kind: 'model',
      visibility: 'public',
      input: { type: 'object', required: ['text'] },
      bundle: { id: expected.id, name: 'example.notebook', fileName: expected.fileName, file: loaded.app.file },
    });
    const written = readFileSync(path.join(dir, 'dist', expected.fileName));
    expect(Buffer.compare(written, expected.bytes)).toBe(0);
    expect(readBundle(written, { expectedId: expected.id }).ok).toBe(true);
  });

  it('writes the same bundle and blobs as `berrypack build`', async () => {
    const dir = copyFixtures(['imports']);
    writeFiles(dir, { 'main.js': "import app from './imports/app/plugin.json';\nexport default app.id;\n" });
    const result = await esbuild.build({
      absWorkingDir: dir,
      entryPoints: ['main.js'],
      bundle: true,
      outfile: 'out/esbuild/main.js',
      plugins: [berrypack()],
      ...silent,
    });
    expect(result.errors).toEqual([]);
    expect(await run(['build', 'imports/app/plugin.json', '--out-dir', 'out/cli'], memoryIo(dir, { NO_COLOR: '1' }).io)).toBe(0);
    const listing = (d: string) =>
      readdirSync(path.join(dir, d), { recursive: true, encoding: 'utf8' })
        .filter((f) => !f.endsWith('main.js'))
        .sort();
    const names = listing('out/cli');
    expect(names).toEqual(listing('out/esbuild'));
    expect(names.some((n) => n.startsWith(path.join('blobs', 'sha256') + path.sep))).toBe(true);
    for (const name of names) {
      if (!statSync(path.join(dir, 'out/cli', name)).isFile()) continue;
      expect(readFileSync(path.join(dir, 'out/esbuild', name)), name).toEqual(readFileSync(path.join(dir, 'out/cli', name)));
    }
    // Not ESM: the module gives the file name relative to the output directory.
    expect(readFileSync(path.join(dir, 'out/esbuild/main.js'), 'utf8')).toMatch(/file: "example\.greeter\.[0-9a-f]{12}\.berry\.json"/);
  });

  it("hands esbuild a first build's plugin.json and sources with the resolution, and the rest with the load", async () => {
    const dir = copyFixtures(['notebook']);
    writeFiles(dir, { 'main.js': "import app from './notebook/plugin.json';\nexport default app;\n" });
    const manifest = path.join(dir, 'notebook/plugin.json');
    // What each of the plugin's hooks answered, seen through a wrapped PluginBuild.
    const answers: { hook: string; watchFiles: string[]; watchDirs: string[] }[] = [];
    const plugin = berrypack();
    const seen = (hook: string) => (result: esbuild.OnResolveResult | esbuild.OnLoadResult | null | undefined) => {
      if (result) answers.push({ hook, watchFiles: result.watchFiles ?? [], watchDirs: result.watchDirs ?? [] });
      return result;
    };
    const watched: esbuild.Plugin = {
      name: plugin.name,
      setup: (build) =>
        plugin.setup({
          ...build,
          onResolve: (options, callback) => build.onResolve(options, async (args) => seen('resolve')(await callback(args))),
          onLoad: (options, callback) => build.onLoad(options, async (args) => seen('load')(await callback(args))),
        }),
    };
    await esbuild.build({ absWorkingDir: dir, entryPoints: ['main.js'], bundle: true, outdir: 'dist', write: false, plugins: [watched], ...silent });
    const expected = createCompiler().build(manifest);
    const [resolved, loaded] = answers;
    expect(answers.map((a) => a.hook)).toEqual(['resolve', 'load']);
    // esbuild reads every watch file it is given before it asks for the load: the sources go out first.
    const sources = expected.files.filter((f) => f.endsWith('.md'));
    expect(sources.length).toBeGreaterThan(3);
    expect(resolved!.watchFiles).toEqual(expect.arrayContaining([manifest, ...sources]));
    expect(resolved!.watchDirs).toContain(path.join(dir, 'notebook/routines'));
    // The load adds what only the build finds (the code modules), and nothing given already.
    expect(loaded!.watchFiles).toContain(path.join(dir, 'notebook/routines/lib/score.js'));
    expect(loaded!.watchFiles.filter((f) => resolved!.watchFiles.includes(f))).toEqual([]);
    expect(new Set([...resolved!.watchFiles, ...loaded!.watchFiles])).toEqual(new Set(expected.files));
    expect(new Set([...resolved!.watchDirs, ...loaded!.watchDirs])).toEqual(new Set(expected.directories));
  });

  it('reports a bundle it cannot write as an esbuild error and leaves no temporary file', async () => {
    const dir = copyFixtures(['imports']);
    writeFiles(dir, { 'main.js': "import app from './imports/app/plugin.json';\nexport default app.id;\n" });
    const options = { absWorkingDir: dir, entryPoints: ['main.js'], bundle: true, outdir: 'out', plugins: [berrypack()], ...silent };
    const planned = await esbuild.build({ ...options, write: false });
    const bundleName = planned.outputFiles.map((f) => path.basename(f.path)).find((n) => n.endsWith('.berry.json'))!;
    // A folder where the bundle goes: its rename fails after the blobs were written in place.
    mkdirSync(path.join(dir, 'out', bundleName), { recursive: true });
    const failure = await failureOf(esbuild.build(options));
    expect(failure.errors.map((e) => e.text)).toEqual([expect.stringMatching(/^Unexpected E\w+ writing the bundle to .*out$/)]);
    const left = readdirSync(path.join(dir, 'out'), { recursive: true, encoding: 'utf8' });
    expect(left.filter((f) => f.endsWith('.tmp'))).toEqual([]);
    expect(statSync(path.join(dir, 'out', bundleName)).isDirectory()).toBe(true);
  });

  it('adds the bundle and its blobs to outputFiles (write: false) and to the metafile', async () => {
    const dir = copyFixtures(['imports']);
    writeFiles(dir, { 'main.js': "import app from './imports/app/plugin.json';\nexport default app;\n" });
    const result = await esbuild.build({
      absWorkingDir: dir,
      entryPoints: ['main.js'],
      bundle: true,
      format: 'esm',
      outdir: 'dist',
      write: false,
      metafile: true,
      plugins: [berrypack()],
      ...silent,
    });
    const expected = createCompiler().build(path.join(dir, 'imports/app/plugin.json')).bundle!;
    const [hex, blob] = [...expected.blobs][0]!;
    expect(result.outputFiles.map((f) => f.path).sort()).toEqual(
      [path.join(dir, 'dist/main.js'), path.join(dir, 'dist', expected.fileName), path.join(dir, 'dist/blobs/sha256', hex)].sort(),
    );
    expect(bundleOutput(result.outputFiles)!.contents).toEqual(expected.bytes);
    expect(bundleOutput(result.outputFiles)!.text).toBe(expected.text);
    expect(result.outputFiles.find((f) => f.path.endsWith(hex))!.contents).toEqual(blob);
    expect(result.metafile.outputs[`dist/${expected.fileName}`]).toEqual({ bytes: expected.bytes.length, inputs: {}, imports: [], exports: [] });
    expect(result.metafile.outputs[`dist/blobs/sha256/${hex}`]).toMatchObject({ bytes: blob.length });
    expect(existsSync(path.join(dir, 'dist'))).toBe(false);
  });

  it('claims `?berrypack` imports of a manifest and a routine, as Rollup and Vite do, and keeps no absolute path in its output', async () => {
    const dir = copyFixtures(['notebook']);
    writeFiles(dir, {
      'main.js':
        "import app from './notebook/plugin.json?berrypack';\nimport compose from './notebook/routines/notes/compose.md?berrypack';\nexport default [app.id, app.name, compose.name, compose.kind, compose.bundle.id];\n",
    });
    const result = await esbuild.build({
      absWorkingDir: dir,
      entryPoints: ['main.js'],
      bundle: true,
      format: 'esm',
      outdir: 'dist',
      plugins: [berrypack()],
      ...silent,
    });
    expect(result.errors).toEqual([]);
    const id = JSON.parse(
      readFileSync(
        path.join(
          dir,
          'dist',
          readdirSync(path.join(dir, 'dist')).find((f) => f.endsWith('.berry.json'))!,
        ),
        'utf8',
      ),
    ).id;
    const output = path.join(dir, 'dist', 'main.js');
    expect((await import(pathToFileURL(output).href)).default).toEqual([id, 'example.notebook', 'notes.compose', 'model', id]);
    const text = readFileSync(output, 'utf8');
    expect(text).not.toContain(dir);
    expect(text).toContain('// notebook/plugin.json');
    rmSync(dir, { recursive: true, force: true });
  });

  it('reports a package imported through its manifest and one of its routines once', async () => {
    const dir = tempDir();
    writeFiles(dir, { ...BROKEN, 'main.js': "import app from './broken/plugin.json';\nimport pick from './broken/r/pick.md';\nexport default [app, pick];\n" });
    const failure = await failureOf(
      esbuild.build({ absWorkingDir: dir, entryPoints: ['main.js'], bundle: true, format: 'esm', outdir: 'dist', plugins: [berrypack()], ...silent }),
    );
    expect(failure.errors.map((e) => e.text)).toEqual(["BP1282 Unexpected `3` in `input.enum`, expected a string (the schema's `type: string`)"]);
    expect(failure.warnings.map((e) => e.text)).toEqual(['BP1041 Unexpected non-empty flow list, expected it written expanded']);
    expect(existsSync(path.join(dir, 'dist'))).toBe(false);
    rmSync(dir, { recursive: true, force: true });
  });

  it('reports a broken package as exact esbuild messages and writes nothing', async () => {
    const dir = tempDir();
    writeFiles(dir, BROKEN);
    const failure = await failureOf(
      esbuild.build({ absWorkingDir: dir, entryPoints: ['main.js'], bundle: true, format: 'esm', outdir: 'dist', plugins: [berrypack()], ...silent }),
    );
    const trigger = {
      text: 'The plugin "berrypack" was triggered by this import',
      location: { file: 'main.js', namespace: '', line: 1, column: 16, length: 22, lineText: "import app from './broken/plugin.json';", suggestion: '' },
    };
    const lineText = "  enum: ['été 🍓', 'ü', 3]";
    expect(failure.errors).toEqual([
      {
        id: '',
        pluginName: 'berrypack',
        text: "BP1282 Unexpected `3` in `input.enum`, expected a string (the schema's `type: string`)",
        location: { file: 'broken/r/pick.md', namespace: 'file', line: 9, column: 29, length: 1, lineText, suggestion: '' },
        notes: [{ text: "quote it to make it a string: `'3'`", location: null }, trigger],
        detail: { code: 'BP1282', rule: 'SCH-8' },
      },
    ]);
    expect(failure.warnings).toEqual([
      {
        id: '',
        pluginName: 'berrypack',
        text: 'BP1041 Unexpected non-empty flow list, expected it written expanded',
        location: { file: 'broken/r/pick.md', namespace: 'file', line: 9, column: 8, length: 23, lineText, suggestion: '' },
        notes: [{ text: 'write one `- item` per line', location: null }, trigger],
        detail: { code: 'BP1041', rule: 'SRC-5' },
      },
    ]);
    expect(existsSync(path.join(dir, 'dist'))).toBe(false);
  });

  it('fails on warnings with strict, and writes nothing', async () => {
    const dir = tempDir();
    writeFiles(dir, { ...BROKEN, 'broken/r/pick.md': BROKEN['broken/r/pick.md'].replace(', 3]', ", 'x']") });
    const options = { absWorkingDir: dir, entryPoints: ['main.js'], bundle: true, outdir: 'dist', ...silent };
    const lenient = await esbuild.build({ ...options, write: false, plugins: [berrypack()] });
    expect(lenient.warnings.map((w) => w.text)).toEqual(['BP1041 Unexpected non-empty flow list, expected it written expanded']);
    const failure = await failureOf(esbuild.build({ ...options, plugins: [berrypack({ strict: true })] }));
    expect(failure.errors.map((e) => [e.text, e.detail])).toEqual([
      ['BP1041 Unexpected non-empty flow list, expected it written expanded', { code: 'BP1041', rule: 'SRC-5' }],
    ]);
    expect(existsSync(path.join(dir, 'dist'))).toBe(false);
  });

  it('leaves other .json and .md imports alone, and refuses a .md that is not a source', async () => {
    const dir = copyFixtures(['notebook']);
    writeFiles(dir, {
      'other/plugin.json': '{"name": "not-berry"}',
      'notes.md': '# Notes\n',
      'main.js': "import other from './other/plugin.json';\nimport notes from './notes.md';\nexport default { other, notes };\n",
      'readme.js': "import readme from './notebook/routines/README.md';\nexport default readme;\n",
    });
    const options = {
      absWorkingDir: dir,
      bundle: true,
      outdir: 'dist',
      write: false as const,
      format: 'esm' as const,
      loader: { '.md': 'text' as const },
      ...silent,
    };
    const plain = await esbuild.build({ ...options, entryPoints: ['main.js'], plugins: [berrypack()] });
    expect(plain.outputFiles.map((f) => path.basename(f.path))).toEqual(['main.js']);
    expect(plain.outputFiles[0]!.text).toContain('"not-berry"');
    const failure = await failureOf(esbuild.build({ ...options, entryPoints: ['readme.js'], plugins: [berrypack()] }));
    expect(failure.errors.map((e) => [e.text, e.location?.file])).toEqual([
      [
        `Unexpected import of ${path.join(dir, 'notebook/routines/README.md')}, expected a source of example.notebook (a .md file whose first line is \`---\`, in its sources folder)`,
        'notebook/routines/README.md',
      ],
    ]);
  });

  it('follows include, exclude, emit and namedExports', async () => {
    const dir = copyFixtures(['notebook']);
    writeFiles(dir, {
      'main.js': "import app from './notebook/plugin.json';\nexport default app.id;\n",
      'named.js': "import { id } from './notebook/plugin.json';\nexport default id;\n",
    });
    const options = { absWorkingDir: dir, bundle: true, format: 'esm' as const, outdir: 'dist', write: false as const, ...silent };
    const named = await esbuild.build({ ...options, entryPoints: ['named.js'], plugins: [berrypack({ namedExports: true, emit: false })] });
    expect(named.outputFiles.map((f) => path.basename(f.path))).toEqual(['named.js']);
    expect(named.outputFiles[0]!.text).toMatch(/"sha256-[0-9a-f]{64}"/);
    // Not claimed: esbuild's own JSON loader takes the manifest, which has no `id`.
    for (const plugin of [berrypack({ exclude: '**/notebook/*.json' }), berrypack({ include: [/other/] })]) {
      const result = await esbuild.build({ ...options, entryPoints: ['main.js'], plugins: [plugin] });
      expect(result.outputFiles.map((f) => path.basename(f.path))).toEqual(['main.js']);
      expect(result.outputFiles[0]!.text).toContain('"ai.strawberry.berry"');
      expect(result.outputFiles[0]!.text).not.toMatch(/sha256-/);
    }
    const claimed = await esbuild.build({ ...options, entryPoints: ['main.js'], plugins: [berrypack({ include: '**/plugin.json', exclude: /other/ })] });
    expect(claimed.outputFiles.map((f) => path.basename(f.path)).sort()).toEqual(
      ['main.js', expect.stringMatching(/^example\.notebook\.[0-9a-f]{12}\.berry\.json$/)].sort(),
    );
  });

  it('validates its options when created', () => {
    expect(() => berrypack({ emit: 'yes' } as never)).toThrow(new Error('Unexpected type string for option `emit`, expected a boolean'));
    expect(() => berrypack({ inclde: '*.json' } as never)).toThrow(
      new Error('Unexpected option `inclde`, expected one of `include`, `exclude`, `catalog`, `store`, `emit`, `strict`, `namedExports`'),
    );
  });

  it('rebuilds a context after each change: edit, break, fix, code module, manifest, new and deleted routine', async () => {
    const dir = copyFixtures(['notebook']);
    writeFiles(dir, { 'main.js': "import app from './notebook/plugin.json';\nexport default app;\n" });
    const ctx = await esbuild.context({
      absWorkingDir: dir,
      entryPoints: ['main.js'],
      bundle: true,
      format: 'esm',
      outdir: 'dist',
      write: false,
      plugins: [berrypack()],
      ...silent,
    });
    try {
      const rebuild = async () => bundleId(bundleOutput((await ctx.rebuild()).outputFiles));
      const file = (name: string) => path.join(dir, 'notebook/routines', name);
      const compose = readFileSync(file('notes/compose.md'), 'utf8');
      const first = await rebuild();
      expect(first).toMatch(/^sha256-/);

      writeFileSync(file('notes/compose.md'), compose.replace('Rewrite the note', 'Rewrite the message'));
      const edited = await rebuild();
      expect(edited).not.toBe(first);

      writeFileSync(file('notes/compose.md'), compose.replace('    - tags\n', '    - tags\n    - title\n'));
      const failure = await failureOf(ctx.rebuild());
      expect(failure.errors.map((e) => e.location?.file)).toEqual(['notebook/routines/notes/compose.md']);

      writeFileSync(file('notes/compose.md'), compose.replace('Rewrite the note', 'Rewrite the message'));
      expect(await rebuild()).toBe(edited);

      writeFileSync(file('lib/score.js'), readFileSync(file('lib/score.js'), 'utf8') + '\nexport const version = 2;\n');
      const code = await rebuild();
      expect(code).not.toBe(edited);

      const manifest = path.join(dir, 'notebook/plugin.json');
      writeFileSync(manifest, readFileSync(manifest, 'utf8').replace('"title": "Notebook"', '"title": "Notebook II"'));
      const bumped = await rebuild();
      expect(bumped).not.toBe(code);

      writeFileSync(file('notes/tidy.md'), '---\nname: notes.tidy\ndescription: Tidies a note.\n---\nKeep it tidy.\n');
      const added = await rebuild();
      expect(added).not.toBe(bumped);

      rmSync(file('notes/tidy.md'));
      expect(await rebuild()).toBe(bumped);
    } finally {
      await ctx.dispose();
    }
  });

  it('sees an edit made before the second build and one made before the third (the watches start with the second)', async () => {
    const dir = copyFixtures(['notebook']);
    const notes = path.join(dir, 'notebook/routines/notes');
    writeFiles(dir, { 'main.js': "import app from './notebook/plugin.json';\nexport default app;\n" });
    // Past the compiler's racy window (120 ms): a file it read that long after its last change is
    // kept in memory until the plugin says it changed, so each step edits a file no build has
    // seen change (a file read right after its change is checked again anyway).
    const settle = () => new Promise((resolve) => setTimeout(resolve, 150));
    await settle();
    const ctx = await rebuildingContext(dir);
    const fresh = () => createCompiler().build(path.join(dir, 'notebook/plugin.json')).bundle!.id;
    try {
      const rebuild = async () => bundleId(bundleOutput((await ctx.rebuild()).outputFiles));
      let previous = await rebuild();
      const steps: [string, string][] = [
        ['second', 'compose.md'],
        ['third', 'style.md'],
        ['fourth', 'triage.md'],
      ];
      for (const [build, file] of steps) {
        await settle();
        appendFileSync(path.join(notes, file), '\nBe brief.\n');
        const id = await rebuild();
        expect(id, build).toBe(fresh());
        expect(id, build).not.toBe(previous);
        previous = id;
      }
    } finally {
      await ctx.dispose();
    }
  });

  it('rebuilds from file events what a fresh build gives: same-tick edits, a save by rename, a symlinked source, a new and a replaced folder', async () => {
    const dir = copyFixtures(['notebook']);
    const notes = path.join(dir, 'notebook/routines/notes');
    writeFiles(dir, { 'main.js': "import app from './notebook/plugin.json';\nexport default app;\n" });
    const ctx = await rebuildingContext(dir);
    const manifest = path.join(dir, 'notebook/plugin.json');
    const extra = path.join(dir, 'notebook/routines/extra');
    const tidy = (text: string) => writeFileSync(path.join(extra, 'tidy.md'), `---\nname: extra.tidy\ndescription: Tidies a note.\n---\n${text}\n`);
    const steps: [string, () => void][] = [
      ['an edit', () => appendFileSync(path.join(notes, 'compose.md'), '\nBe brief.\n')],
      ['another edit of the same file', () => appendFileSync(path.join(notes, 'compose.md'), '\nBe kind.\n')],
      [
        'a save by rename',
        () => {
          writeFileSync(path.join(notes, '.compose.md.tmp'), readFileSync(path.join(notes, 'compose.md'), 'utf8') + '\nBe exact.\n');
          renameSync(path.join(notes, '.compose.md.tmp'), path.join(notes, 'compose.md'));
        },
      ],
      ['a code module', () => appendFileSync(path.join(dir, 'notebook/routines/lib/score.js'), '\nexport const version = 2;\n')],
      ['a new folder with a routine', () => (mkdirSync(extra), tidy('Keep it tidy.'))],
      ['an edit in the new folder', () => tidy('Keep it very tidy.')],
      // The new folder's file has the old one's path: only the folder's identity tells.
      ['the folder replaced', () => (renameSync(extra, path.join(dir, 'notebook/old-extra')), mkdirSync(extra), tidy('Keep it spotless.'))],
      ['an edit in the replacing folder', () => tidy('Keep it spotless, always.')],
      [
        'a source replaced by a symbolic link inside the package',
        () => {
          mkdirSync(path.join(dir, 'notebook/drafts'));
          writeFileSync(path.join(dir, 'notebook/drafts/style.md'), readFileSync(path.join(notes, 'style.md'), 'utf8') + '\nMind the tone.\n');
          rmSync(path.join(notes, 'style.md'));
          symlinkSync('../../drafts/style.md', path.join(notes, 'style.md'));
        },
      ],
      // Its target's folder raises the event, not the link's.
      ['the symlinked source, through its target', () => appendFileSync(path.join(dir, 'notebook/drafts/style.md'), '\nKeep the voice.\n')],
    ];
    try {
      const rebuild = async () => bundleId(bundleOutput((await ctx.rebuild()).outputFiles));
      // From the third build of a context on, the plugin stats only what the file events name.
      await rebuild();
      const seen = new Set<string>([(await rebuild())!]);
      for (const [what, change] of steps) {
        // Files read more than the compiler's racy tick (100 ms) after their change are kept
        // in memory, so a missed event would give the previous bundle.
        await new Promise((resolve) => setTimeout(resolve, 150));
        expect(await rebuild(), what).toBe([...seen].at(-1));
        change();
        const id = await rebuild();
        expect(id, what).toBe(createCompiler().build(manifest).bundle!.id);
        expect(seen.has(id!), what).toBe(false);
        seen.add(id!);
      }
    } finally {
      await ctx.dispose();
    }
  });

  it('rebuilds when a resource or an imported package changes', async () => {
    const dir = copyFixtures(['imports']);
    writeFiles(dir, { 'main.js': "import app from './imports/app/plugin.json';\nexport default app;\n" });
    const ctx = await rebuildingContext(dir);
    try {
      const rebuild = async () => bundleId(bundleOutput((await ctx.rebuild()).outputFiles));
      const first = await rebuild();
      writeFileSync(path.join(dir, 'imports/app/banner.txt'), 'HELLO AGAIN\n');
      const resource = await rebuild();
      expect(resource).not.toBe(first);
      const tone = path.join(dir, 'imports/lib/text/tone.md');
      writeFileSync(tone, readFileSync(tone, 'utf8') + '\nStay warm.\n');
      expect(await rebuild()).not.toBe(resource);
    } finally {
      await ctx.dispose();
    }
  });

  it('picks up an edit, a new routine and a deleted one with context.watch()', { timeout: 120_000 }, async () => {
    const dir = copyFixtures(['notebook']);
    writeFiles(dir, { 'main.js': "import app from './notebook/plugin.json';\nexport default app;\n" });
    const ends = recordEnds();
    const ctx = await rebuildingContext(dir, [ends.plugin]);
    const manifest = path.join(dir, 'notebook/plugin.json');
    // esbuild's watcher polls; a change can take about two seconds to be seen.
    const nextBuild = async () => {
      const expected = createCompiler().build(manifest).bundle!.id;
      const result = await ends.waitFor((r) => bundleId(bundleOutput(r.outputFiles)) === expected, 30_000);
      return bundleId(bundleOutput(result.outputFiles));
    };
    try {
      await ctx.watch();
      const first = await nextBuild();
      const triage = path.join(dir, 'notebook/routines/notes/triage.md');
      writeFileSync(triage, readFileSync(triage, 'utf8') + '\nWhen unsure, choose reference.\n');
      const edited = await nextBuild();
      expect(edited).not.toBe(first);
      const tidy = path.join(dir, 'notebook/routines/notes/tidy.md');
      writeFileSync(tidy, '---\nname: notes.tidy\ndescription: Tidies a note.\n---\nKeep it tidy.\n');
      expect(await nextBuild()).not.toBe(edited);
      rmSync(tidy);
      expect(await nextBuild()).toBe(edited);
      // The package's files reach esbuild's watcher through onResolve (the load returns only
      // what is new): an edit of a code module must still be seen.
      const score = path.join(dir, 'notebook/routines/lib/score.js');
      writeFileSync(score, readFileSync(score, 'utf8') + '\nexport const version = 2;\n');
      expect(await nextBuild()).not.toBe(edited);
    } finally {
      await ctx.dispose();
    }
  });
});
