import { createHash } from 'node:crypto';
import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// From dist, as the CLI and the plugins run it (the bundle's entries; scripts/bundle-compiler.mjs):
// the worker thread is the built check-worker.js.
import { createCompiler, nodeHost, type CompilerHost } from '../packages/compiler/dist/index.js';
import { AnswerRecorder } from '../packages/compiler/dist/internal-cli.js';
import { EARLY_MIN_SOURCES, startCheckWorker } from '../packages/compiler/dist/internal-check-worker.js';
import { startEarlyBuild, takeEarlyWorker } from '../packages/cli/dist/early-build.js';
import { generatePackage } from '../bench/generate.mjs';
import { berrypack } from './support/cli.js';
import { agePastRacyWindow } from './support/stamps.js';
import { worthAThread } from '../packages/compiler/src/package/check-pool.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'berrypack-parallel-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

// Large enough that the worker has started before this thread has taken every file.
const N = 500;

/**
 * The bench package with a comment closing each frontmatter, which the fast frontmatter path
 * leaves to yaml: that path reads such a package about four times faster, and this thread then
 * took every file before the worker had started. Through yaml, N files still outlast its start.
 */
function generateSlowToCheck(dir: string, n: number): void {
  for (const file of generatePackage(dir, n)) {
    if (!file.endsWith('.md')) continue;
    const text = readFileSync(path.join(dir, file), 'utf8');
    const close = text.indexOf('\n---\n', 4);
    writeFileSync(path.join(dir, file), `${text.slice(0, close)}\n# read through yaml${text.slice(close)}`);
  }
}

function both() {
  const parallel = createCompiler({ parallel: true, store: path.join(root, 'store') });
  const serial = createCompiler({ parallel: false, store: path.join(root, 'store') });
  return { parallel, serial };
}

