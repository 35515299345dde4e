#!/usr/bin/env node
// The benchmark harness (docs/performance.md describes the method and the latest figures).
//
//   npm run bench                      quick: N = 1,000 (about a minute on 2 cores)
//   npm run bench -- --full            N = 100, 1,000 and 10,000 (several minutes)
//   npm run bench -- --json            the figures as one JSON object on stdout
//   options: --n 100[,1000…]  --runs R  --edits E  --iterations I  --quick-smoke
//            --only cold,bundlers,watch,runtime  --work-dir DIR  --keep  --json-out FILE
//
// Every figure is the median of several runs, printed beside its min and max. Cold figures come
// from fresh processes timed by this driver from spawn to exit, so process start and module
// loading count on every side. Every comparison is a ratio taken within one run (one round of
// interleaved processes, in an order rotated per round), then the median of those ratios: the
// machine is shared and noisy, and a ratio across runs would mostly measure the noise.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generatePackage } from './generate.mjs';
import { writeJsMirror } from './lib/js-mirror.mjs';
import { renderText } from './lib/render.mjs';
import { median, summarize } from './lib/stats.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BENCH = path.join(ROOT, 'bench');
const SECTIONS = ['cold', 'memory', 'bundlers', 'watch', 'runtime'];

// ---------------------------------------------------------------- options
function parseArgs(argv) {
  const o = {
    jsonOut: undefined,
    full: false,
    json: false,
    smoke: false,
    keep: false,
    ns: undefined,
    runs: undefined,
    edits: undefined,
    iterations: undefined,
    only: undefined,
    workDir: undefined,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === '--full') o.full = true;
    else if (a === '--json') o.json = true;
    else if (a === '--quick-smoke') o.smoke = true;
    else if (a === '--keep') o.keep = true;
    else if (a === '--n') o.ns = value().split(',').map(Number);
    else if (a === '--runs') o.runs = Number(value());
    else if (a === '--edits') o.edits = Number(value());
    else if (a === '--iterations') o.iterations = Number(value());
    else if (a === '--only') o.only = value().split(',');
    else if (a === '--work-dir') o.workDir = value();
    else if (a === '--json-out') o.jsonOut = value();
    else if (a === '--help' || a === '-h') {
      process.stdout.write(
        readFileSync(fileURLToPath(import.meta.url), 'utf8')
          .split('\n')
          .slice(2, 9)
          .map((l) => l.replace(/^\/\/ ?/, ''))
          .join('\n') + '\n',
      );
      process.exit(0);
    } else throw new Error(`Unexpected argument ${a}`);
  }
  o.ns ??= o.full ? [100, 1000, 10000] : [1000];
  if (o.ns.some((n) => !Number.isInteger(n) || n < 10)) throw new Error('--n takes integers of at least 10');
  if (o.only?.some((s) => !['cold', 'bundlers', 'watch', 'runtime'].includes(s))) throw new Error('--only takes cold, bundlers, watch, runtime');
  o.runs ??= o.smoke ? 1 : 5;
  o.edits ??= o.smoke ? 1 : 5;
  o.iterations ??= o.smoke ? 3 : 30;
  return o;
}

let options;
try {
  options = parseArgs(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`bench: ${error.message}\n`);
  process.exit(2);
}
const wants = (section) => !options.only || options.only.includes(section);
const log = (line) => process.stderr.write(`${line}\n`);
/** Fewer runs at 10k unless --runs was given: each round of its processes takes over a minute. */
const runsFor = (n) => (n >= 10000 && !process.argv.includes('--runs') ? Math.min(options.runs, 3) : options.runs);

// ---------------------------------------------------------------- fresh processes
const TIME = ['/usr/bin/time', '/bin/time'].find((p) => existsSync(p) && spawnSync(p, ['-f', '%M', 'true'], { encoding: 'utf8' }).status === 0);
const loads = [];
const errors = [];

/**
 * Runs `node ARGS` in a fresh process and returns {ms, rssMB, stdout}: wall time from spawn to
 * exit, measured here, and the peak RSS from GNU time (%M), else from a preload that reports
 * process.resourceUsage().maxRSS at exit.
 */
