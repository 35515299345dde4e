import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCompiler, loadBundleFile } from '@berrypack/compiler';
import { createMemoryJournal, createRuntime, loadBundle, readJournal } from '@berrypack/runtime';
import { BIN } from '../support/cli.js';
import { FUZZ_SEED, recordFigure, SOAK } from '../support/fuzz.js';
import { cleanup, tempDir } from '../support/temp.js';

/**
 * Crash safety. `berrypack build` killed (SIGKILL) at seeded points, half of them aimed at the
 * moment it starts writing, leaves in the out dir only complete, verifying bundles and blobs,
 * plus possibly dot-prefixed `.tmp` files of the write it was killed in (docs/security.md:
 * acceptable, never named like a bundle, replaced by the next build's own). A `berrypack run
 * --journal` killed mid-run leaves a journal that reads (a torn last line is dropped:
 * packages/runtime/test/journal.test.ts covers that line by line) and replays to a clear
 * answer, never a crash: `incomplete-recording` when the kill left no `end` entry (never
 * `non-determinism`: the chain is deterministic), a match otherwise. Method runs killed mid-step: test/method-kill.test.ts.
 */

const SCHEMA = 'https://agent-plugins.org/schemas/1.0.0/plugin.schema.json';
const BUILD_KILLS = SOAK ? 150 : 6;
const RUN_KILLS = SOAK ? 40 : 3;
const root = tempDir('berrypack-crash-');
afterAll(() => cleanup(root));

const TEMPORARY = /^\.[^/]+\.\d+\.[0-9a-f]{12}\.tmp$/;
const BUNDLE = /^[a-z0-9.-]+\.[0-9a-f]{12}\.berry\.json$/;

function writeTree(dir: string, files: Record<string, string | Uint8Array>): void {
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), content);
  }
}

/** Spawns the CLI and SIGKILLs it `delayMs` after `start` (spawn, or when `watch` first exists); resolves with whether it had already exited. */
async function killAt(args: string[], cwd: string, delayMs: number, watch?: string): Promise<{ finished: boolean }> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, stdio: 'ignore', env: { ...process.env, NO_COLOR: '1' } });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let finished = false;
  void exited.then(() => (finished = true));
  if (watch !== undefined) {
    const deadline = Date.now() + 30_000;
    while (!finished && !existsSync(watch) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 1));
  }
  await new Promise((r) => setTimeout(r, delayMs));
  const was = finished;
  child.kill('SIGKILL');
  await exited;
  return { finished: was };
}

interface OutState {
  bundles: number;
  blobs: number;
  temporaries: string[];
}

/** Everything in an out dir is a complete bundle that verifies, a complete blob, or a leftover temporary file. */
function inspectOut(out: string): OutState {
  const state: OutState = { bundles: 0, blobs: 0, temporaries: [] };
  if (!existsSync(out)) return state;
  for (const name of readdirSync(out)) {
    const file = path.join(out, name);
    if (name === 'blobs') continue;
    if (TEMPORARY.test(name)) {
      expect(name.endsWith('.berry.json')).toBe(false);
      state.temporaries.push(name);
      continue;
    }
    expect(name, `unexpected entry ${name}`).toMatch(BUNDLE);
    // Verifies the bundle and every blob it names, read from blobs/sha256/ beside it.
    const loaded = loadBundleFile(file);
    expect(loaded.ok, loaded.ok ? name : `${name}: ${loaded.error.message}`).toBe(true);
    if (loaded.ok) expect(name).toContain(loaded.bundle.id.slice(7, 19));
    state.bundles++;
  }
  const blobDir = path.join(out, 'blobs', 'sha256');
  if (existsSync(blobDir)) {
    for (const name of readdirSync(blobDir)) {
      if (TEMPORARY.test(name)) {
        state.temporaries.push(`blobs/sha256/${name}`);
        continue;
      }
      expect(name).toMatch(/^[0-9a-f]{64}$/);
      expect(
        createHash('sha256')
          .update(readFileSync(path.join(blobDir, name)))
          .digest('hex'),
        `blob ${name} is complete`,
      ).toBe(name);
      state.blobs++;
    }
  }
  return state;
}