describe('prepare on two threads', () => {
  it('gives the same bundle, summary and diagnostics as a build on one thread', async () => {
    const dir = path.join(root, 'gen');
    generateSlowToCheck(dir, N);
    const manifest = path.join(dir, 'plugin.json');
    const { parallel, serial } = both();
    await parallel.prepare(manifest);
    await serial.prepare(manifest);
    const a = parallel.build(manifest);
    const b = serial.build(manifest);
    // The worker really took part, and the build parsed nothing the worker or prepare had not.
    expect(parallel.stats.sourcesFromWorker).toBeGreaterThan(0);
    expect(serial.stats.sourcesFromWorker).toBe(0);
    expect(parallel.stats.sourcesReused).toBe(N);
    expect(parallel.stats.sourcesParsed).toBe(N);
    expect(a.ok).toBe(true);
    expect(Buffer.from(a.bundle!.bytes).equals(Buffer.from(b.bundle!.bytes))).toBe(true);
    expect(a.summary).toEqual(b.summary);
    expect(a.diagnostics).toEqual(b.diagnostics);
    expect(a.files).toEqual(b.files);
  });

  it('keeps positions and messages of broken sources exact, and rebuilds from the primed caches', async () => {
    const dir = path.join(root, 'broken');
    generateSlowToCheck(dir, N);
    // Broken in the worker's half and in this thread's: a YAML error, a duplicate key, an unresolved include.
    // Discovery is sorted: `aa` comes first (this thread), `zz` last (by then the worker's).
    for (const where of ['aa/bad1', 'zz/bad2', 'zz/bad3']) {
      mkdirSync(path.join(dir, 'routines', path.dirname(where)), { recursive: true });
      writeFileSync(path.join(dir, `routines/${where}.md`), `---\nname: ${path.basename(where)}\ndescription: d\ndescription: e\ntitle: [\n---\nbody\n`);
    }
    // Code routines whose analysis reports (a missing module, a host global, a broken module),
    // on both threads: analyzed beside the check, their diagnostics must be the serial ones.
    writeFileSync(path.join(dir, 'routines/lib-broken.js'), 'export const x = ;\n');
    for (const where of ['aa/code-bad', 'zz/code-bad']) {
      const body = `import { nope } from '../missing.js';\nimport { x } from '../lib-broken.js';\nexport default function run() {\n  return { v: process.env.X, nope, x };\n}\n`;
      writeFileSync(path.join(dir, `routines/${where}.md`), `---\nname: ${where.replace('/', '-')}\ndescription: d\nlanguage: javascript\n---\n${body}`);
    }
    // Every model routine resolves to a diagnostic, so the worker's results are positioned too.
    for (let i = 0; i < N; i++) if (i % 10 !== 9) appendFileSync(path.join(dir, `routines/ns${i % 5}/model${i}.md`), '\n{{ nope }}\n');
    const manifest = path.join(dir, 'plugin.json');
    const { parallel, serial } = both();
    await parallel.prepare(manifest);
    const a = parallel.build(manifest);
    const b = serial.build(manifest);
    expect(parallel.stats.sourcesFromWorker).toBeGreaterThan(0);
    expect(a.ok).toBe(false);
    expect(a.diagnostics.filter((d) => d.code === 'BP2201')).toHaveLength(N - N / 10);
    expect(a.diagnostics.filter((d) => d.file.endsWith('code-bad.md')).length).toBeGreaterThanOrEqual(4);
    expect(a.diagnostics.some((d) => d.file.endsWith('lib-broken.js'))).toBe(true);
    expect(a.diagnostics).toEqual(b.diagnostics);
    expect(a.files).toEqual(b.files);
    // A second build of the primed compiler reads and parses nothing again.
    const before = parallel.stats;
    expect(parallel.build(manifest).diagnostics).toEqual(b.diagnostics);
    expect(parallel.stats.sourcesParsed).toBe(before.sourcesParsed);
  });

  it('serves the reads of the worker without a stat only to a build in the same turn; a later build sees edits made meanwhile', async () => {
    const dir = path.join(root, 'later');
    generateSlowToCheck(dir, N);
    const files = (readdirSync(dir, { recursive: true }) as string[]).filter((f) => path.basename(f).startsWith('model') && f.endsWith('.md'));
    // Older than a timestamp tick, so the worker's reads are kept (ReadCache's race check).
    await new Promise((resolve) => setTimeout(resolve, 250));
    const manifest = path.join(dir, 'plugin.json');
    const parallel = createCompiler({ parallel: true, store: path.join(root, 'store') });
    await parallel.prepare(manifest);
    expect(parallel.stats.sourcesFromWorker).toBeGreaterThan(0);
    // The next turn of the event loop: every primed read must be checked against the disk again.
    await new Promise((resolve) => setImmediate(resolve));
    for (const f of files) appendFileSync(path.join(dir, f), '\nedited later\n');
    const a = parallel.build(manifest);
    const b = both().serial.build(manifest);
    expect(a.ok).toBe(true);
    expect(Buffer.from(a.bundle!.bytes).equals(Buffer.from(b.bundle!.bytes))).toBe(true);
  });

  it('records every read of the build for the persistent cache when the host is a recorder (the CLI)', async () => {
    const dir = path.join(root, 'gen');
    const manifest = path.join(dir, 'plugin.json');
    const recorder = new AnswerRecorder();
    const parallel = createCompiler({ parallel: true, host: recorder, store: path.join(root, 'store') });
    await parallel.prepare(manifest);
    const a = parallel.build(manifest);
    const b = both().serial.build(manifest);
    expect(parallel.stats.sourcesFromWorker).toBeGreaterThan(0);
    expect(Buffer.from(a.bundle!.bytes).equals(Buffer.from(b.bundle!.bytes))).toBe(true);
    // Every source the worker checked was read again through the recorder, so a later process
    // that finds one of them changed does not reuse this build.
    const read = new Set(recorder.stored().flatMap((r) => (r.op === 'read' ? [r.path] : [])));
    const sources = a.files.filter((f) => f.endsWith('.md'));
    expect(sources).toHaveLength(N);
    for (const f of sources) expect(read.has(f), f).toBe(true);
  });

  it('a one-shot compiler (the CLI build) gives the same bundle on one thread and on two, hands prepare its work, and a second build sees an edit', async () => {
    const dir = path.join(root, 'one-shot');
    generateSlowToCheck(dir, N);
    // A source read within the racy window of its writing is not kept from prepare (read again).
    await agePastRacyWindow();
    const manifest = path.join(dir, 'plugin.json');
    const store = path.join(root, 'store');
    const expected = createCompiler({ store }).build(manifest);
    expect(expected.ok).toBe(true);
    const one = createCompiler({ oneShot: true, store });
    const two = createCompiler({ oneShot: true, parallel: true, store });
    await two.prepare(manifest);
    for (const built of [one.build(manifest), two.build(manifest)]) {
      expect(Buffer.from(built.bundle!.bytes).equals(Buffer.from(expected.bundle!.bytes))).toBe(true);
      expect(built.summary).toEqual(expected.summary);
      expect(built.diagnostics).toEqual(expected.diagnostics);
      expect(built.files).toEqual(expected.files);
    }
    // Without digests the build right after prepare still takes every source prepare checked.
    expect(two.stats.sourcesParsed).toBe(N);
    expect(two.stats.sourcesReused).toBe(N);
    // Nothing of resolution is kept for a later build: it resolves every routine again.
    const resolved = one.stats.routinesResolved;
    expect(resolved).toBeGreaterThan(0);
    expect(one.build(manifest).bundle!.id).toBe(expected.bundle!.id);
    expect(one.stats.routinesResolved).toBe(2 * resolved);
    expect(one.stats.routinesReused).toBe(0);
    // An edit (one broken source, one changed description): a later build of the same one-shot
    // compiler checks again and reports exactly what a fresh compiler does.
    const model = path.join(dir, 'routines/ns1/model1.md');
    writeFileSync(model, readFileSync(model, 'utf8').replace('description: ', 'description: edited '));
    writeFileSync(path.join(dir, 'routines/broken.md'), '---\nname: broken\ndescription: d\ndescription: e\n---\nbody\n');
    const fresh = createCompiler({ store }).build(manifest);
    expect(fresh.ok).toBe(false);
    expect(fresh.diagnostics.length).toBeGreaterThan(0);
    for (const compiler of [one, two]) {
      const again = compiler.build(manifest);
      expect(again.ok).toBe(false);
      expect(again.diagnostics).toEqual(fresh.diagnostics);
    }
    rmSync(path.join(dir, 'routines/broken.md'));
    const after = createCompiler({ store }).build(manifest);
    const rebuilt = one.build(manifest);
    expect(rebuilt.bundle!.id).not.toBe(expected.bundle!.id);
    expect(Buffer.from(rebuilt.bundle!.bytes).equals(Buffer.from(after.bundle!.bytes))).toBe(true);
  });

  it('berrypack build --parallel and --no-parallel give the same bundle', () => {
    const manifest = path.join(root, 'gen', 'plugin.json');
    const ids = [[], ['--parallel'], ['--no-parallel']].map((extra) => {
      const r = berrypack(['build', manifest, '--out-dir', path.join(root, 'cli-out'), '--no-cache', '--json', ...extra]);
      expect(r.code, r.stderr).toBe(0);
      return (JSON.parse(r.stdout) as { id: string }).id;
    });
    expect(ids[1]).toBe(ids[0]);
    expect(ids[2]).toBe(ids[0]);
    expect(berrypack(['build', '--help']).stdout).toContain('--parallel');
  });

  it('takes a thread only when asked (parallel: true), at any size', () => {
    expect(worthAThread(100_000)).toBe(false);
    expect(worthAThread(10, true)).toBe(true);
    expect(worthAThread(0, true)).toBe(false);
    expect(worthAThread(100_000, false)).toBe(false);
  });

  it('is a no-op for a host without stamps, and when turned off', async () => {
    const dir = path.join(root, 'gen2');
    generatePackage(dir, 100);
    const manifest = path.join(dir, 'plugin.json');
    const host: CompilerHost = { readFile: nodeHost.readFile, readdir: nodeHost.readdir, stat: nodeHost.stat, realpath: nodeHost.realpath };
    const plain = createCompiler({ parallel: true, host });
    await plain.prepare(manifest);
    expect(plain.stats.sourcesFromWorker).toBe(0);
    expect(plain.build(manifest).ok).toBe(true);
    const off = createCompiler({ parallel: false });
    await off.prepare(manifest);
    expect(off.stats.sourcesFromWorker).toBe(0);
    expect(off.stats.sourcesParsed).toBe(0);
  });
});