function node(args, { cwd = ROOT, timeoutMs = 15 * 60_000 } = {}) {
  loads.push(os.loadavg()[0]);
  const rssFile = path.join(work, `rss-${process.pid}.txt`);
  rmSync(rssFile, { force: true });
  const [cmd, argv] = TIME
    ? [TIME, ['-f', '%M', '-o', rssFile, process.execPath, ...args]]
    : [process.execPath, ['--import', path.join(BENCH, 'lib/report-rss.mjs'), ...args]];
  const env = { ...process.env, NO_COLOR: '1', BENCH_RSS_FILE: rssFile };
  const t = process.hrtime.bigint();
  const r = spawnSync(cmd, argv, { cwd, env, encoding: 'utf8', timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (r.status !== 0) {
    const why = r.error ? r.error.message : `exit ${r.status}${r.signal ? ` (${r.signal})` : ''}`;
    const tail = (text) =>
      (text || '')
        .trim()
        .split('\n')
        .slice(-6)
        .map((l) => `    ${l.slice(0, 300)}`)
        .join('\n');
    throw new Error(
      `node ${args.map((a) => path.relative(ROOT, a) || a).join(' ')}: ${why}\n${tail(r.stderr)}${r.stdout?.trim() ? `\n${tail(r.stdout)}` : ''}`,
    );
  }
  let rssMB;
  try {
    const lines = readFileSync(rssFile, 'utf8').trim().split('\n');
    rssMB = Number(lines[lines.length - 1]) / 1024;
  } catch {
    rssMB = undefined;
  }
  return { ms, rssMB, stdout: r.stdout };
}

const lastJson = (stdout) =>
  JSON.parse(
    stdout
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .pop(),
  );

// ---------------------------------------------------------------- setup
const work = options.workDir ? path.resolve(options.workDir) : mkdtempSync(path.join(os.tmpdir(), 'berrypack-bench-'));
mkdirSync(work, { recursive: true });
const startedAt = new Date().toISOString();
const startLoad = os.loadavg();
const t0 = performance.now();

const setups = new Map();
const needsPackages = wants('cold') || wants('bundlers') || wants('watch');
for (const n of needsPackages ? options.ns : []) {
  const dir = path.join(work, `n${n}`);
  rmSync(dir, { recursive: true, force: true });
  const pkg = path.join(dir, 'pkg');
  const files = generatePackage(pkg, n);
  const js = writeJsMirror(pkg, path.join(dir, 'js'));
  const entry = path.join(dir, 'entry.js');
  writeFileSync(entry, `import pkg from ${JSON.stringify(path.join(pkg, 'plugin.json'))};\nexport default pkg;\n`);
  // The watch processes edit a copy; the cold ones always see the generated package.
  const watchPkg = path.join(dir, 'watch-pkg');
  const watchJs = path.join(dir, 'watch-js');
  cpSync(pkg, watchPkg, { recursive: true });
  cpSync(path.join(dir, 'js'), watchJs, { recursive: true });
  const watchEntry = path.join(dir, 'watch-entry.js');
  writeFileSync(watchEntry, `import pkg from ${JSON.stringify(path.join(watchPkg, 'plugin.json'))};\nexport default pkg;\n`);
  // The text sources a bundle captures (plugin.json, routines, modules); resources go to blobs beside it.
  const sourceBytes = files.filter((f) => /\.(json|md|m?js)$/.test(f)).reduce((sum, f) => sum + statSync(path.join(pkg, f)).size, 0);
  setups.set(n, { n, dir, pkg, files: files.length, sourceBytes, js, entry, watchPkg, watchJs, watchEntry });
  log(`bench: generated N = ${n}: ${files.length} files, ${js.modules} code routines as .js`);
}
const generatedAt = Date.now();

// Start-up: the CLI as the packages run it (tsc output, one module per file) and the same CLI
// bundled by esbuild (the compiler and runtime inlined, npm dependencies not), to say what
// bundling would save. Code splitting keeps what the CLI loads lazily (the other commands, the
// runtime) in chunks a build never loads; without it the one file held every command and a
// build compiled all of it. The entry sits in the CLI's dist/ so `../package.json` and the
// dependencies resolve as they do for the real entry; it and its chunks are removed at the end.
const BUNDLED_CLI = path.join(ROOT, 'packages/cli/dist/.bench-bundled.mjs');
const BUNDLED_CHUNKS = '.bench-bundled-chunks';
const NOTEBOOK = path.join(ROOT, 'fixtures/notebook');
if (wants('cold')) {
  const esbuild = await import('esbuild');
  const entry = path.join(work, 'bundled-cli-entry.mjs');
  writeFileSync(
    entry,
    `import { run } from ${JSON.stringify(path.join(ROOT, 'packages/cli/dist/index.js'))};\nprocess.exitCode = await run(process.argv.slice(2));\n`,
  );
  const inlineOurs = {
    name: 'externals',
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith('@berrypack/') ? undefined : { path: args.path, external: true }));
    },
  };
  await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    outdir: path.dirname(BUNDLED_CLI),
    entryNames: path.basename(BUNDLED_CLI, '.mjs'),
    chunkNames: `${BUNDLED_CHUNKS}/[name]-[hash]`,
    outExtension: { '.js': '.mjs' },
    plugins: [inlineOurs],
    logLevel: 'silent',
  });
}
const STARTUP = [
  ['cli-version', () => [path.join(ROOT, 'packages/cli/bin/berrypack.js'), '--version']],
  ['cli-notebook', () => [path.join(ROOT, 'packages/cli/bin/berrypack.js'), 'build', NOTEBOOK, '--out-dir', path.join(work, 'out-startup'), '--no-cache']],
  ['cli-notebook-bundled', () => [BUNDLED_CLI, 'build', NOTEBOOK, '--out-dir', path.join(work, 'out-startup'), '--no-cache']],
  ...['compiler', 'runtime', 'rollup', 'esbuild', 'webpack'].map((pkg) => [
    `import-${pkg}`,
    () => ['--input-type=module', '-e', `await import('@berrypack/${pkg}')`],
  ]),
];

// ---------------------------------------------------------------- measurements
/** raw[key] = array over runs (undefined where a run failed). */
const raw = {};
const put = (key, run, value) => ((raw[key] ??= [])[run] = value);

