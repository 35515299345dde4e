#!/usr/bin/env node
// CPU profiles of the cold `berrypack build`, of the floor (for comparison) and of the compiler
// API's warm rebuild after one edit, on a generated package, summarized as the top self-time
// functions, files and packages, and the inclusive time of the compiler's own functions.
//
//   node bench/profile.mjs [--n 1000] [--top 15] [--interval-us 200] [--rebuilds 20] [--listed] [--out DIR] [--json]
//
// Runs `node --cpu-prof` on the CLI exactly as the harness does (a fresh process), keeps the
// .cpuprofile files in --out (default: a temporary directory, printed) for Chrome DevTools or
// speedscope, and prints the summaries.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generatePackage } from './generate.mjs';
import { fmt, table } from './lib/stats.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i === -1 ? fallback : args[i + 1];
};
const n = Number(opt('--n', 1000));
const top = Number(opt('--top', 15));
const interval = Number(opt('--interval-us', 200));
const json = args.includes('--json');
// --listed: each rebuild gets the edited file as `changedFiles`, as the Rollup, Vite and webpack adapters pass it.
const listed = args.includes('--listed');
const out = path.resolve(opt('--out', mkdtempSync(path.join(os.tmpdir(), 'berrypack-profile-'))));
mkdirSync(out, { recursive: true });

const pkg = path.join(out, `pkg-${n}`);
rmSync(pkg, { recursive: true, force: true });
generatePackage(pkg, n);