describe('a worker started before the compiler loads (the CLI: early-build.ts)', () => {
  const serialBuild = (manifest: string) => both().serial.build(manifest);

  it('lists the sources itself, checks with this thread from one counter, and gives the same bundle', async () => {
    const manifest = path.join(root, 'gen', 'plugin.json');
    expect(N).toBeGreaterThanOrEqual(EARLY_MIN_SOURCES);
    const worker = startCheckWorker(manifest);
    expect(worker).toBeDefined();
    const early = createCompiler({ checkWorker: worker!, store: path.join(root, 'store') });
    await early.prepare(manifest);
    const listing = await worker!.listing;
    expect(listing!.manifest).toBe(manifest);
    expect(listing!.files).toHaveLength(N);
    const a = early.build(manifest);
    const b = serialBuild(manifest);
    expect(early.stats.sourcesFromWorker).toBeGreaterThan(0);
    // Every source checked exactly once, by one thread or the other, before the build.
    expect(early.stats.sourcesParsed).toBe(N);
    expect(early.stats.sourcesReused).toBe(N);
    // Every code routine analyzed once, beside its check, on either thread; the build reused each.
    expect(early.stats.codeRoutinesAnalyzed).toBe(N / 10);
    expect(early.stats.codeRoutinesReused).toBe(N / 10);
    expect(a.files).toEqual(b.files);
    expect(Buffer.from(a.bundle!.bytes).equals(Buffer.from(b.bundle!.bytes))).toBe(true);
    expect(a.summary).toEqual(b.summary);
    expect(a.diagnostics).toEqual(b.diagnostics);
  });

  it("reads only: takes each file's digest for a build that keeps them, none for a one-shot build", async () => {
    const manifest = path.join(root, 'gen', 'plugin.json');
    for (const oneShot of [false, true]) {
      const worker = startCheckWorker(manifest, oneShot)!;
      await worker.finished();
      const entries = [];
      for (let batch = worker.take(); batch !== undefined; batch = worker.take())
        entries.push(...(JSON.parse(batch.json) as { file: string; digest?: string; code?: unknown }[]));
      worker.stop();
      expect(entries).toHaveLength(N);
      const digests = entries.filter((e) => e.digest !== undefined);
      expect(digests).toHaveLength(oneShot ? 0 : N);
      if (!oneShot) expect(digests[0]!.digest).toBe(createHash('sha256').update(readFileSync(digests[0]!.file)).digest('hex'));
      // Code routines are analyzed by the main thread only: the worker's isolate would compile the analyzer again.
      expect(entries.some((e) => e.code !== undefined)).toBe(false);
    }
  });

  it('only lists a package smaller than EARLY_MIN_SOURCES; this thread checks it all', async () => {
    const dir = path.join(root, 'small');
    generatePackage(dir, 100);
    const manifest = path.join(dir, 'plugin.json');
    const worker = startCheckWorker(manifest)!;
    const early = createCompiler({ checkWorker: worker!, store: path.join(root, 'store') });
    await early.prepare(manifest);
    expect((await worker.listing)!.files).toHaveLength(100);
    expect(early.stats.sourcesFromWorker).toBe(0);
    expect(early.stats.sourcesParsed).toBe(100);
    const a = early.build(manifest);
    expect(Buffer.from(a.bundle!.bytes).equals(Buffer.from(serialBuild(manifest).bundle!.bytes))).toBe(true);
  });

  it('started on another package (a list that differs), still gives exactly the serial result', async () => {
    const manifest = path.join(root, 'broken', 'plugin.json');
    const early = createCompiler({ checkWorker: startCheckWorker(path.join(root, 'gen', 'plugin.json'))!, store: path.join(root, 'store') });
    await early.prepare(manifest);
    const a = early.build(manifest);
    expect(a.ok).toBe(false);
    expect(a.diagnostics).toEqual(serialBuild(manifest).diagnostics);
  });

  it('is stopped unused when the compiler may not take a thread, and a missing manifest lists nothing', async () => {
    const manifest = path.join(root, 'gen', 'plugin.json');
    const off = createCompiler({ parallel: false, checkWorker: startCheckWorker(manifest)! });
    await off.prepare(manifest);
    expect(off.stats.sourcesFromWorker).toBe(0);
    expect(off.stats.sourcesParsed).toBe(0);
    expect(await startCheckWorker(path.join(root, 'nowhere', 'plugin.json'))!.listing).toBeUndefined();
  });

  it('the CLI starts it for `build MANIFEST --parallel` only, not by default, with --no-parallel, --help or a bad argument', () => {
    const dir = path.join(root, 'gen');
    const manifest = path.join(dir, 'plugin.json');
    for (const args of [
      [dir],
      ['--parallel', '--no-parallel', dir],
      ['--parallel', '--help'],
      ['--parallel', dir, 'extra'],
      ['--parallel', path.join(root, 'nowhere')],
      ['--parallel', '--bogus', dir],
    ]) {
      startEarlyBuild(args, process.cwd());
      expect(takeEarlyWorker(manifest), args.join(' ')).toBeUndefined();
    }
    startEarlyBuild(['--parallel', '--out-dir', path.join(root, 'cli-out'), dir], process.cwd());
    // Handed over once, and only for the manifest the build command resolved.
    expect(takeEarlyWorker(path.join(root, 'other', 'plugin.json'))).toBeUndefined();
    startEarlyBuild([dir, '--json', '--parallel'], root);
    const worker = takeEarlyWorker(manifest);
    expect(worker).toBeDefined();
    worker!.stop();
    expect(takeEarlyWorker(manifest)).toBeUndefined();
  });

  it('is taken by the build command it was started for, which writes the same bundle', async () => {
    const dir = path.join(root, 'gen');
    const manifest = path.join(dir, 'plugin.json');
    const args = [dir, '--out-dir', path.join(root, 'cli-early'), '--no-cache', '--json', '--parallel'];
    startEarlyBuild(args, process.cwd());
    const { run } = await import('../packages/cli/dist/index.js');
    const { processIo } = await import('../packages/cli/dist/io.js');
    let printed = '';
    const code = await run(['build', ...args], { ...processIo(), stdout: { write: (text: string) => void (printed += text) } });
    expect(code).toBe(0);
    expect(takeEarlyWorker(manifest)).toBeUndefined();
    expect((JSON.parse(printed) as { id: string }).id).toBe(serialBuild(manifest).bundle!.id);
  });
});