const COLD = [
  ['startup', (_s) => ['-e', '0']],
  ['floor', (s) => [path.join(BENCH, 'floor.mjs'), s.pkg, path.join(s.dir, 'out/floor.json')]],
  ['cli', (s) => [path.join(ROOT, 'packages/cli/bin/berrypack.js'), 'build', s.pkg, '--out-dir', path.join(s.dir, 'out/cli'), '--no-cache']],
  // Served from the persistent cache (primed by an unmeasured build just before), into an emptied out dir.
  [
    'cli-warm',
    (s) => [path.join(ROOT, 'packages/cli/bin/berrypack.js'), 'build', s.pkg, '--out-dir', path.join(s.dir, 'out/cli-warm')],
    { cwd: (s) => s.dir, prime: true },
  ],
];
const BUNDLERS = [
  ['rollup-plugin', (s) => [path.join(BENCH, 'workers/bundle.mjs'), 'rollup-plugin', s.entry, path.join(s.dir, 'out/rollup-plugin')]],
  ['vite-plugin', (s) => [path.join(BENCH, 'workers/bundle.mjs'), 'vite-plugin', s.entry, path.join(s.dir, 'out/vite-plugin')]],
  ['esbuild-plugin', (s) => [path.join(BENCH, 'workers/bundle.mjs'), 'esbuild-plugin', s.entry, path.join(s.dir, 'out/esbuild-plugin')]],
  ['esbuild-js', (s) => [path.join(BENCH, 'workers/bundle.mjs'), 'esbuild-js', s.js.entry, path.join(s.dir, 'out/esbuild-js')]],
  ['rollup-js', (s) => [path.join(BENCH, 'workers/bundle.mjs'), 'rollup-js', s.js.entry, path.join(s.dir, 'out/rollup-js')]],
  ['webpack-plugin', (s) => [path.join(BENCH, 'workers/bundle.mjs'), 'webpack-plugin', s.entry, path.join(s.dir, 'out/webpack-plugin')]],
  ['rspack-plugin', (s) => [path.join(BENCH, 'workers/bundle.mjs'), 'rspack-plugin', s.entry, path.join(s.dir, 'out/rspack-plugin')]],
  // What each host costs by itself: the same build with a do-nothing plugin (bench/lib/floor-plugins.mjs).
  ['rollup-floor', (s) => [path.join(BENCH, 'workers/bundle.mjs'), 'rollup-floor', s.entry, path.join(s.dir, 'out/rollup-floor')]],
  ['vite-floor', (s) => [path.join(BENCH, 'workers/bundle.mjs'), 'vite-floor', s.entry, path.join(s.dir, 'out/vite-floor')]],
  ['esbuild-floor', (s) => [path.join(BENCH, 'workers/bundle.mjs'), 'esbuild-floor', s.entry, path.join(s.dir, 'out/esbuild-floor')]],
  ['webpack-floor', (s) => [path.join(BENCH, 'workers/bundle.mjs'), 'webpack-floor', s.entry, path.join(s.dir, 'out/webpack-floor')]],
  ['rspack-floor', (s) => [path.join(BENCH, 'workers/bundle.mjs'), 'rspack-floor', s.entry, path.join(s.dir, 'out/rspack-floor')]],
];
const PLUGINS = ['rollup-plugin', 'vite-plugin', 'esbuild-plugin', 'webpack-plugin', 'rspack-plugin'];
/** Each host's watcher with @berrypack's plugin, and its floor: the same watcher with a do-nothing plugin registering the same paths. */
const HOST_WATCHERS = [
  ['rollup-watch', 'rollup-floor', 'rollup.watch + plugin: write → END', 'rollup.watch'],
  ['vite-watch', 'vite-floor', 'Vite build watch + plugin: write → END', 'Vite build watch'],
  ['webpack-watch', 'webpack-floor', 'webpack watch + plugin: write → done', 'webpack watch'],
  ['rspack-watch', 'rspack-floor', 'Rspack watch + plugin: write → done', 'Rspack watch'],
];
const WATCH = [
  'esbuild-js',
  'compiler',
  'compiler-listed',
  'cli-watch',
  'esbuild-plugin',
  'esbuild-floor',
  ...HOST_WATCHERS.flatMap(([mode, floorMode]) => [mode, floorMode]),
  'vite-floor-asset',
];

const rotate = (list, k) => list.map((_, i) => list[(i + k) % list.length]);
const maxRuns = Math.max(...options.ns.map(runsFor));

