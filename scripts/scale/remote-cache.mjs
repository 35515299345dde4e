// The remote build cache scenario of docs/scale.md, shared by `npm run e2e:scale` and
// test/remote-cache.test.ts: fixtures/monorepo in two git clones in different directories,
// turbo's remote cache served by turborepo-remote-cache on loopback.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startCacheServer } from './cache-server.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TURBO = path.join(ROOT, 'node_modules/.bin/turbo');
const BIN = path.join(ROOT, 'packages/cli/bin/berrypack.js');
const PACKAGES = ['text-kit', 'greeter', 'notes'];
const TEAM = 'berrypack-e2e';
const BUILD_LOG = 'node_modules/.berrypack-builds.log';
const GIT_ENV = {
  GIT_AUTHOR_NAME: 'e2e',
  GIT_AUTHOR_EMAIL: 'e2e@berrypack.invalid',
  GIT_COMMITTER_NAME: 'e2e',
  GIT_COMMITTER_EMAIL: 'e2e@berrypack.invalid',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
};

function run(command, args, options) {
  return new Promise((resolve) => {
    execFile(command, args, { encoding: 'utf8', maxBuffer: 64 << 20, timeout: 180_000, ...options }, (error, stdout, stderr) => {
      const status = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ status, output: `${stdout}${stderr}${error && typeof error.code !== 'number' ? error.message : ''}` });
    });
  });
}

async function git(cwd, ...args) {
  const result = await run('git', args, { cwd, env: { ...process.env, ...GIT_ENV } });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')} failed in ${cwd}:\n${result.output}`);
}

/**
 * A clone with what `npm install` would add: workspace links and a `berrypack` bin. The bin is a
 * shim that appends the package's name to node_modules/.berrypack-builds.log before handing over
 * to the real CLI, so the scenario sees every berrypack build that actually ran.
 */
async function clone(origin, dir) {
  mkdirSync(path.dirname(dir), { recursive: true });
  await git(path.dirname(dir), 'clone', '--quiet', origin, dir);
  mkdirSync(path.join(dir, 'node_modules/.bin'), { recursive: true });
  for (const p of PACKAGES) symlinkSync(path.join('..', 'packages', p), path.join(dir, 'node_modules', p));
  const shim = path.join(dir, 'node_modules/.bin/berrypack');
  writeFileSync(
    shim,
    `#!/usr/bin/env node\n` +
      `require('node:fs').appendFileSync(${JSON.stringify(path.join(dir, BUILD_LOG))}, require('node:path').basename(process.cwd()) + '\\n');\n` +
      `import(${JSON.stringify(pathToFileURL(BIN).href)});\n`,
  );
  chmodSync(shim, 0o755);
  return dir;
}

/**
 * The environment for a turbo the tests start: none of the caller's turbo settings (a developer's
 * TURBO_API/TURBO_TOKEN would send the fixture's artifacts to a real remote cache), no telemetry,
 * no update check; then `extra`.
 */
export function isolatedTurboEnv(extra = {}) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('TURBO_') && !k.startsWith('VERCEL_ARTIFACTS_')));
  return { ...env, TURBO_TELEMETRY_DISABLED: '1', TURBO_NO_UPDATE_NOTIFIER: '1', DO_NOT_TRACK: '1', ...extra };
}

/** `turbo run build` in a clone against the remote cache; what turbo did, from its own run summary. */
async function turboBuild(dir, remote) {
  const env = isolatedTurboEnv({ TURBO_API: remote.url, TURBO_TOKEN: remote.token, TURBO_TEAM: TEAM, TURBO_REMOTE_CACHE_SIGNATURE_KEY: remote.signatureKey });
  const log = path.join(dir, BUILD_LOG);
  rmSync(log, { force: true });
  const runs = path.join(dir, '.turbo/runs');
  const before = new Set(existsSync(runs) ? readdirSync(runs) : []);
  const result = await run(TURBO, ['run', 'build', '--output-logs=hash-only', '--summarize'], { cwd: dir, env });
  if (result.status !== 0) throw new Error(`turbo run build failed in ${dir} (exit ${result.status}):\n${result.output}`);
  const fresh = readdirSync(runs).filter((f) => !before.has(f));
  if (fresh.length !== 1) throw new Error(`expected one new run summary in ${runs}, found ${fresh.length}`);
  const summaryText = readFileSync(path.join(runs, fresh[0]), 'utf8');
  const summary = JSON.parse(summaryText);
  const tasks = {};
  for (const t of summary.tasks) tasks[t.package] = { status: t.cache.status, source: t.cache.source ?? null, hash: t.hash };
  return {
    tasks,
    built: existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).sort() : [],
    fullTurbo: result.output.includes('FULL TURBO'),
    ms: summary.execution.endTime - summary.execution.startTime,
    output: result.output,
    summaryText,
  };
}

