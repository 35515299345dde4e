import { existsSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createCompiler } from '../packages/compiler/src/package/compile-package.js';
import { readBundle } from '../packages/compiler/src/bundle/read-bundle.js';
import { canonicalJson } from '../packages/compiler/src/bundle/canonical-json.js';
import { digestOf } from '../packages/compiler/src/bundle/digest.js';
import { berrypack, ROOT } from './support/cli.js';
import { cleanup, copyFixtures, listFiles, recreate, tempDir } from './support/temp.js';

const dirs: string[] = [];
const track = (d: string) => (dirs.push(d), d);
afterAll(() => cleanup(...dirs));

function build(manifest: string) {
  const result = createCompiler().build(manifest);
  expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return result;
}

describe('BND-2 reproducible bundles', () => {
  it('gives identical bytes from two directories, files created in opposite orders', () => {
    const a = track(tempDir());
    const b = track(tempDir('berrypack-other-place-'));
    recreate(path.join(ROOT, 'fixtures/notebook'), path.join(a, 'notebook'), 'forward');
    recreate(path.join(ROOT, 'fixtures/notebook'), path.join(b, 'x', 'y', 'notebook'), 'reverse');
    const one = build(path.join(a, 'notebook/plugin.json')).bundle!;
    const two = build(path.join(b, 'x/y/notebook/plugin.json')).bundle!;
    expect(Buffer.from(two.bytes).equals(Buffer.from(one.bytes))).toBe(true);
    expect(one.fileName).toBe(`example.notebook.${one.id.slice(7, 19)}.berry.json`);
    expect(one.text).not.toContain(a);
    expect(one.text).not.toContain(process.env.USER ?? 'no-user-name');
  });
  it('gives identical bytes for a Windows checkout (CRLF and a BOM in every text source)', () => {
    const a = track(tempDir());
    const b = track(tempDir());
    recreate(path.join(ROOT, 'fixtures/notebook'), a, 'forward');
    recreate(path.join(ROOT, 'fixtures/notebook'), b, 'forward', (rel, bytes) =>
      /\.(md|js|json)$/.test(rel) ? Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(bytes.toString('utf8').replace(/\n/g, '\r\n'))]) : bytes,
    );
    expect(build(path.join(b, 'plugin.json')).bundle!.id).toBe(build(path.join(a, 'plugin.json')).bundle!.id);
  });
  it('keeps resources byte-exact as blobs and imports embedded, identically from the CLI', () => {
    const dir = track(copyFixtures(['imports']));
    const out = path.join(dir, 'out');
    const r = berrypack(['build', path.join(dir, 'imports/app'), '--out-dir', out, '--json']);
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout) as { ok: boolean; id: string; file: string; diagnostics: unknown[] };
    const inProcess = build(path.join(dir, 'imports/app/plugin.json')).bundle!;
    expect(json).toEqual({ ok: true, id: inProcess.id, file: path.join(out, inProcess.fileName), diagnostics: [] });
    expect(readFileSync(json.file).equals(Buffer.from(inProcess.bytes))).toBe(true);
    const banner = readFileSync(path.join(ROOT, 'fixtures/imports/app/banner.txt'));
    const blobs = listFiles(path.join(out, 'blobs'));
    expect(blobs).toHaveLength(1);
    expect(readFileSync(path.join(out, 'blobs', blobs[0]!)).equals(banner)).toBe(true);
    const loaded = readBundle(new Uint8Array(readFileSync(json.file)), { readBlob: (hex) => readFileSync(path.join(out, 'blobs/sha256', hex)) });
    expect(loaded.ok).toBe(true);
  });
});