for (let run = 0; run < maxRuns; run++) {
  for (const n of needsPackages ? options.ns : []) {
    if (run >= runsFor(n)) continue;
    const s = setups.get(n);
    // The floor and the CLI are the references of the cold, bundler and rebuild ratios.
    const cold = [...(wants('cold') || wants('bundlers') || wants('watch') ? COLD : []), ...(wants('bundlers') ? BUNDLERS : [])];
    for (const [name, args, how] of rotate(cold, run)) {
      rmSync(path.join(s.dir, 'out', name), { recursive: true, force: true });
      mkdirSync(path.join(s.dir, 'out'), { recursive: true });
      try {
        const cwd = how?.cwd?.(s) ?? ROOT;
        if (how?.prime) {
          node(args(s), { cwd });
          rmSync(path.join(s.dir, 'out', name), { recursive: true, force: true });
        }
        const r = node(args(s), { cwd });
        put(`cold.${name}.${n}`, run, r.ms);
        put(`rss.${name}.${n}`, run, r.rssMB);
        if (name !== 'startup' && name !== 'floor' && name !== 'cli' && name !== 'cli-warm') put(`inner.${name}.${n}`, run, lastJson(r.stdout));
        if (name === 'cli') {
          const out = path.join(s.dir, 'out', name);
          const file = readdirSync(out).find((f) => f.endsWith('.berry.json'));
          if (file !== undefined) put(`size.bundle.${n}`, run, statSync(path.join(out, file)).size / 1024);
          put(`size.sources.${n}`, run, s.sourceBytes / 1024);
        }
      } catch (error) {
        errors.push(`run ${run + 1}, N = ${n}, ${name}: ${error.message}`);
      }
    }
    if (wants('watch')) {
      // esbuild trusts its cached copy of a file only once the file's mtime is 3 s old (its
      // modKeySafetyGap) and reads younger files in full on every rebuild, which would time the
      // copies' age instead of the rebuild. The cold processes usually take longer than that.
      const young = generatedAt + 3100 - Date.now();
      if (young > 0) await new Promise((resolve) => setTimeout(resolve, young));
      const edits = n >= 10000 && !process.argv.includes('--edits') ? Math.min(options.edits, 3) : options.edits;
      for (const mode of rotate(WATCH, run)) {
        const out = path.join(s.dir, 'out', `watch-${mode}`);
        rmSync(out, { recursive: true, force: true });
        mkdirSync(out, { recursive: true });
        try {
          const r = node([path.join(BENCH, 'workers/watch.mjs'), mode, s.watchPkg, s.watchEntry, s.watchJs, out, String(edits)]);
          put(`watch.${mode}.${n}`, run, lastJson(r.stdout));
          put(`rss.watch-${mode}.${n}`, run, r.rssMB);
        } catch (error) {
          errors.push(`run ${run + 1}, N = ${n}, watch ${mode}: ${error.message}`);
        }
      }
    }
    log(`bench: run ${run + 1}/${runsFor(n)} N = ${n} done (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
  }
  if (wants('cold')) {
    for (const [name, args] of rotate(STARTUP, run)) {
      try {
        put(`startup.${name}`, run, node(args()).ms);
      } catch (error) {
        errors.push(`run ${run + 1}, start-up ${name}: ${error.message}`);
      }
    }
  }
  if (wants('runtime')) {
    try {
      const r = node([path.join(BENCH, 'workers/runtime.mjs'), String(options.iterations)]);
      put('runtime', run, lastJson(r.stdout));
      put('rss.runtime', run, r.rssMB);
    } catch (error) {
      errors.push(`run ${run + 1}, runtime: ${error.message}`);
    }
  }
}

// ---------------------------------------------------------------- figures and targets
const figures = [];
const targets = [];
const runsOf = (key) => raw[key] ?? [];
/** Per-run ratios a[i] / b[i] over the runs where both exist. */
const ratios = (a, b) => a.map((x, i) => (x !== undefined && b[i] !== undefined && b[i] > 0 ? x / b[i] : undefined)).filter((x) => x !== undefined);

function check(value, target) {
  if (value === undefined) return 'not measured';
  return (target.op === '<=' ? value <= target.value : value < target.value) ? 'met' : 'missed';
}

/**
 * A figure: its summary over `values`, and comparisons, each a per-run ratio (or an absolute
 * value) with an optional target.
 */
function figure(section, id, label, n, unit, values, comparisons = [], extra = {}) {
  const stats = summarize(values);
  const f = { section, id, label, n, unit, ...(stats ?? { median: undefined, min: undefined, max: undefined, count: 0 }), comparisons: [], ...extra };
  for (const c of comparisons) {
    const r = c.ratios ? summarize(c.ratios) : undefined;
    const value = c.target?.kind === 'absolute' ? c.value : r?.median;
    const entry = {
      against: c.against,
      ratio: r,
      ...(c.percent ? { percent: true } : {}),
      ...(c.targetLabel ? { targetLabel: c.targetLabel } : {}),
      ...(c.target ? { target: c.target, value, status: check(value, c.target) } : {}),
    };
    f.comparisons.push(entry);
    if (c.target)
      targets.push({
        id: `${id}${c.suffix ?? ''}${n ? `@${n}` : ''}`,
        label: `${label}${c.targetLabel ? `: ${c.targetLabel}` : ''}${n ? ` (N = ${n.toLocaleString('en-US')})` : ''}`,
        value,
        unit: c.target.kind === 'absolute' ? c.target.unit : c.percent ? '%' : '×',
        target: `${c.target.op} ${c.percent ? `${c.target.value * 100} %` : `${c.target.value}${c.target.kind === 'absolute' ? ` ${c.target.unit}` : '×'}`}`,
        status: entry.status,
      });
  }
  figures.push(f);
  return f;
}
const targetAt = (n, list) => list.includes(n);

for (const n of needsPackages ? options.ns : []) {
  const startup = runsOf(`cold.startup.${n}`);
  const floor = runsOf(`cold.floor.${n}`);
  const cli = runsOf(`cold.cli.${n}`);
  if (wants('cold') || wants('bundlers')) {
    figure('cold', 'startup', '`node -e 0` (process start)', n, 'ms', startup);
    figure('cold', 'floor', 'floor: read, hash, parse, serialize (bench/floor.mjs)', n, 'ms', floor);
    figure('cold', 'cli', '`berrypack build` cold', n, 'ms', cli, [
      {
        against: 'floor',
        ratios: ratios(cli, floor),
        // Issue #21: at most the floor at 1,000, 0.8× of it at 10,000 (two cores against the floor's one).
        ...(targetAt(n, [1000, 10000]) ? { target: { op: '<=', value: n === 10000 ? 0.8 : 1.0 }, targetLabel: 'vs the floor' } : {}),
      },
    ]);
    // Bytes, not time: the same every run (the bundle is deterministic), so one value is the figure.
    const bundleKB = runsOf(`size.bundle.${n}`);
    figure('cold', 'bundle-size', 'bundle file written by `berrypack build`', n, 'KB', bundleKB, [
      {
        against: 'bytes of its text sources',
        ratios: ratios(bundleKB, runsOf(`size.sources.${n}`)),
        ...(targetAt(n, [1000]) ? { target: { op: '<=', value: 1.5 }, targetLabel: 'vs its sources' } : {}),
      },
    ]);
    const warm = runsOf(`cold.cli-warm.${n}`);
    figure('cold', 'cli-warm', '`berrypack build` warm: nothing changed, served from the persistent cache', n, 'ms', warm, [
      { against: 'cold `berrypack build`', ratios: ratios(warm, cli) },
    ]);
    const perRoutine = cli.map((x) => (x === undefined ? undefined : x / n));
    const perRoutineComparisons = [];
    if (n === 10000 && options.ns.includes(1000)) {
      const at1k = runsOf('cold.cli.1000').map((x) => (x === undefined ? undefined : x / 1000));
      perRoutineComparisons.push({
        against: 'per-routine cost at N = 1,000',
        ratios: ratios(perRoutine, at1k),
        target: { op: '<=', value: 1.2 },
        targetLabel: 'vs the same at N = 1,000',
      });
    }
    figure('cold', 'cli-per-routine', '`berrypack build` cold, per routine', n, 'ms', perRoutine, perRoutineComparisons);
    const minusStartup = cli.map((x, i) => (x === undefined || startup[i] === undefined ? undefined : x - startup[i]));
    const floorMinusStartup = floor.map((x, i) => (x === undefined || startup[i] === undefined ? undefined : x - startup[i]));
    figure('cold', 'cli-minus-startup', '`berrypack build` minus `node -e 0` (same run)', n, 'ms', minusStartup, [
      { against: 'floor minus `node -e 0`', ratios: ratios(minusStartup, floorMinusStartup) },
    ]);

    const rss = (name) => runsOf(`rss.${name}.${n}`);
    figure(
      'memory',
      'cli-rss',
      '`berrypack build` peak RSS',
      n,
      'MB',
      rss('cli'),
      n === 10000
        ? [
            {
              against: 'absolute',
              value: median(rss('cli').filter(Boolean)),
              target: { kind: 'absolute', op: '<', value: 600, unit: 'MB' },
              suffix: '-median',
              targetLabel: 'median',
            },
          ]
        : [{ against: 'floor', ratios: ratios(rss('cli'), rss('floor')) }],
    );
    figure('memory', 'floor-rss', 'floor peak RSS', n, 'MB', rss('floor'));
    if (wants('bundlers')) {
      for (const name of [...PLUGINS, 'esbuild-js', 'rollup-js']) figure('memory', `${name}-rss`, `${name} peak RSS`, n, 'MB', rss(name));
    }
  }
  if (wants('bundlers')) {
    const labels = {
      'rollup-plugin': 'Rollup + @berrypack/rollup (import plugin.json)',
      'vite-plugin': 'Vite build + @berrypack/rollup',
      'esbuild-plugin': 'esbuild + @berrypack/esbuild',
      'esbuild-js': 'plain esbuild on the package JS (no plugin)',
      'rollup-js': 'plain Rollup on the package JS (no plugin)',
      'webpack-plugin': 'webpack + @berrypack/webpack',
      'rspack-plugin': 'Rspack + @berrypack/webpack',
      'rollup-floor': 'Rollup + a do-nothing plugin (the host alone, no berrypack)',
      'vite-floor': 'Vite build + a do-nothing plugin (the host alone, no berrypack)',
      'esbuild-floor': 'esbuild + a do-nothing plugin (the host alone, no berrypack)',
      'webpack-floor': 'webpack + a do-nothing plugin (the host alone, no berrypack)',
      'rspack-floor': 'Rspack + a do-nothing plugin (the host alone, no berrypack)',
    };
    for (const [name, label] of Object.entries(labels)) {
      const values = runsOf(`cold.${name}.${n}`);
      const isPlugin = name.endsWith('-plugin');
      figure(
        'bundlers',
        name,
        label,
        n,
        'ms',
        values,
        [
          {
            against: 'berrypack build',
            ratios: ratios(values, cli),
            ...(isPlugin ? { target: { op: '<=', value: 1.2 }, targetLabel: 'vs `berrypack build`' } : {}),
          },
        ],
        {
          // Measured inside the process: importing the bundler (and plugin), then the build itself.
          importMs: summarize(runsOf(`inner.${name}.${n}`).map((r) => r?.importMs)),
          buildMs: summarize(runsOf(`inner.${name}.${n}`).map((r) => r?.buildMs)),
        },
      );
    }
  }
  if (wants('watch')) {
    const w = (mode) => runsOf(`watch.${mode}.${n}`);
    const perRun = (mode, kind) => w(mode).map((r) => (r ? median(r[kind]) : undefined));
    const pooled = (mode, kind) => w(mode).flatMap((r) => r?.[kind] ?? []);
    const esbuildIncr = perRun('esbuild-js', 'code');
    figure('watch', 'esbuild-js-incremental', 'esbuild context.rebuild() of the package JS, one .js edited', n, 'ms', pooled('esbuild-js', 'code'));
    figure(
      'watch',
      'esbuild-js-initial',
      'esbuild context, initial build of the package JS',
      n,
      'ms',
      w('esbuild-js').map((r) => r?.initialMs),
    );
    const kinds = [
      ['routine', 'one routine edited'],
      ['code', 'one code module edited'],
    ];
    const atTarget = n === 1000;
    // The compiler API and the esbuild plugin against esbuild's own incremental rebuild.
    const esbuildLike = {
      compiler: 'compiler API: compiler.build() again',
      'esbuild-plugin': 'esbuild + plugin: context.rebuild()',
    };
    for (const [mode, label] of Object.entries(esbuildLike)) {
      for (const [kind, what] of kinds) {
        const mine = perRun(mode, kind);
        figure('watch', `${mode}-${kind}`, `${label}, ${what}`, n, 'ms', pooled(mode, kind), [
          {
            against: 'esbuild incremental (same run)',
            ratios: ratios(mine, esbuildIncr),
            ...(atTarget ? { target: { op: '<=', value: 3 }, targetLabel: 'vs esbuild incremental' } : {}),
          },
          ...(mode === 'esbuild-plugin' ? [{ against: 'esbuild floor (same run)', ratios: ratios(mine, perRun('esbuild-floor', kind)) }] : []),
          {
            against: 'cold `berrypack build` (same run)',
            ratios: ratios(mine, cli),
            suffix: '-vs-cold',
            percent: true,
            ...(atTarget ? { target: { op: '<', value: 0.05 }, targetLabel: 'share of the cold build' } : {}),
          },
        ]);
      }
    }
    for (const [kind, what] of kinds) {
      figure(
        'watch',
        `compiler-listed-${kind}`,
        `compiler API: compiler.build() again with the watcher's list (changedFiles), ${what}`,
        n,
        'ms',
        pooled('compiler-listed', kind),
        [{ against: 'esbuild incremental (same run)', ratios: ratios(perRun('compiler-listed', kind), esbuildIncr) }],
      );
    }
    for (const [kind, what] of kinds) {
      figure(
        'watch',
        `esbuild-floor-${kind}`,
        `  esbuild floor: context.rebuild(), do-nothing plugin with the same watch files, ${what}`,
        n,
        'ms',
        pooled('esbuild-floor', kind),
      );
    }
    // The CLI's own watch mode: its debounce (20 ms) is part of what a user waits for.
    for (const [kind, what] of kinds) {
      figure(
        'watch',
        `cli-watch-${kind}`,
        `\`berrypack build --watch\`: write → the build's line (its 20 ms debounce included), ${what}`,
        n,
        'ms',
        pooled('cli-watch', kind),
        [{ against: 'esbuild incremental (same run)', ratios: ratios(perRun('cli-watch', kind), esbuildIncr) }],
      );
    }
    // Each host's watcher against its own floor.
    for (const [mode, floorMode, label, hostName] of HOST_WATCHERS) {
      for (const [kind, what] of kinds) {
        const mine = perRun(mode, kind);
        figure('watch', `${mode}-${kind}`, `${label}, ${what}`, n, 'ms', pooled(mode, kind), [
          {
            against: `${hostName} floor (same run)`,
            ratios: ratios(mine, perRun(floorMode, kind)),
            suffix: '-vs-floor',
            ...(atTarget ? { target: { op: '<=', value: 1.5 }, targetLabel: `vs ${hostName}'s floor` } : {}),
          },
          { against: 'esbuild incremental (same run)', ratios: ratios(mine, esbuildIncr) },
          { against: 'cold `berrypack build` (same run)', ratios: ratios(mine, cli), suffix: '-vs-cold', percent: true },
        ]);
        figure('watch', `${floorMode}-${kind}`, `  ${hostName} floor: do-nothing plugin registering the same paths, ${what}`, n, 'ms', pooled(floorMode, kind));
        if (floorMode === 'vite-floor') {
          figure(
            'watch',
            `vite-floor-asset-${kind}`,
            `  Vite build watch floor, also emitting an asset of the bundle's size under a new name, ${what}`,
            n,
            'ms',
            pooled('vite-floor-asset', kind),
            [{ against: 'Vite build watch floor (same run)', ratios: ratios(perRun('vite-floor-asset', kind), perRun(floorMode, kind)) }],
          );
        }
      }
    }
    // The adapter's share: each plugin rebuild minus the same edit rebuilt by a second compiler in
    // the same process (bench/workers/watch.mjs), beside the time spent in the plugin's own hooks.
    const adapters = {
      'esbuild-plugin': 'esbuild + plugin',
      'rollup-watch': 'rollup.watch + plugin',
      'vite-watch': 'Vite build watch + plugin',
      'webpack-watch': 'webpack watch + plugin',
      'rspack-watch': 'Rspack watch + plugin',
    };
    for (const [mode, label] of Object.entries(adapters)) {
      for (const [kind, what] of kinds) {
        const shares = w(mode).flatMap((r) => (r?.extra.compilerMs ? r[kind].map((ms, i) => ms - r.extra.compilerMs[kind][i]) : []));
        const extra = (key) => w(mode).flatMap((r) => r?.extra[key]?.[kind] ?? []);
        figure('watch', `${mode}-adapter-${kind}`, `  ${label}: rebuild minus the compiler's own rebuild (same process), ${what}`, n, 'ms', shares);
        figure('watch', `${mode}-hooks-${kind}`, `  ${label}: time in the plugin's hooks (its compiler included), ${what}`, n, 'ms', extra('hookMs'));
        figure(
          'watch',
          `${mode}-compiler-${kind}`,
          `  ${label}: the same edit rebuilt by a second compiler in that process, ${what}`,
          n,
          'ms',
          extra('compilerMs'),
        );
      }
    }
    figure(
      'watch',
      'compiler-no-edit',
      'compiler API: compiler.build() again, nothing edited',
      n,
      'ms',
      w('compiler').map((r) => r?.extra.noEditMs),
    );
    figure(
      'watch',
      'compiler-initial',
      'compiler API: first compiler.build() in a warm process (no process start)',
      n,
      'ms',
      w('compiler').map((r) => r?.initialMs),
      [
        {
          against: 'cold `berrypack build`',
          ratios: ratios(
            w('compiler').map((r) => r?.initialMs),
            cli,
          ),
        },
      ],
    );
    figure(
      'watch',
      'rollup-watch-initial',
      'rollup.watch + plugin: initial build',
      n,
      'ms',
      w('rollup-watch').map((r) => r?.initialMs),
    );
    // What one edit made the compiler redo (its `stats` deltas): evidence that the caches work.
    const stats = w('compiler').find(Boolean)?.extra.statsPerEdit;
    const noEdit = figures.find((f) => f.id === 'compiler-no-edit' && f.n === n);
    if (stats && noEdit) noEdit.compilerStatsPerEdit = stats;
  }
}