/** Every file of every package's dist/, relative path -> bytes. */
function bundles(dir) {
  const files = {};
  const walk = (abs, rel) => {
    for (const e of readdirSync(abs, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(abs, e.name), `${rel}/${e.name}`);
      else files[`${rel}/${e.name}`] = readFileSync(path.join(abs, e.name));
    }
  };
  for (const p of PACKAGES) {
    const dist = path.join(dir, 'packages', p, 'dist');
    if (existsSync(dist)) walk(dist, `${p}/dist`);
  }
  return files;
}

/**
 * Whether every file of `ref` is in `other` with the same bytes; with `exact`, `other` holds no
 * more. (turbo restores outputs over dist/ without removing what is there, so a clone that built
 * before keeps its older bundles, each named by its own id, beside the restored ones.)
 */
function sameBytes(ref, other, { exact = true } = {}) {
  const keys = Object.keys(ref);
  if (keys.length === 0 || (exact && Object.keys(other).length !== keys.length)) return false;
  return keys.every((k) => other[k] !== undefined && ref[k].equals(other[k]));
}

const EDIT = { file: 'packages/text-kit/text/tone.md', from: 'Be warm and brief.', to: 'Be warm, brief and kind.' };

/**
 * Runs the scenario and returns what happened; `checkRemoteCache` judges it. Everything lives in
 * one temporary folder that is removed at the end, and the server is stopped.
 */
export async function runRemoteCacheScenario({ keep = false } = {}) {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'berrypack-scale-'));
  const token = randomBytes(24).toString('hex');
  const signatureKey = randomBytes(24).toString('hex');
  const store = path.join(tmp, 'store');
  mkdirSync(store);
  let server;
  try {
    server = await startCacheServer({ storeDir: store, token });
    const remote = { url: server.url, token, signatureKey };
    const origin = path.join(tmp, 'origin');
    cpSync(path.join(ROOT, 'fixtures/monorepo'), origin, { recursive: true });
    await git(origin, 'init', '--quiet', '--initial-branch=main');
    await git(origin, 'add', '-A');
    await git(origin, 'commit', '--quiet', '-m', 'fixture');
    const a = await clone(origin, path.join(tmp, 'machine-a', 'repo'));
    const b = await clone(origin, path.join(tmp, 'elsewhere', 'machine-b', 'repo'));

    const first = await turboBuild(a, remote);
    const stored = readdirSync(path.join(store, TEAM)).sort();
    const artifact = (hash) => path.join(store, TEAM, hash);
    const second = await turboBuild(b, remote);
    const secondIdentical = sameBytes(bundles(a), bundles(b));

    // A teammate's change: edited and committed in clone B, then pulled into clone A.
    const edited = path.join(b, EDIT.file);
    writeFileSync(edited, readFileSync(edited, 'utf8').replace(EDIT.from, EDIT.to));
    await git(b, 'commit', '--quiet', '-am', 'edit tone');
    const afterEdit = await turboBuild(b, remote);
    const editReached = Object.entries(bundles(b)).some(([k, v]) => k.startsWith('greeter/') && v.toString('utf8').includes(EDIT.to));
    await git(a, 'pull', '--quiet', '--no-rebase', b, 'main');
    const pulled = await turboBuild(a, remote);
    const pulledIdentical = sameBytes(bundles(b), bundles(a), { exact: false });

    // Whoever can write to the cache's storage swaps greeter's artifact for another valid one:
    // turbo's signature check refuses it, so a third clone rebuilds greeter, to the same bytes.
    const greeterHash = afterEdit.tasks['greeter']?.hash;
    writeFileSync(artifact(greeterHash), readFileSync(artifact(afterEdit.tasks['notes']?.hash)));
    const c = await clone(b, path.join(tmp, 'machine-c', 'repo'));
    const tampered = await turboBuild(c, remote);
    const tamperedIdentical = sameBytes(bundles(b), bundles(c));

    // Nothing machine- or secret-specific may reach a bundle, a cache key or a log.
    const leaks = [];
    for (const [where, text] of [
      ...[a, b, c].flatMap((clone) => Object.entries(bundles(clone)).map(([k, v]) => [`bundle ${k} in ${path.relative(tmp, clone)}`, v.toString('utf8')])),
      ...[first, second, afterEdit, pulled, tampered].flatMap((r, i) => [
        [`turbo output ${i + 1}`, r.output],
        [`run summary ${i + 1}`, r.summaryText],
      ]),
    ]) {
      if (text.includes(token)) leaks.push(`${where} contains the cache token`);
      if (text.includes(signatureKey)) leaks.push(`${where} contains the signature key`);
      if (where.startsWith('bundle') && text.includes(tmp)) leaks.push(`${where} contains an absolute path`);
    }
    return {
      runs: { first, second, afterEdit, pulled, tampered },
      stored,
      secondIdentical,
      editReached,
      pulledIdentical,
      tamperedIdentical,
      leaks,
      edit: EDIT,
    };
  } finally {
    await server?.close();
    if (!keep) rmSync(tmp, { recursive: true, force: true });
  }
}

