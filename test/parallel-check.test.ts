import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// From dist, as the CLI and the plugins run it: the worker thread is the compiled check-worker.js.
import { createCompiler, nodeHost, type CompilerHost } from '../packages/compiler/dist/index.js';
import { AnswerRecorder } from '../packages/compiler/dist/internal-cli.js';
import { PARALLEL_MIN_SOURCES, worthAThread } from '../packages/compiler/dist/package/check-pool.js';
import { generatePackage } from '../bench/generate.mjs';
import { berrypack } from './support/cli.js';
import { SourceCache } from '../packages/compiler/src/package/cache/source-cache.js';
import { packChecked, unpackChecked } from '../packages/compiler/src/package/checked-wire.js';

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

describe('a checked source sent between threads (checked-wire.ts)', () => {
  it('arrives as the same data, for every routine, documentation and broken source of the fixtures', () => {
    const files = (readdirSync('fixtures', { recursive: true }) as string[]).filter((f) => f.endsWith('.md')).map((f) => path.join('fixtures', f));
    const sources = new SourceCache();
    const kinds = new Set<string>();
    for (const file of files) {
      const checked = sources.check(file, readFileSync(file));
      kinds.add(checked.status);
      const received = unpackChecked(JSON.parse(JSON.stringify(packChecked(checked))));
      // Strict: the same fields (undefined ones included), the line index a LineIndex again.
      expect(received, file).toStrictEqual(checked);
      if (checked.routine)
        expect(received.routine!.lines.position(checked.routine.bodyStart)).toEqual(checked.routine.lines.position(checked.routine.bodyStart));
    }
    expect([...kinds].sort()).toEqual(['documentation', 'invalid', 'source']);
  });
});

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
    expect(a.diagnostics).toEqual(b.diagnostics);
    // A second build of the primed compiler reads and parses nothing again.
    const before = parallel.stats;
    expect(parallel.build(manifest).diagnostics).toEqual(b.diagnostics);
    expect(parallel.stats.sourcesParsed).toBe(before.sourcesParsed);
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

  it('berrypack build --no-parallel gives the same bundle', () => {
    const manifest = path.join(root, 'gen', 'plugin.json');
    const ids = [[], ['--no-parallel']].map((extra) => {
      const r = berrypack(['build', manifest, '--out-dir', path.join(root, 'cli-out'), '--no-cache', '--json', ...extra]);
      expect(r.code, r.stderr).toBe(0);
      return (JSON.parse(r.stdout) as { id: string }).id;
    });
    expect(ids[1]).toBe(ids[0]);
    expect(berrypack(['build', '--help']).stdout).toContain('--no-parallel');
  });

  it('takes a thread by default only for a package large enough to pay for it', () => {
    expect(worthAThread(PARALLEL_MIN_SOURCES - 1)).toBe(false);
    expect(worthAThread(PARALLEL_MIN_SOURCES)).toBe(true);
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