if (wants('cold')) {
  const startup = options.ns.map((n) => runsOf(`cold.startup.${n}`)).find((v) => v.length > 0) ?? [];
  const cliNotebook = runsOf('startup.cli-notebook');
  figure('cold', 'startup-cli-version', 'start-up: `berrypack --version`', undefined, 'ms', runsOf('startup.cli-version'), [
    { against: '`node -e 0`', ratios: ratios(runsOf('startup.cli-version'), startup) },
  ]);
  figure('cold', 'startup-cli-notebook', 'start-up: `berrypack build fixtures/notebook` (7 routines)', undefined, 'ms', cliNotebook, [
    { against: 'the same CLI bundled (esbuild, code splitting)', ratios: ratios(cliNotebook, runsOf('startup.cli-notebook-bundled')) },
  ]);
  figure(
    'cold',
    'startup-cli-notebook-bundled',
    '  the same, the CLI bundled by esbuild (code splitting; npm dependencies outside)',
    undefined,
    'ms',
    runsOf('startup.cli-notebook-bundled'),
  );
  for (const pkg of ['compiler', 'runtime', 'rollup', 'esbuild', 'webpack']) {
    const values = runsOf(`startup.import-${pkg}`);
    figure('cold', `startup-import-${pkg}`, `start-up: a process importing @berrypack/${pkg}`, undefined, 'ms', values, [
      { against: '`node -e 0`', ratios: ratios(values, startup) },
    ]);
  }
}

