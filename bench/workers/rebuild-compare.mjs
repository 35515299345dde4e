// The compiler API's one-edit rebuild, measured as CPU time (which a loaded machine disturbs less
// than wall time) for each kind of edit, with and without the watcher's changed-file list, for one
// or more builds of the compiler interleaved in one process (each on its own copy of the package),
// with their bundle ids checked equal after every edit.
//   node bench/workers/rebuild-compare.mjs PKG_DIR EDITS DIST_DIR [DIST_DIR…]
// DIST_DIR is a built `packages/compiler/dist` (for example a copy of the commit before a change).
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [pkgDir, editsArg, ...dists] = process.argv.slice(2);
const edits = Number(editsArg ?? 20);
const work = mkdtempSync(path.join(os.tmpdir(), 'berrypack-rebuild-compare-'));
const sides = [];
for (const [i, dist] of dists.entries()) {
  const { createCompiler } = await import(pathToFileURL(path.resolve(dist, 'index.js')).href);
  const dir = path.join(work, `pkg-${i}`);
  cpSync(pkgDir, dir, { recursive: true });
  const compiler = createCompiler();
  const manifest = path.join(dir, 'plugin.json');
  if (!compiler.build(manifest).ok) throw new Error(`${dist}: the package does not build`);
  sides.push({ dist, dir, compiler, manifest, samples: {} });
}

const kinds = {
  routine: (dir, k) => {
    const file = path.join(dir, 'routines/ns0/model0.md');
    appendFileSync(file, `\nEdited ${k}.\n`);
    return file;
  },
  code: (dir, k) => {
    const file = path.join(dir, 'routines/lib/m0.js');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/(export const LABEL_\d+ = ")(?:e\d+ )?/, `$1e${k} `));
    return file;
  },
};
const scenarios = [];
for (const kind of Object.keys(kinds)) for (const listed of [false, true]) scenarios.push({ kind, listed, name: `${kind}${listed ? ' +changedFiles' : ''}` });

function rebuild(side, scenario, k) {
  const file = kinds[scenario.kind](side.dir, k);
  const options = scenario.listed ? { changedFiles: [file] } : {};
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const result = side.compiler.build(side.manifest, options);
  const wall = performance.now() - t0;
  const c = process.cpuUsage(c0);
  if (!result.ok) throw new Error(`${side.dist}: a rebuild failed`);
  (side.samples[scenario.name] ??= []).push({ cpu: (c.user + c.system) / 1000, wall });
  return result.bundle.id;
}

let k = 0;
for (let round = 0; round < 3 + edits; round++) {
  for (const scenario of scenarios) {
    k += 1;
    // Rotate which side goes first, so a burst of load does not always hit the same one.
    const order = sides.map((_, i) => sides[(i + round) % sides.length]);
    const ids = order.map((side) => rebuild(side, scenario, k));
    if (new Set(ids).size !== 1) throw new Error(`bundle ids differ after edit ${k} (${scenario.name})`);
  }
  if (round === 2) for (const side of sides) side.samples = {}; // warm-up rounds
}

const median = (a) => {
  const s = [...a].sort((x, y) => x - y);
  return s[Math.floor(s.length / 2)];
};
const rows = [];
for (const scenario of scenarios) {
  for (const side of sides) {
    const s = side.samples[scenario.name];
    rows.push({
      scenario: scenario.name,
      dist: side.dist,
      cpuMedian: +median(s.map((x) => x.cpu)).toFixed(2),
      cpuMin: +Math.min(...s.map((x) => x.cpu)).toFixed(2),
      wallMedian: +median(s.map((x) => x.wall)).toFixed(2),
      wallMin: +Math.min(...s.map((x) => x.wall)).toFixed(2),
    });
  }
}
process.stdout.write(JSON.stringify({ edits, load: os.loadavg().map((x) => +x.toFixed(2)), rows }, null, 1) + '\n');
rmSync(work, { recursive: true, force: true });