describe('MAN-5 imports', () => {
  it('compiles a manifest import recursively and embeds its content with its id', () => {
    const dir = track(copyFixtures(['imports']));
    const lib = build(path.join(dir, 'imports/lib/plugin.json')).bundle!;
    const app = build(path.join(dir, 'imports/app/plugin.json')).bundle!;
    const read = readBundle(app.bytes);
    if (!read.ok) throw new Error(read.error.message);
    const content = read.bundle.content as {
      imports: { name: string; id: string; format: string; export?: string }[];
      sources: Record<string, { template: unknown[]; tools: unknown[] }>;
    };
    expect(content.imports.map((i) => [i.name, i.id, i.format, i.export])).toEqual([
      ['shout', lib.id, 'berrypack/2', 'text.shout'],
      ['tone', lib.id, 'berrypack/2', 'text.tone'],
      ['textlib', lib.id, 'berrypack/2', undefined],
    ]);
    // Embedded as stored, so its id still names it.
    const stored = read.bundle.stored as { imports: { content: unknown }[] };
    expect(digestOf(canonicalJson(stored.imports[0]!.content))).toBe(lib.id);
    expect(content.sources.greet!.template[0]).toEqual({ text: 'Be friendly and direct. Prefer short sentences.\n\n\nGreet ' });
    expect(content.sources.greet!.tools).toEqual([{ key: 'shout', options: {}, target: { kind: 'import', alias: 'shout' } }]);
  });
  it('accepts the same package imported as a built bundle and as retained content from a store', () => {
    const dir = track(copyFixtures(['imports']));
    const libOut = path.join(dir, 'lib-dist');
    expect(berrypack(['build', path.join(dir, 'imports/lib'), '--out-dir', libOut]).code).toBe(0);
    const libBundle = listFiles(libOut).find((f) => f.endsWith('.berry.json'))!;
    const manifest = path.join(dir, 'imports/app/plugin.json');
    const json = JSON.parse(readFileSync(manifest, 'utf8'));
    json.extensions['ai.strawberry.berry'].imports = [
      { name: 'shout', bundle: `../../lib-dist/${libBundle}`, export: 'text.shout' },
      { name: 'tone', bundle: `../../lib-dist/${libBundle}`, export: 'text.tone' },
      { name: 'textlib', bundle: `../../lib-dist/${libBundle}` },
    ];
    writeFileSync(manifest, JSON.stringify(json));
    const viaBundle = build(manifest).bundle!;
    const id = libBundle.match(/\.([0-9a-f]{12})\.berry\.json$/)![1];
    const store = path.join(dir, 'store');
    const libId = (JSON.parse(readFileSync(path.join(libOut, libBundle), 'utf8')) as { id: string }).id;
    expect(libId.slice(7, 19)).toBe(id);
    json.extensions['ai.strawberry.berry'].imports = json.extensions['ai.strawberry.berry'].imports.map((i: { name: string; export?: string }) => ({
      ...i,
      bundle: undefined,
      root: libId,
    }));
    writeFileSync(manifest, JSON.stringify(json));
    const missing = createCompiler({ store }).build(manifest);
    expect(missing.ok).toBe(false);
    expect(missing.diagnostics.map((d) => d.code)).toContain('BP2093');
    expect(berrypack(['build', path.join(dir, 'imports/lib'), '--out-dir', store]).code).toBe(0);
    renameSync(path.join(store, libBundle), path.join(store, `${libId}.berry.json`));
    const viaRoot = createCompiler({ store }).build(manifest);
    expect(viaRoot.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const importsOf = (text: string) =>
      (JSON.parse(text) as { content: { imports: { id: string; content: unknown }[] } }).content.imports.map((i) => [i.id, i.content]);
    expect(importsOf(viaRoot.bundle!.text)).toEqual(importsOf(viaBundle.text));
  });
  it('refuses an import cycle, naming it', () => {
    const dir = track(copyFixtures(['imports']));
    const result = createCompiler().build(path.join(dir, 'imports/cycle-a/plugin.json'));
    expect(result.ok).toBe(false);
    const cycle = result.diagnostics.find((d) => d.code === 'BP2090')!;
    expect(cycle.message).toContain('cycle-a/plugin.json → cycle-b/plugin.json → cycle-a/plugin.json');
    expect(cycle.rule).toBe('MAN-5');
  });
});

describe('incremental rebuilds', () => {
  it('re-parses only the edited file and re-serializes only what changed', () => {
    const dir = track(copyFixtures(['notebook']));
    const manifest = path.join(dir, 'notebook/plugin.json');
    const compiler = createCompiler();
    const first = compiler.build(manifest);
    const before = compiler.stats;
    expect(before.sourcesParsed).toBe(8);
    const file = path.join(dir, 'notebook/routines/notes/triage.md');
    writeFileSync(file, readFileSync(file, 'utf8').replace('Classify the note.', 'Classify the note carefully.'));
    const second = compiler.build(manifest);
    const after = compiler.stats;
    expect(second.bundle!.id).not.toBe(first.bundle!.id);
    expect(after.sourcesParsed - before.sourcesParsed).toBe(1);
    expect(after.sourcesReused - before.sourcesReused).toBe(7);
    // One routine entry and its file entry changed; every other entry was reused: a build
    // without an edit reuses exactly one entry more, and serializes nothing.
    expect(after.fragmentsSerialized - before.fragmentsSerialized).toBe(2);
    compiler.build(manifest);
    const unchanged = compiler.stats;
    expect(unchanged.fragmentsSerialized).toBe(after.fragmentsSerialized);
    expect(unchanged.fragmentsReused - after.fragmentsReused).toBe(after.fragmentsReused - before.fragmentsReused + 1);
    // The code routines' analyses (and so their modules) were reused whole; only the edited routine was resolved again.
    expect(after.codeRoutinesReused - before.codeRoutinesReused).toBe(before.codeRoutinesAnalyzed);
    expect(after.codeRoutinesAnalyzed).toBe(before.codeRoutinesAnalyzed);
    expect(after.modulesAnalyzed).toBe(before.modulesAnalyzed);
    expect(after.routinesResolved - before.routinesResolved).toBe(1);
    expect(after.routinesReused - before.routinesReused).toBe(before.routinesResolved - 1);
  });
  it('reports every file and directory it read, so watchers see new and deleted sources', () => {
    const dir = track(copyFixtures(['notebook']));
    const result = createCompiler().build(path.join(dir, 'notebook/plugin.json'));
    const rel = (p: string) => path.relative(path.join(dir, 'notebook'), p).split(path.sep).join('/');
    expect(result.files.map(rel)).toEqual(expect.arrayContaining(['plugin.json', 'routines/converse.md', 'routines/lib/score.js', 'routines/README.md']));
    expect(result.directories.map(rel)).toEqual(expect.arrayContaining(['routines', 'routines/notes', 'routines/search', 'routines/lib']));
  });

  it('lists plugin.json, the sources and their directories before a build (sourcePaths), without a stale listing after', () => {
    const dir = track(copyFixtures(['notebook']));
    const manifest = path.join(dir, 'notebook/plugin.json');
    const compiler = createCompiler();
    const listed = compiler.sourcePaths(manifest)!;
    const rel = (p: string) => path.relative(path.join(dir, 'notebook'), p).split(path.sep).join('/');
    expect(listed.files.map(rel)).toEqual(expect.arrayContaining(['plugin.json', 'routines/converse.md', 'routines/notes/triage.md', 'routines/README.md']));
    // Code modules and resources are found by the build itself.
    expect(listed.files.map(rel)).not.toContain('routines/lib/score.js');
    expect(listed.directories.map(rel)).toEqual(expect.arrayContaining(['routines', 'routines/notes', 'routines/lib']));
    // A source added after the listing is still built: the build checks the listing again.
    writeFileSync(path.join(dir, 'notebook/routines/notes/added.md'), '---\nname: notes.added\ndescription: Added late.\n---\nHello.\n');
    const built = compiler.build(manifest);
    expect(built.files).toEqual(expect.arrayContaining(listed.files));
    expect(built.directories).toEqual(expect.arrayContaining(listed.directories));
    expect(built.files.map(rel)).toContain('routines/notes/added.md');
    expect(built.bundle!.id).toBe(createCompiler().build(manifest).bundle!.id);
    // Nothing to list, never a throw: a missing manifest, one that is not JSON.
    expect(compiler.sourcePaths(path.join(dir, 'nowhere/plugin.json'))).toBeUndefined();
    writeFileSync(path.join(dir, 'notebook/plugin.json'), '{ not json');
    expect(compiler.sourcePaths(manifest)).toBeUndefined();
  });
});

describe('berrypack build, inspect and verify', () => {
  it('writes nothing and exits 1 when the package has errors', () => {
    const dir = track(copyFixtures(['notebook']));
    const file = path.join(dir, 'notebook/routines/notes/count.md');
    writeFileSync(file, readFileSync(file, 'utf8').replace('export default function count', 'export function count'));
    const out = path.join(dir, 'out');
    const r = berrypack(['build', path.join(dir, 'notebook'), '--out-dir', out, '--json']);
    expect(r.code).toBe(1);
    const json = JSON.parse(r.stdout) as { ok: boolean; diagnostics: { code: string; rule: string }[] };
    expect(json.ok).toBe(false);
    expect(json.diagnostics.filter((d) => d.code !== 'BP1003').map((d) => `${d.code} ${d.rule}`)).toEqual(['BP3010 CODE-2']);
    expect(existsSync(out)).toBe(false);
  });
  it('inspects a bundle and refuses a tampered one', () => {
    const dir = track(tempDir());
    expect(berrypack(['build', 'fixtures/notebook', '--out-dir', dir]).code).toBe(0);
    const file = path.join(
      dir,
      listFiles(dir).find((f) => f.endsWith('.berry.json'))!,
    );
    const r = berrypack(['inspect', file, '--json']);
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout) as { name: string; format: string; bytes: number; sources: Record<string, string[]>; code: { total: number } };
    expect(json.name).toBe('example.notebook');
    expect(json.format).toBe('berrypack/2');
    expect(json.bytes).toBe(readFileSync(file).length);
    expect(json.sources).toEqual({
      model: ['converse', 'notes.compose', 'notes.triage', 'search.answer'],
      code: ['notes.count', 'search.rank'],
      instructions: ['notes.style'],
    });
    expect(json.code.total).toBe(744);
    const text = berrypack(['inspect', file]);
    expect(text.stdout).toContain('  notebook → converse   Notebook\n');
    expect(text.stdout).toContain('code size: 744 of 1,048,576 bytes');
    expect(text.stdout).toContain(`\nberrypack/2, ${readFileSync(file).length.toLocaleString('en-US')} bytes\n`);
    writeFileSync(file, readFileSync(file, 'utf8').replace('Classify the note', 'Classify the nose'));
    const bad = berrypack(['inspect', file]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/does not verify: Unexpected id sha256-[0-9a-f]{64}, expected sha256-[0-9a-f]{64} \(the content's digest\).*\(BP4009 BND-4\)/);
    unlinkSync(file);
  });
  it('verify builds twice in different places and exits 0 when identical', () => {
    const r = berrypack(['verify', 'fixtures/imports/app', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, identical: true });
  });
});

describe('BND-3 what a bundle records', () => {
  it('records derived requirements, agents and exports, resolved references and the code account', () => {
    const dir = track(tempDir());
    writeFileSync(
      path.join(dir, 'plugin.json'),
      JSON.stringify({
        $schema: 'https://agent-plugins.org/schemas/1.0.0/plugin.schema.json',
        name: 'example.records',
        version: '1',
        extensions: { 'ai.strawberry.berry': { agents: { main: { title: 'Main', description: 'Main agent.', entry: 'ask' } }, requires: ['files.read'] } },
      }),
    );
    writeFileSync(
      path.join(dir, 'ask.md'),
      '---\nname: ask\ndescription: Asks.\nmodel:\n  select:\n    operation: generation\ntools:\n  - files.read\n  - tally\n---\nGoal: {{ $.parent.input.goal }} for {{ $.user.name }} in {{ env.REGION }}.\n',
    );
    writeFileSync(path.join(dir, 'tally.md'), '---\nname: tally\ndescription: Tallies.\nlanguage: javascript\n---\nexport default (input) => input;\n');
    const { bundle } = build(path.join(dir, 'plugin.json'));
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the bundle's content, read into like any JSON
    const content = (JSON.parse(bundle!.text) as { content: Record<string, any> }).content;
    expect(content.requirements).toEqual({
      calls: [],
      env: ['REGION'],
      models: [{ routine: 'ask', select: { operation: 'generation' } }],
      readers: ['runtime.context.read', 'runtime.user.profile.read'],
      tools: ['files.read'],
      ui: false,
    });
    expect(content.agents).toEqual({ main: { description: 'Main agent.', entry: 'ask', title: 'Main' } });
    expect(content.exports).toEqual([{ entry: true, name: 'ask', target: { kind: 'source', name: 'ask' } }]);
    expect(content.sources.ask.tools).toEqual([
      { key: 'files.read', options: {}, target: { kind: 'external', name: 'files.read' } },
      { key: 'tally', options: {}, target: { kind: 'source', name: 'tally' } },
    ]);
    expect(content.sources.ask.template).toEqual([
      { text: 'Goal: ' },
      { path: '$.parent.input.goal' },
      { text: ' for ' },
      { path: '$.user.name' },
      { text: ' in ' },
      { env: 'REGION' },
      { text: '.\n' },
    ]);
    expect(content.code).toEqual({ entries: [{ path: 'tally.md', size: 33 }], limit: 1048576, total: 33 });
    expect(content.sources.ask.visibility).toBe('public');
    expect(content.sources.tally.visibility).toBe('private');
  });
});

describe('MTH-16 methods in a package', () => {
  it('compiles method documents found among the sources into the bundle, with their version ids', () => {
    const dir = track(copyFixtures(['notebook', 'methods']));
    const method = readFileSync(path.join(dir, 'methods/weekly-report.method.yaml'));
    writeFileSync(path.join(dir, 'notebook/routines/weekly-report.method.yaml'), method);
    const { bundle } = build(path.join(dir, 'notebook/plugin.json'));
    const content = (JSON.parse(bundle!.text) as { content: { methods: Record<string, { path: string; versionId: string }>; files: { path: string }[] } })
      .content;
    const [name] = Object.keys(content.methods);
    expect(content.methods[name!]!.path).toBe('routines/weekly-report.method.yaml');
    expect(content.methods[name!]!.versionId).toMatch(/^sha256-[0-9a-f]{64}$/);
    expect(content.files.map((f) => f.path)).toContain('routines/weekly-report.method.yaml');
    writeFileSync(path.join(dir, 'notebook/routines/broken.method.yaml'), 'format: method/2\nname: broken\n');
    const failed = createCompiler().build(path.join(dir, 'notebook/plugin.json'));
    expect(failed.ok).toBe(false);
    expect(failed.diagnostics.filter((d) => d.severity === 'error').every((d) => d.rule.startsWith('MTH-'))).toBe(true);
  });
});