if (wants('runtime')) {
  const rt = runsOf('runtime').filter(Boolean);
  const pool = (key, side = 'samples') => rt.flatMap((r) => r[side][key] ?? []);
  /** Ratio to plain Node per run: the run's median over the plain function's median. */
  const vsPlain = (key) => rt.map((r) => median(r.samples[key]) / median(r.plain[key]));
  figure('runtime', 'first-invocation', 'first code-routine invocation (starts the sandbox pool)', undefined, 'ms', pool('firstInvocation'));
  figure('runtime', 'sandbox-invocation', 'code routine in a fresh sandbox (start → result)', undefined, 'ms', pool('sandbox'), [
    { against: 'plain Node call of the same function', ratios: vsPlain('sandbox') },
    {
      against: 'absolute',
      value: median(pool('sandbox')),
      target: { kind: 'absolute', op: '<', value: 5, unit: 'ms' },
      suffix: '-median',
      targetLabel: 'median',
    },
  ]);
  figure('runtime', 'plain-sandbox', '  plain Node: the same function on a JSON copy of the input', undefined, 'ms', pool('sandbox', 'plain'));
  const overhead = median(pool('toolCall')) - median(pool('toolCall', 'plain'));
  figure('runtime', 'tool-call', 'warm tool-call round trip (code → host tool → code; (k = 501 − k = 1) / 500)', undefined, 'ms', pool('toolCall'), [
    { against: 'plain Node awaited call', ratios: vsPlain('toolCall') },
    {
      against: 'absolute',
      value: overhead,
      target: { kind: 'absolute', op: '<', value: 0.2, unit: 'ms' },
      suffix: '-overhead',
      targetLabel: 'overhead over plain Node',
    },
  ]);
  figure('runtime', 'plain-tool-call', '  plain Node: an awaited async function call', undefined, 'ms', pool('toolCall', 'plain'));
  figure('runtime', 'first-tool-call', "  the execution's first tool call (k = 1 − k = 0; not in the warm figure)", undefined, 'ms', pool('firstToolCall'));
  figure('runtime', 'tool-call-k50', '  the figure before round five: (k = 50 − k = 0) / 50, first call included', undefined, 'ms', pool('toolCallK50'));
  figure('runtime', 'next-model', '`next` transition (scripted model chain, per hop)', undefined, 'ms', pool('nextModel'), [
    { against: 'plain Node loop step', ratios: vsPlain('nextModel') },
  ]);
  figure('runtime', 'plain-next', '  plain Node: one step of a loop over awaited calls', undefined, 'ms', pool('nextModel', 'plain'));
  figure('runtime', 'next-code', '`next` transition between code routines (per hop, a fresh VM each)', undefined, 'ms', pool('nextCode'));
  figure('runtime', 'scripted-model', 'scripted model routine (render, decide, validate)', undefined, 'ms', pool('scriptedModel'), [
    { against: 'plain Node template + call', ratios: vsPlain('scriptedModel') },
  ]);
  figure('runtime', 'plain-scripted-model', '  plain Node: render the template, return the answer', undefined, 'ms', pool('scriptedModel', 'plain'));
  figure('runtime', 'chat-turn', 'conversation turn (send → scripted answer published → waiting again)', undefined, 'ms', pool('chatTurn'), [
    { against: 'plain Node history + awaited call', ratios: vsPlain('chatTurn') },
  ]);
  figure('runtime', 'plain-chat-turn', '  plain Node: push the message, await the answer, push it', undefined, 'ms', pool('chatTurn', 'plain'));
  figure('memory', 'runtime-rss', 'runtime process peak RSS', undefined, 'MB', runsOf('rss.runtime'));
}