describe('a build killed at random points', () => {
  const pkg = path.join(root, 'pkg');
  const RESOURCES = 40;
  let fullMs = 0;

  beforeAll(() => {
    // Many blobs, each written and fsync'ed on its own, widen the window in which a kill lands mid-write.
    const files: Record<string, string | Uint8Array> = {
      'plugin.json': JSON.stringify({
        $schema: SCHEMA,
        name: 'crash.pkg',
        version: '1',
        extensions: {
          'ai.strawberry.berry': {
            exports: ['count'],
            resources: Array.from({ length: RESOURCES }, (_v, i) => ({
              uri: `asset://crash/${i}`,
              mimeType: 'application/octet-stream',
              path: `assets/${i}.bin`,
            })),
          },
        },
      }),
      'count.md': '---\nname: count\ndescription: Counts.\nlanguage: javascript\n---\nexport default (input) => ({ n: 1 });\n',
    };
    for (let i = 0; i < RESOURCES; i++) files[`assets/${i}.bin`] = createHash('sha512').update(`blob ${i}`).digest().toString('hex').repeat(256);
    writeTree(pkg, files);
    const started = performance.now();
    const r = spawnSync(process.execPath, [BIN, 'build', 'plugin.json', '--out-dir', path.join(root, 'reference'), '--json'], { cwd: pkg, encoding: 'utf8' });
    fullMs = performance.now() - started;
    expect(r.status, r.stderr).toBe(0);
    expect(inspectOut(path.join(root, 'reference'))).toMatchObject({ bundles: 1, blobs: RESOURCES, temporaries: [] });
  });

  it(
    `leaves only complete, verifying bundles and blobs after ${BUILD_KILLS * 2} kills`,
    async () => {
      const shared = path.join(root, 'out');
      // Half the kills anywhere in the run, half within a few ms of the out dir appearing (the
      // writes take a few ms in all). Each kill has an out dir of its own, so every partial
      // state shows, and one shared dir takes them all in turn, as repeated builds would.
      const points = fc.sample(fc.tuple(fc.boolean(), fc.double({ min: 0, max: 1, noNaN: true })), { seed: FUZZ_SEED, numRuns: BUILD_KILLS });
      let finished = 0;
      let interrupted = 0;
      const seen = new Map<string, number>();
      for (const [k, [aimed, at]] of points.entries()) {
        const out = path.join(root, `out-${k}`);
        const result = aimed
          ? await killAt(['build', 'plugin.json', '--out-dir', out], pkg, Math.floor(at * 8), out)
          : await killAt(['build', 'plugin.json', '--out-dir', out], pkg, Math.floor(at * fullMs * 1.1));
        if (result.finished) finished++;
        else interrupted++;
        const state = inspectOut(out);
        const key = `${state.bundles} bundle(s), ${state.blobs} blob(s), ${state.temporaries.length} temporary file(s)`;
        seen.set(key, (seen.get(key) ?? 0) + 1);
        // A bundle never appears before its blobs.
        if (state.bundles > 0) expect(state.blobs).toBe(RESOURCES);
        if ((await killAt(['build', 'plugin.json', '--out-dir', shared], pkg, Math.floor(at * 8), shared)).finished) finished++;
        else interrupted++;
        inspectOut(shared);
        cleanup(out);
      }
      const out = shared;
      // A build after all of that writes the bundle; what the kills left behind does not get in its way.
      const r = spawnSync(process.execPath, [BIN, 'build', 'plugin.json', '--out-dir', out, '--json'], { cwd: pkg, encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      const final = inspectOut(out);
      expect(final).toMatchObject({ bundles: 1, blobs: RESOURCES });
      expect(interrupted).toBeGreaterThan(0);
      recordFigure('build-kills', {
        kills: BUILD_KILLS * 2,
        interrupted,
        finishedBeforeKill: finished,
        leftoverTemporaries: final.temporaries.length,
        states: Object.fromEntries(seen),
      });
    },
    SOAK ? 1_800_000 : 60_000,
  );
});

describe('a run killed while it writes its journal', () => {
  const pkg = path.join(root, 'agent');
  let fullMs = 0;

  beforeAll(() => {
    writeTree(pkg, {
      'plugin.json': JSON.stringify({ $schema: SCHEMA, name: 'crash.agent', version: '1', extensions: { 'ai.strawberry.berry': { exports: ['chain'] } } }),
      'chain.md':
        '---\nname: chain\ndescription: Calls its leaf many times.\nlanguage: javascript\ntools:\n  - leaf\n---\nexport default async (input, tools) => {\n  let total = 0;\n  for (let i = 0; i < 150; i++) total += await tools.leaf(i);\n  return total;\n};\n',
      'leaf.md': '---\nname: leaf\ndescription: Echoes.\nlanguage: javascript\n---\nexport default (input) => input;\n',
    });
    const journal = path.join(root, 'full.jsonl');
    const started = performance.now();
    const r = spawnSync(process.execPath, [BIN, 'run', 'plugin.json', '--export', 'chain', '--journal', journal, '--json'], { cwd: pkg, encoding: 'utf8' });
    fullMs = performance.now() - started;
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'completed', output: 11_175 });
  });

  it(
    `leaves a journal that reads and replays to a clear answer after ${RUN_KILLS} kills`,
    async () => {
      const built = createCompiler({ store: path.join(root, 'store') }).build(path.join(pkg, 'plugin.json'));
      const bundle = await loadBundle(built.bundle!.bytes);
      const runtime = createRuntime();
      const delays = fc.sample(fc.double({ min: 0.3, max: 0.95, noNaN: true }), { seed: FUZZ_SEED + 1, numRuns: RUN_KILLS });
      const answers = new Map<string, number>();
      let torn = 0;
      for (const [k, fraction] of delays.entries()) {
        const journal = path.join(root, `killed-${k}.jsonl`);
        await killAt(['run', 'plugin.json', '--export', 'chain', '--journal', journal], pkg, Math.floor(fraction * fullMs));
        if (!existsSync(journal)) {
          answers.set('no journal yet', (answers.get('no journal yet') ?? 0) + 1);
          continue;
        }
        const text = readFileSync(journal, 'utf8');
        if (text.length > 0 && !text.endsWith('\n')) torn++;
        const entries = readJournal(journal);
        for (const e of entries) expect(e).toMatchObject({ type: expect.any(String), executionId: expect.stringMatching(/^exec-/) });
        if (!entries.some((e) => e.type === 'execution')) continue;
        const report = await runtime.replay(bundle, entries);
        // A run cut short replays to its last recorded outcome and no further.
        const answer = report.matches ? 'matches' : (report.error?.code ?? report.divergence?.message.split(' ')[0] ?? 'diverged');
        answers.set(answer, (answers.get(answer) ?? 0) + 1);
        // The chain is deterministic: a journal without its `end` is incomplete, never divergent.
        expect(answer, report.error?.message).toBe(entries.some((e) => e.type === 'end') ? 'matches' : 'incomplete-recording');
        expect(statSync(journal).size).toBe(text.length);
      }
      await runtime.close();
      // The CLI on the last killed journal: exit 0 or 1, one JSON object, no stack trace.
      const last = path.join(root, `killed-${RUN_KILLS - 1}.jsonl`);
      if (existsSync(last)) {
        const r = spawnSync(process.execPath, [BIN, 'replay', last, '--json'], { cwd: pkg, encoding: 'utf8' });
        expect([0, 1]).toContain(r.status);
        expect(r.stderr).not.toMatch(/\n\s+at /);
        expect(JSON.parse(r.stdout)).toHaveProperty('matches');
      }
      recordFigure('run-kills', { kills: RUN_KILLS, tornLastLines: torn, replays: Object.fromEntries(answers) });
    },
    SOAK ? 1_800_000 : 60_000,
  );

  // Was a bug: a journal cut short by a crash (no `end` entry) replayed into the calls the run
  // never got to record, and that was reported as `non-determinism` ("expected no call at that
  // position (the recording has none)"), which sent the reader looking for nondeterministic
  // code. The recording is incomplete, not divergent: every kill above ends so.
  it('reports a journal cut short by a crash as incomplete, not as non-determinism', async () => {
    const built = createCompiler({ store: path.join(root, 'store') }).build(path.join(pkg, 'plugin.json'));
    const bundle = await loadBundle(built.bundle!.bytes);
    const journal = createMemoryJournal();
    const runtime = createRuntime({ journal });
    const { executionId } = await runtime.start(runtime.prepare(bundle), { export: 'chain' });
    expect((await runtime.result(executionId)).status).toBe('completed');
    // What a kill right after the outcome of the 20th leaf call leaves behind.
    const cut = journal.entries.findIndex((e) => e.type === 'outcome' && e.id === 'c1.20');
    const entries = journal.entries.slice(0, cut + 1);
    const report = await runtime.replay(bundle, entries);
    await runtime.close();
    expect(report.matches).toBe(false);
    expect(report.error?.code).not.toBe('non-determinism');
    expect(report).toMatchObject({
      status: 'failed',
      error: { code: 'incomplete-recording' },
      incomplete: { endsAfter: cut + 1, last: { type: 'outcome', call: 'c1.20' }, matched: true, beyond: { at: 'c1.21', kind: 'tool' } },
    });
    expect(report).not.toHaveProperty('divergence');
    expect(report.error!.message).toContain(`ends after entry ${cut + 1} (the outcome of call c1.20) without an \`end\` entry`);
    expect(report.error!.message).toContain('every recorded call up to there matched');

    // The CLI on the same journal: exit 1, the report as JSON, and a text line that says so.
    const file = path.join(root, 'cut.jsonl');
    writeFileSync(file, entries.map((e) => `${JSON.stringify(e)}\n`).join(''));
    const r = spawnSync(process.execPath, [BIN, 'replay', file, '--bundle', 'plugin.json', '--json'], { cwd: pkg, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ matches: false, error: { code: 'incomplete-recording' }, incomplete: { endsAfter: cut + 1, matched: true } });
    const text = spawnSync(process.execPath, [BIN, 'replay', file, '--bundle', 'plugin.json'], {
      cwd: pkg,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
    });
    expect(text.status, text.stderr).toBe(1);
    expect(text.stdout).toMatch(
      new RegExp(
        `^✖ incomplete-recording: Missing the end of the recording of exec-[0-9a-f-]+: it ends after entry ${cut + 1} \\(the outcome of call c1\\.20\\)`,
      ),
    );
  });
});