const all = (tasks, pred) => PACKAGES.every((p) => tasks[p] && pred(tasks[p]));
const list = (xs) => (xs.length ? xs.join(', ') : 'none');

/** The scenario's claims, each with what was observed. */
export function checkRemoteCache(r) {
  const { first, second, afterEdit, pulled, tampered } = r.runs;
  const firstHashes = PACKAGES.flatMap((p) => [first.tasks[p]?.hash, `${first.tasks[p]?.hash}.tag`]).sort();
  return [
    {
      claim: 'the first clone builds every package',
      ok: all(first.tasks, (t) => t.status === 'MISS') && list(first.built) === list([...PACKAGES].sort()),
      observed: `built ${list(first.built)}`,
    },
    {
      claim: 'its artifacts are uploaded to the remote cache, each with a signature tag',
      ok: list(r.stored) === list(firstHashes),
      observed: `server store holds ${list(r.stored)}`,
    },
    {
      claim: 'a second clone elsewhere is a full remote hit (FULL TURBO)',
      ok: second.fullTurbo && all(second.tasks, (t) => t.status === 'HIT' && t.source === 'REMOTE'),
      observed: PACKAGES.map((p) => `${p} ${second.tasks[p]?.status}/${second.tasks[p]?.source}`).join(', '),
    },
    { claim: 'the second clone runs no berrypack build', ok: second.built.length === 0, observed: `built ${list(second.built)}` },
    { claim: "its bundles are byte-identical to the first clone's", ok: r.secondIdentical, observed: r.secondIdentical ? 'identical' : 'different' },
    {
      claim: 'an edit in text-kit rebuilds text-kit and its dependent greeter only',
      ok:
        list(afterEdit.built) === 'greeter, text-kit' &&
        afterEdit.tasks['notes']?.status === 'HIT' &&
        afterEdit.tasks['text-kit']?.status === 'MISS' &&
        afterEdit.tasks['greeter']?.status === 'MISS' &&
        r.editReached,
      observed: `built ${list(afterEdit.built)}; edit in greeter's bundle: ${r.editReached}`,
    },
    {
      claim: 'the first clone, after pulling the edit, is a full hit restoring identical bundles',
      ok: pulled.fullTurbo && pulled.built.length === 0 && r.pulledIdentical,
      observed: `built ${list(pulled.built)}; ${r.pulledIdentical ? 'identical' : 'different'}`,
    },
    {
      claim: "an artifact swapped in the server's storage fails its signature and is rebuilt to the same bytes",
      ok:
        list(tampered.built) === 'greeter' &&
        tampered.tasks['greeter']?.status === 'MISS' &&
        tampered.tasks['text-kit']?.source === 'REMOTE' &&
        r.tamperedIdentical,
      observed: `built ${list(tampered.built)}; ${r.tamperedIdentical ? 'identical' : 'different'}`,
    },
    { claim: 'no token, signature key or absolute path in bundles, outputs or run summaries', ok: r.leaks.length === 0, observed: list(r.leaks) },
  ];
}