// Targets that need N the run did not measure are listed as not measured, never dropped.
const wanted = [
  ...(wants('cold') || wants('bundlers')
    ? [
        ['cli@1000', 1000, '`berrypack build` cold vs floor', '<= 1×'],
        ['bundle-size@1000', 1000, 'bundle bytes vs its text sources', '<= 1.5×'],
        ['cli@10000', 10000, '`berrypack build` cold vs floor', '<= 0.8×'],
        ['cli-per-routine@10000', 10000, 'per-routine cost at 10k vs at 1k', '<= 1.2×'],
        ['cli-rss-median@10000', 10000, '`berrypack build` peak RSS', '< 600 MB'],
      ]
    : []),
  ...(wants('bundlers') ? PLUGINS.flatMap((p) => [100, 1000].map((n) => [`${p}@${n}`, n, `${p} vs \`berrypack build\``, '<= 1.2×'])) : []),
  ...(wants('watch')
    ? [
        ...['compiler', 'esbuild-plugin'].flatMap((m) =>
          ['routine', 'code'].flatMap((k) => [
            [`${m}-${k}@1000`, 1000, `${m} rebuild (${k} edit) vs esbuild incremental`, '<= 3×'],
            [`${m}-${k}-vs-cold@1000`, 1000, `${m} rebuild (${k} edit) share of the cold build`, '< 5 %'],
          ]),
        ),
        ...HOST_WATCHERS.flatMap(([m]) =>
          ['routine', 'code'].map((k) => [`${m}-${k}-vs-floor@1000`, 1000, `${m} rebuild (${k} edit) vs its floor`, '<= 1.5×']),
        ),
      ]
    : []),
];
for (const [id, n, label, target] of wanted) {
  if (!targets.some((t) => t.id === id))
    targets.push({
      id,
      label: `${label} (N = ${n.toLocaleString('en-US')})`,
      value: undefined,
      unit: target.endsWith('MB') ? 'MB' : target.endsWith('%') ? '%' : '×',
      target,
      status: `not measured (needs N = ${n.toLocaleString('en-US')}${n === 10000 ? ', --full' : ''})`,
    });
}