function profile(label, argv) {
  const dir = path.join(out, label);
  rmSync(dir, { recursive: true, force: true });
  const t = performance.now();
  const r = spawnSync(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-interval=${interval}`, ...argv], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  const wallMs = performance.now() - t;
  if (r.status !== 0) throw new Error(`${label} failed: ${r.stderr}`);
  const file = path.join(
    dir,
    readdirSync(dir).find((f) => f.endsWith('.cpuprofile')),
  );
  return { label, file, wallMs, ...summarize(JSON.parse(readFileSync(file, 'utf8'))) };
}

function profileRebuild(iterations) {
  const copy = path.join(out, `rebuild-pkg-${n}`);
  rmSync(copy, { recursive: true, force: true });
  cpSync(pkg, copy, { recursive: true });
  const file = path.join(out, 'rebuild.cpuprofile');
  const r = spawnSync(
    process.execPath,
    [path.join(ROOT, 'bench/workers/profile-rebuild.mjs'), copy, file, String(iterations), String(interval), ...(listed ? ['listed'] : [])],
    {
      cwd: ROOT,
      encoding: 'utf8',
    },
  );
  if (r.status !== 0) throw new Error(`rebuild profile failed: ${r.stderr}`);
  const { msPerRebuild } = JSON.parse(r.stdout);
  return {
    label: `compiler.build() after one edit${listed ? ', given the edited file' : ''} (${iterations} rebuilds, ${fmt(msPerRebuild)} ms each)`,
    file,
    wallMs: msPerRebuild * iterations,
    ...summarize(JSON.parse(readFileSync(file, 'utf8'))),
  };
}

const SPECIAL = new Set(['(garbage collector)', '(program)', '(idle)', '(root)']);

/** Where a frame's code lives: a package name, a workspace package file, or a Node internal. */
function owner(url, name) {
  // Native functions (fs bindings, hashing) have no URL.
  if (!url) return SPECIAL.has(name) ? undefined : { pkg: 'node (native bindings)', file: '(native)' };
  const p = url.replace(/^file:\/\//, '');
  const nm = p.lastIndexOf('/node_modules/');
  if (nm !== -1) {
    const rest = p.slice(nm + '/node_modules/'.length).split('/');
    return { pkg: rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0], file: p.slice(nm + '/node_modules/'.length) };
  }
  const ws = p.match(/\/packages\/([^/]+)\/(?:dist|src)\/(.*)$/);
  if (ws) return { pkg: `@berrypack/${ws[1]}`, file: `${ws[1]}/${ws[2]}` };
  if (p.startsWith('node:')) return { pkg: 'node (internals)', file: p };
  return { pkg: path.relative(ROOT, p).startsWith('..') ? p : path.relative(ROOT, p), file: path.relative(ROOT, p) };
}

function summarize(profile) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map();
  // timeDeltas[i + 1] is the time until the sample after samples[i]: charge it to samples[i].
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = profile.timeDeltas[i + 1] ?? 0;
    self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + dt);
  }
  const totalMs = [...self.values()].reduce((a, b) => a + b, 0) / 1000;
  const byFunction = new Map();
  const byFile = new Map();
  const byPackage = new Map();
  const add = (map, key, ms) => map.set(key, (map.get(key) ?? 0) + ms);
  const label = (callFrame) => {
    const name = callFrame.functionName || '(anonymous)';
    const where = owner(callFrame.url, name);
    return { name, where, key: where && where.file !== '(native)' ? `${name}  ${where.file}:${callFrame.lineNumber + 1}` : where ? `${name} (native)` : name };
  };
  for (const [id, us] of self) {
    const { callFrame } = nodes.get(id);
    const ms = us / 1000;
    const { name, where, key } = label(callFrame);
    add(byFunction, key, ms);
    add(byFile, where ? where.file : name, ms);
    add(byPackage, where ? where.pkg : name, ms);
  }
  // Inclusive time of the workspace packages' functions: each sample counts once per distinct
  // function on its stack (recursion is not double counted).
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const inclusive = new Map();
  for (const [id, us] of self) {
    const seen = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const { key, where } = label(nodes.get(at).callFrame);
      if (!where?.pkg.startsWith('@berrypack/') || seen.has(key)) continue;
      seen.add(key);
      add(inclusive, key, us / 1000);
    }
  }
  const rank = (map) => [...map.entries()].sort((a, b) => b[1] - a[1]).map(([key, ms]) => ({ key, ms, share: ms / totalMs }));
  return { totalMs, byFunction: rank(byFunction), byFile: rank(byFile), byPackage: rank(byPackage), inclusive: rank(inclusive) };
}

const runs = [
  profile('cli', [path.join(ROOT, 'packages/cli/bin/berrypack.js'), 'build', pkg, '--out-dir', path.join(out, 'dist'), '--no-cache']),
  profile('floor', [path.join(ROOT, 'bench/floor.mjs'), pkg, path.join(out, 'floor.json')]),
  profileRebuild(Number(opt('--rebuilds', 20))),
];

if (json) {
  process.stdout.write(
    JSON.stringify(
      {
        n,
        intervalUs: interval,
        out,
        runs: runs.map((r) => ({
          ...r,
          byFunction: r.byFunction.slice(0, top * 2),
          byFile: r.byFile.slice(0, top * 2),
          byPackage: r.byPackage.slice(0, top),
          inclusive: r.inclusive.slice(0, top * 2),
        })),
      },
      null,
      2,
    ) + '\n',
  );
} else {
  const lines = [];
  for (const r of runs) {
    lines.push(
      `${r.label}: N = ${n.toLocaleString('en-US')}, wall ${fmt(r.wallMs)} ms (profiling on), ${fmt(r.totalMs)} ms sampled every ${interval} µs; ${r.file}`,
    );
    const rows = (list, k) => list.slice(0, k).map((e, i) => [String(i + 1), e.key, fmt(e.ms), `${(e.share * 100).toFixed(1)} %`]);
    lines.push('', table(['#', 'self time by function', 'ms', 'share'], rows(r.byFunction, top), ['r', '', 'r', 'r']));
    lines.push('', table(['#', 'self time by file', 'ms', 'share'], rows(r.byFile, top), ['r', '', 'r', 'r']));
    lines.push('', table(['#', 'self time by package', 'ms', 'share'], rows(r.byPackage, 10), ['r', '', 'r', 'r']));
    if (r.inclusive.length > 0)
      lines.push('', table(['#', 'inclusive time of @berrypack functions', 'ms', 'share'], rows(r.inclusive, top * 2), ['r', '', 'r', 'r']));
    lines.push('');
  }
  process.stdout.write(lines.join('\n') + '\n');
}
