import { appendFileSync, cpSync, existsSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { berrypack, ROOT } from './support/cli.js';
import { cleanup, tempDir } from './support/temp.js';

/**
 * `berrypack build` serves a build whose every input is unchanged from the persistent cache in
 * node_modules/.cache/berrypack/builds under the working directory: the same bytes and messages
 * as compiling, and never a stale bundle.
 */
const root = tempDir('berrypack-build-cache-');
afterAll(() => cleanup(root));

let count = 0;
function project(): { cwd: string; manifest: string; out: string } {
  const cwd = path.join(root, `p${count++}`);
  cpSync(path.join(ROOT, 'fixtures/notebook'), path.join(cwd, 'notebook'), { recursive: true });
  // Older than any timestamp tick, so the recorded stamps are trusted.
  const past = new Date(Date.now() - 10_000);
  for (const f of readdirSync(path.join(cwd, 'notebook'), { recursive: true, encoding: 'utf8' })) utimesSync(path.join(cwd, 'notebook', f), past, past);
  return { cwd, manifest: 'notebook/plugin.json', out: path.join(cwd, 'dist') };
}

/** A text build (it says `(from the cache)` when served from there), with the id it printed. */
function build(cwd: string, ...extra: string[]) {
  const r = berrypack(['build', 'notebook/plugin.json', ...extra], { cwd });
  return { ...r, id: /\bid (sha256-[0-9a-f]{64})/.exec(r.stdout)?.[1], cached: r.stdout.includes('(from the cache)') };
}

function buildJson(cwd: string, ...extra: string[]) {
  return JSON.parse(berrypack(['build', 'notebook/plugin.json', '--json', ...extra], { cwd }).stdout) as {
    ok: boolean;
    id?: string;
    diagnostics: { code: string }[];
  };
}

function bundleBytes(out: string, id: string): Buffer {
  const name = readdirSync(out).find((f) => f.endsWith(`.${id.slice(7, 19)}.berry.json`))!;
  return readFileSync(path.join(out, name));
}

describe('the persistent build cache', () => {
  it('serves an unchanged package from the cache with the same bytes, and compiles again after an edit', () => {
    const { cwd, out } = project();
    const first = build(cwd);
    expect(first.code).toBe(0);
    expect(first.cached).toBe(false);
    expect(existsSync(path.join(cwd, 'node_modules/.cache/berrypack/builds/records'))).toBe(true);
    const bytes = bundleBytes(out, first.id!);

    const second = build(cwd);
    expect(second.code).toBe(0);
    expect(second.cached).toBe(true);
    expect(second.id).toBe(first.id);
    expect(bundleBytes(out, second.id!).equals(bytes)).toBe(true);
    // --json keeps the shape of CONTRACTS.md whether or not the cache served it.
    expect(buildJson(cwd)).toEqual(buildJson(cwd, '--no-cache'));

    appendFileSync(path.join(cwd, 'notebook/routines/notes/triage.md'), '\nOne more sentence.\n');
    const third = build(cwd);
    expect(third.cached).toBe(false);
    expect(third.id).not.toBe(first.id);
    expect(third.id).toBe(buildJson(cwd, '--no-cache').id);
  });

  it('sees a same-size edit made right after the build, a new source, and a deleted module', () => {
    const { cwd } = project();
    const first = build(cwd);
    const triage = path.join(cwd, 'notebook/routines/notes/triage.md');
    // Same size, same second: only the digest can tell (the stamp was racy, or the time moved).
    writeFileSync(triage, readFileSync(triage, 'utf8').replace('Classify', 'Clasify!'));
    const edited = build(cwd);
    expect(edited.cached).toBe(false);
    expect(edited.id).not.toBe(first.id);

    writeFileSync(path.join(cwd, 'notebook/routines/notes/extra.md'), '---\nname: notes.extra\ndescription: An extra routine.\n---\nMore.\n');
    const added = build(cwd);
    expect(added.cached).toBe(false);
    expect(added.id).toBe(buildJson(cwd, '--no-cache').id);
    expect(build(cwd).cached).toBe(true);

    const score = path.join(cwd, 'notebook/routines/lib/score.js');
    writeFileSync(score, '');
    const emptied = build(cwd);
    expect(emptied.cached).toBe(false);
    expect(emptied.code).toBe(build(cwd, '--no-cache').code);
  });

  it('keeps warnings and --max-warnings, and a damaged cache entry is only a miss', () => {
    const { cwd } = project();
    // A file name that differs from the routine's final name segment is a warning (BP1091).
    cpSync(path.join(cwd, 'notebook/routines/notes/triage.md'), path.join(cwd, 'notebook/routines/notes/sorting.md'));
    const triage = path.join(cwd, 'notebook/routines/notes/triage.md');
    writeFileSync(triage, readFileSync(triage, 'utf8').replace('name: notes.triage', 'name: notes.triage2'));
    const first = build(cwd);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('BP1091');
    const again = build(cwd);
    expect(again.cached).toBe(true);
    // The same warnings, the same lines, only the note on where the bundle came from differs.
    expect(again.stdout.replace(' (from the cache)', '')).toBe(first.stdout);
    const strict = berrypack(['build', 'notebook/plugin.json', '--max-warnings', '0'], { cwd });
    expect(strict.code).toBe(1);
    expect(strict.stdout).toContain('BP1091');

    const bundles = path.join(cwd, 'node_modules/.cache/berrypack/builds/bundles');
    const cachedFile = readdirSync(bundles).find((f) => f.endsWith('.berry.json'))!;
    const damaged = readFileSync(path.join(bundles, cachedFile));
    damaged[20] = damaged[20]! ^ 1;
    writeFileSync(path.join(bundles, cachedFile), damaged);
    const repaired = build(cwd);
    expect(repaired.code).toBe(0);
    expect(repaired.cached).toBe(false);
    expect(repaired.id).toBe(first.id);
  });

  it('writes and reads nothing with --no-cache, and keys on the options', () => {
    const { cwd } = project();
    expect(build(cwd, '--no-cache').code).toBe(0);
    expect(existsSync(path.join(cwd, 'node_modules/.cache/berrypack/builds'))).toBe(false);
    build(cwd);
    const catalog = path.join(cwd, 'catalog.json');
    writeFileSync(catalog, JSON.stringify({ models: [], tools: [] }));
    const withCatalog = build(cwd, '--catalog', catalog);
    expect(withCatalog.code).toBe(0);
    expect(withCatalog.cached).toBe(false);
    expect(build(cwd, '--catalog', catalog).cached).toBe(true);
    expect(build(cwd).cached).toBe(true);
  });
});