const loadStats = summarize(loads);
/** The code measured: the commit, and how many files under packages/ differ from it (read-only git). */
function revision() {
  const git = (args) => spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' });
  const head = git(['rev-parse', '--short=12', 'HEAD']);
  if (head.status !== 0) return { commit: undefined, changedPackageFiles: undefined };
  const status = git(['status', '--porcelain', '--', 'packages']);
  return { commit: head.stdout.trim(), changedPackageFiles: status.stdout.split('\n').filter(Boolean).length };
}
const result = {
  meta: {
    startedAt,
    ...revision(),
    durationS: (performance.now() - t0) / 1000,
    node: process.version,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model,
    memoryMB: Math.round(os.totalmem() / 1024 / 1024),
    loadAverageAtStart: startLoad,
    loadAverageAtEnd: os.loadavg(),
    load1DuringRun: loadStats,
    ns: options.ns,
    runs: Object.fromEntries(options.ns.map((n) => [n, runsFor(n)])),
    edits: options.edits,
    iterations: options.iterations,
    mode: options.smoke ? 'quick-smoke' : options.full ? 'full' : 'quick',
    peakRss: TIME ? 'GNU time %M' : 'process.resourceUsage().maxRSS at exit',
    workDir: work,
  },
  sections: Object.fromEntries(SECTIONS.map((s) => [s, figures.filter((f) => f.section === s)])),
  targets,
  errors,
};

if (!options.keep && !options.workDir) rmSync(work, { recursive: true, force: true });
rmSync(BUNDLED_CLI, { force: true });
rmSync(path.join(path.dirname(BUNDLED_CLI), BUNDLED_CHUNKS), { recursive: true, force: true });

if (options.jsonOut) writeFileSync(options.jsonOut, JSON.stringify(result, null, 2) + '\n');
if (options.json) process.stdout.write(JSON.stringify(result, null, 2) + '\n');
else process.stdout.write(renderText(result));
process.exitCode = errors.length > 0 ? 1 : 0;
