// The esbuild plugin's one-edit `context.rebuild()`, measured for one or more builds of
// `@berrypack/esbuild` (each with its compiler) interleaved in one process, beside esbuild's own
// incremental rebuild of the package's JS mirror and esbuild's floor (a do-nothing plugin
// returning the same watch files). Each side has its own copy of the package and output folder;
// after every edit the sides' new bundle files must carry the same id.
//   node bench/workers/esbuild-rebuild-compare.mjs PKG_DIR JS_DIR EDITS NODE_MODULES_DIR [NODE_MODULES_DIR…]
// NODE_MODULES_DIR holds `@berrypack/esbuild` and `@berrypack/compiler` (for example a copy of
// the commit before a change; the worktree's own is `node_modules`). Per rebuild it records the
// wall time, this process's CPU time (every thread) and the esbuild service's CPU time (the
// child process, from /proc), which a loaded machine disturbs less than wall time.
import { appendFileSync, cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { esbuildFloor, watchedPaths } from '../lib/floor-plugins.mjs';

const [pkgDir, jsDir, editsArg, ...moduleDirs] = process.argv.slice(2);
const edits = Number(editsArg ?? 20);
const work = mkdtempSync(path.join(os.tmpdir(), 'berrypack-esbuild-compare-'));
const TICK_MS = 1000 / 100; // USER_HZ

/** CPU time (ms) of this process's children: esbuild's service. */
function childCpuMs() {
  let ms = 0;
  for (const task of readdirSync('/proc/self/task')) {
    const children = readFileSync(`/proc/self/task/${task}/children`, 'utf8').trim();
    for (const pid of children ? children.split(' ') : []) {
      try {
        const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
        ms += (Number(fields[11]) + Number(fields[12])) * TICK_MS;
      } catch {
        // gone
      }
    }
  }
  return ms;
}

const kinds = {
  routine: (dir, k) => appendFileSync(path.join(dir, 'routines/ns0/model0.md'), `\nEdited ${k}.\n`),
  code: (dir, k) => {
    const file = path.join(dir, 'routines/lib/m0.js');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/(export const LABEL_\d+ = ")(?:e\d+ )?/, `$1e${k} `));
  },
};

async function side(name, plugins, dir, entry) {
  const outdir = path.join(work, `out-${name}`);
  const ctx = await esbuild.context({ entryPoints: [entry], bundle: true, format: 'esm', outdir, plugins, logLevel: 'silent' });
  const first = await ctx.rebuild();
  if (first.errors.length > 0) throw new Error(`${name}: ${JSON.stringify(first.errors)}`);
  return { name, dir, ctx, outdir, samples: {} };
}

const sides = [];
for (const [i, modules] of moduleDirs.entries()) {
  const { default: berrypack } = await import(pathToFileURL(path.resolve(modules, '@berrypack/esbuild/dist/index.js')).href);
  const dir = path.join(work, `pkg-${i}`);
  cpSync(pkgDir, dir, { recursive: true, preserveTimestamps: true });
  const entry = path.join(work, `entry-${i}.js`);
  writeFileSync(entry, `import pkg from ${JSON.stringify(path.join(dir, 'plugin.json'))};\nexport default pkg;\n`);
  sides.push({ ...(await side(`plugin-${i}`, [berrypack()], dir, entry)), modules, plugin: true });
}
{
  const dir = path.join(work, 'floor-pkg');
  cpSync(pkgDir, dir, { recursive: true, preserveTimestamps: true });
  const entry = path.join(work, 'entry-floor.js');
  writeFileSync(entry, `import pkg from ${JSON.stringify(path.join(dir, 'plugin.json'))};\nexport default pkg;\n`);
  sides.push(await side('floor', [esbuildFloor(watchedPaths(dir))], dir, entry));
  const js = path.join(work, 'js');
  cpSync(jsDir, js, { recursive: true, preserveTimestamps: true });
  sides.push(await side('esbuild-js', [], js, path.join(js, 'entry.js')));
}

function bundleIds(outdir) {
  return new Set(readdirSync(outdir).filter((f) => f.endsWith('.berry.json')));
}

async function rebuild(s, kind, k) {
  const before = s.plugin ? bundleIds(s.outdir) : undefined;
  // The JS mirror has no routines: its edit is always the module's.
  kinds[s.name === 'esbuild-js' ? 'code' : kind](s.dir, k);
  const c0 = process.cpuUsage();
  const e0 = childCpuMs();
  const t0 = performance.now();
  const r = await s.ctx.rebuild();
  const wall = performance.now() - t0;
  const c = process.cpuUsage(c0);
  const child = childCpuMs() - e0;
  if (r.errors.length > 0) throw new Error(`${s.name}: ${JSON.stringify(r.errors)}`);
  (s.samples[kind] ??= []).push({ wall, cpu: (c.user + c.system) / 1000, child });
  if (!before) return undefined;
  const added = [...bundleIds(s.outdir)].filter((f) => !before.has(f));
  if (added.length !== 1) throw new Error(`${s.name}: the ${kind} edit wrote ${added.length} new bundles`);
  return added[0];
}

let k = 0;
for (let round = 0; round < 3 + edits; round++) {
  for (const kind of Object.keys(kinds)) {
    k += 1;
    const order = sides.map((_, i) => sides[(i + round) % sides.length]);
    const names = [];
    for (const s of order) {
      const name = await rebuild(s, kind, k);
      if (name) names.push(name);
    }
    if (new Set(names).size > 1) throw new Error(`bundle ids differ after edit ${k} (${kind}): ${names.join(' ')}`);
  }
  if (round === 2) for (const s of sides) s.samples = {}; // warm-up rounds
}
for (const s of sides) await s.ctx.dispose();

const median = (a) => {
  const sorted = [...a].sort((x, y) => x - y);
  return +sorted[Math.floor(sorted.length / 2)].toFixed(2);
};
const mean = (a) => +(a.reduce((x, y) => x + y, 0) / a.length).toFixed(2);
const rows = [];
for (const kind of Object.keys(kinds)) {
  for (const s of sides) {
    const x = s.samples[kind];
    // Each edit's rebuild against the same edit's on the first side and on esbuild's own, in the same round.
    const paired = (other) => median(x.map((v, i) => v.wall / other.samples[kind][i].wall));
    rows.push({
      kind,
      side: s.modules ?? s.name,
      vsFirst: paired(sides[0]),
      vsEsbuild: paired(sides.at(-1)),
      wallMedian: median(x.map((v) => v.wall)),
      wallMin: +Math.min(...x.map((v) => v.wall)).toFixed(2),
      cpuMedian: median(x.map((v) => v.cpu)),
      cpuMean: mean(x.map((v) => v.cpu)),
      // /proc counts in 10 ms ticks: only a mean over many rebuilds says something.
      esbuildCpuMean: mean(x.map((v) => v.child)),
    });
  }
}
process.stdout.write(JSON.stringify({ edits, load: os.loadavg().map((x) => +x.toFixed(2)), rows }, null, 1) + '\n');
await esbuild.stop?.();
rmSync(work, { recursive: true, force: true });
