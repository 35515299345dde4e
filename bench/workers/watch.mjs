// Rebuild after one edit, in one (fresh) process: the initial build, then EDITS edits of each
// kind, alternating, each a real content change whose effect on the output is checked.
//   node bench/workers/watch.mjs MODE PKG_DIR ENTRY JS_DIR OUT_DIR EDITS
// MODE: compiler | compiler-listed | esbuild-js | esbuild-plugin | rollup-watch | vite-watch |
//       webpack-watch | rspack-watch | cli-watch (`berrypack build --watch`), and each host's
//       floor: esbuild-floor | rollup-floor | vite-floor | webpack-floor | rspack-floor (the same
//       watcher with a do-nothing plugin registering the package's files and directories,
//       bench/lib/floor-plugins.mjs); vite-floor-asset: Vite's floor that also emits an asset of
//       the bundle's size under a new name each build (what rolldown itself spends on an asset that
//       large); webpack-floor-asset | rspack-floor-asset: the same for webpack's and Rspack's
//       floor, the asset in the bundle's parts (a ConcatSource of RawSources, as the plugin emits
//       it for Rspack); webpack-watch-noemit | rspack-watch-noemit: the plugin with `emit: false`
//       (no bundle asset; each rebuild is checked by its end only).
// For the plugins (rollup-watch, vite-watch, webpack-watch, rspack-watch, esbuild-plugin) `extra` also holds, per edit, the
// time in the plugin's own hooks (`hookMs`) and a rebuild of the same edit by a second compiler
// in the same process right after (`compilerMs`, given the edited file as the plugin's watcher
// gives it): the adapter's share is the rebuild minus `compilerMs`. The
// watchers' rows also give the process's CPU time (user + system, all threads) from the write to
// the build's end (`cpuMs`) and its minor page faults (`minorFaults`: fresh memory touched, which
// costs about 15 µs a page on the bench VM, and does not depend on the load).
// PKG_DIR is a private copy of the package (edited in place); ENTRY a module importing its
// plugin.json (for the plugins); JS_DIR the package's JS mirror (for esbuild-js).
// Edit kinds: `routine` appends a sentence to the body of a model routine (routines/ns0/model0.md);
// `code` changes the exported label of a shared code module (routines/lib/m0.js, imported by about
// ten code routines) — for esbuild-js the same file of the JS mirror.
// Prints one JSON line: {mode, initialMs, routine: [ms…], code: [ms…], extra}.
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { hostCompiler, webpackConfig } from '../lib/webpack-config.mjs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { esbuildFloor, rollupFloor, watchedPaths, webpackFloor } from '../lib/floor-plugins.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const [mode, pkgDir, entry, jsDir, outDir, editsArg] = process.argv.slice(2);
const edits = Number(editsArg ?? 5);
const manifest = path.join(pkgDir, 'plugin.json');
const routineFile = path.join(pkgDir, 'routines/ns0/model0.md');
const codeFile = path.join(mode === 'esbuild-js' ? jsDir : pkgDir, 'routines/lib/m0.js');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const [host, kindOfRun] = mode.split('-');
const floor = kindOfRun === 'floor';
const withAsset = mode.endsWith('-asset');
const noEmit = mode.endsWith('-noemit');
let counter = 0;

/** A real change: a new sentence in the routine body, or a new exported constant in the module. */
function edit(kind) {
  counter += 1;
  const marker = `bench_edit_${process.pid}_${counter}`;
  if (kind === 'routine') appendFileSync(routineFile, `\nEdited ${marker}.\n`);
  else {
    // A change the output keeps: the module's label constant is used by its importers.
    const text = readFileSync(codeFile, 'utf8');
    const changed = text.replace(/(export const LABEL_\d+ = ")(?:bench_edit_\d+_\d+ )?/, `$1${marker} `);
    if (changed === text) throw new Error(`no label constant to edit in ${codeFile}`);
    writeFileSync(codeFile, changed);
  }
  return marker;
}

async function plugin(pkg) {
  // As users load it: the package's entry; BENCH_PLUGIN_ENTRY names another build of it (a saved
  // dist from before a change) so that before and after can be interleaved.
  const other = process.env.BENCH_PLUGIN_ENTRY;
  return (await import(other ? pathToFileURL(path.resolve(other)).href : `@berrypack/${pkg}`)).default;
}

/** The bundle file a plugin build wrote: its name carries the first 12 hex of the id. */
function bundleNames() {
  return new Set(readdirSync(outDir).filter((f) => f.endsWith('.berry.json')));
}

const samples = { routine: [], code: [] };
const hookSamples = { routine: [], code: [] };
const compilerSamples = { routine: [], code: [] };
const cpuSamples = { routine: [], code: [] };
const faultSamples = { routine: [], code: [] };
let hookMs = 0;
/** `fn` timed into `hookMs` (the plugin's own hooks, its compiler's build included). */
const timed = (fn) =>
  async function (...args) {
    const t = performance.now();
    try {
      return await fn.apply(this, args);
    } finally {
      hookMs += performance.now() - t;
    }
  };

/**
 * The plugin, its build hooks timed: `load` for Rollup and Vite; for esbuild `onEnd` and the span
 * from the first `onResolve` to the end of the `onLoad` that follows it (a rebuild compiles
 * between the two, outside any hook, while esbuild stats the watch files onResolve returned).
 */
function timeHooks(instance) {
  if (instance.load) instance.load = { ...instance.load, handler: timed(instance.load.handler) };
  if (instance.setup) {
    const setup = instance.setup;
    let resolvedAt;
    instance.setup = (build) =>
      setup({
        ...build,
        onResolve: (options, callback) =>
          build.onResolve(options, (...args) => {
            resolvedAt ??= performance.now();
            return callback(...args);
          }),
        onLoad: (options, callback) =>
          build.onLoad(options, async (...args) => {
            const t = resolvedAt ?? performance.now();
            resolvedAt = undefined;
            try {
              return await callback(...args);
            } finally {
              hookMs += performance.now() - t;
            }
          }),
        onEnd: (callback) => build.onEnd(timed(callback)),
      });
  }
  return instance;
}

/**
 * webpack's and Rspack's plugin, its build hooks timed: the loader's `load` (the plugin instance
 * the loader finds in the plugin's registry), `finishModules` and `processAssets`, each timed by
 * taps of this bench placed just before and after the plugin's own.
 */
function timeWebpackHooks(instance) {
  const REGISTRY = Symbol.for('@berrypack/webpack');
  return {
    name: instance.name,
    apply(compiler) {
      instance.apply(compiler);
      for (const target of globalThis[REGISTRY]?.values() ?? []) if (!target.timed) Object.assign(target, { load: timed(target.load), timed: true });
      let t = 0;
      const start = () => void (t = performance.now());
      const stop = () => void (hookMs += performance.now() - t);
      const stage = compiler.webpack.Compilation.PROCESS_ASSETS_STAGE_ADDITIONAL;
      compiler.hooks.thisCompilation.tap({ name: 'bench-hooks', before: instance.name }, (compilation) => {
        compilation.hooks.finishModules.tap({ name: 'bench-hooks', before: instance.name }, start);
        compilation.hooks.processAssets.tap({ name: 'bench-hooks', stage, before: instance.name }, start);
      });
      compiler.hooks.thisCompilation.tap('bench-hooks-end', (compilation) => {
        compilation.hooks.finishModules.tap('bench-hooks-end', stop);
        compilation.hooks.processAssets.tap({ name: 'bench-hooks-end', stage }, stop);
      });
    },
  };
}

/** The same edit rebuilt by a second compiler in this process, after the plugin's rebuild was timed. */
let shadow;
async function shadowRebuild(kind, listed) {
  if (!shadow) return;
  const t = performance.now();
  const built = shadow.build(manifest, listed ? { changedFiles: [kind === 'routine' ? routineFile : codeFile] } : {});
  compilerSamples[kind].push(performance.now() - t);
  if (!built.ok) throw new Error('the second compiler failed');
}
async function startShadow() {
  const { createCompiler } = await import(pathToFileURL(path.join(ROOT, 'packages/compiler/dist/index.js')).href);
  shadow = createCompiler();
  return shadow.build(manifest);
}
const kinds = mode === 'esbuild-js' ? ['code'] : ['routine', 'code'];
const result = { mode, initialMs: 0, routine: samples.routine, code: samples.code, extra: {} };
const paths = floor ? watchedPaths(pkgDir) : undefined;
if (paths) result.extra.watched = { files: paths.files.length, directories: paths.directories.length };

/**
 * The edit loop of a watcher. `watcher.next()` resolves at the end of the next build that started
 * after `watcher.arm()` (an Error when it failed), so a late build of the previous edit is not
 * taken for this one's; a plugin's edit must write a new bundle, a floor's only end a build.
 */
async function watchLoop(watcher, settleMs) {
  Object.assign(result.extra, { cpuMs: cpuSamples, minorFaults: faultSamples });
  let t = performance.now();
  // The first build may have started before the listener was attached (Vite's `build` starts it).
  watcher.arm(true);
  let outcome = await watcher.next();
  result.initialMs = performance.now() - t;
  if (outcome instanceof Error) throw outcome;
  // Watchers register paths asynchronously after a build ends (chokidar, watchpack).
  await sleep(300);
  for (let i = 0; i < edits; i++) {
    for (const kind of kinds) {
      const before = bundleNames();
      const done = watcher.next();
      watcher.arm();
      hookMs = 0;
      const cpu = process.cpuUsage();
      const faults = process.resourceUsage().minorPageFault;
      edit(kind);
      t = performance.now();
      outcome = await done;
      samples[kind].push(performance.now() - t);
      const used = process.cpuUsage(cpu);
      cpuSamples[kind].push((used.user + used.system) / 1000);
      faultSamples[kind].push(process.resourceUsage().minorPageFault - faults);
      hookSamples[kind].push(hookMs);
      if (outcome instanceof Error) throw outcome;
      if (!floor && !noEmit && [...bundleNames()].every((f) => before.has(f))) throw new Error(`the ${kind} edit wrote no new bundle`);
      await shadowRebuild(kind, true);
      await sleep(settleMs);
    }
  }
}

/** A plugin emitting an asset of the bundle's size under a new name each build, as an edit renames the bundle. */
function assetOfBundleSize(bundle) {
  const bytes = new Uint8Array(bundle.bytes.length).fill(0x20);
  let build = 0;
  return {
    name: 'floor-asset',
    buildStart() {
      build += 1;
      this.emitFile({ type: 'asset', fileName: `floor-asset.${build}.json`, source: bytes });
    },
  };
}

/** webpack's or Rspack's floor, also emitting the bundle's parts as a new asset each build (as an edit renames the bundle). */
function webpackAssetOfBundleSize(base, bundle) {
  const parts = (bundle.parts ?? [bundle.bytes]).map((part) => Buffer.alloc(part.byteLength, 0x20));
  let build = 0;
  return {
    name: 'floor-asset',
    apply(compiler) {
      base.apply(compiler);
      const { RawSource, ConcatSource } = compiler.webpack.sources;
      const stage = compiler.webpack.Compilation.PROCESS_ASSETS_STAGE_ADDITIONAL;
      compiler.hooks.thisCompilation.tap('floor-asset', (compilation) =>
        compilation.hooks.processAssets.tap({ name: 'floor-asset', stage }, () => {
          build += 1;
          compilation.emitAsset(`floor-asset.${build}.json`, new ConcatSource(...parts.map((part) => new RawSource(part))));
        }),
      );
    },
  };
}

/** Builds seen through `started` and `ended` (the outcome), for `watchLoop`. */
function buildTracker() {
  let armed = false;
  let started = false;
  let waiting;
  return {
    arm(first = false) {
      armed = true;
      started = first;
    },
    next: () => new Promise((resolve) => (waiting = resolve)),
    started: () => void (armed && (started = true)),
    ended(outcome) {
      if (!started) return;
      armed = started = false;
      const w = waiting;
      waiting = undefined;
      w?.(outcome);
    },
  };
}

/** Rollup's and rolldown's (Vite's) watcher events: START starts a build, END ends it, ERROR fails it. */
function eventsOf(watcher) {
  const builds = buildTracker();
  let failed;
  watcher.on('event', (event) => {
    if (event.result) event.result.close();
    if (event.code === 'START') builds.started();
    if (event.code === 'ERROR') failed = event.error;
    if (event.code === 'END' || (event.code === 'ERROR' && host === 'rollup')) {
      builds.ended(failed ?? event);
      failed = undefined;
    }
  });
  return builds;
}

if (mode === 'compiler' || mode === 'compiler-listed') {
  // compiler-listed: each rebuild gets the edited file as a watcher would report it (BuildOptions.changedFiles).
  const listed = mode === 'compiler-listed';
  const { createCompiler } = await import(pathToFileURL(path.join(ROOT, 'packages/compiler/dist/index.js')).href);
  const compiler = createCompiler();
  let t = performance.now();
  let built = compiler.build(manifest);
  result.initialMs = performance.now() - t;
  if (!built.ok) throw new Error(JSON.stringify(built.diagnostics.slice(0, 3)));
  t = performance.now();
  const again = compiler.build(manifest);
  result.extra.noEditMs = performance.now() - t;
  if (again.bundle.id !== built.bundle.id) throw new Error('a build without an edit changed the id');
  const stats = [];
  for (let i = 0; i < edits; i++) {
    for (const kind of kinds) {
      const before = compiler.stats;
      const previous = built.bundle.id;
      edit(kind);
      t = performance.now();
      built = compiler.build(manifest, listed ? { changedFiles: [kind === 'routine' ? routineFile : codeFile] } : {});
      samples[kind].push(performance.now() - t);
      if (!built.ok || built.bundle.id === previous) throw new Error(`the ${kind} edit did not change the bundle`);
      const after = compiler.stats;
      stats.push({ kind, ...Object.fromEntries(Object.keys(after).map((k) => [k, after[k] - before[k]])) });
    }
  }
  result.extra.statsPerEdit = stats.slice(0, kinds.length);
} else if (host === 'rollup') {
  const { watch } = await import('rollup');
  const plugins = [floor ? rollupFloor(paths) : timeHooks((await plugin('rollup'))())];
  if (!floor) await startShadow();
  const watcher = watch({ input: entry, plugins, output: { dir: outDir, format: 'es' }, logLevel: 'silent', watch: { buildDelay: 0 } });
  await watchLoop(eventsOf(watcher), 100);
  await watcher.close();
} else if (host === 'vite') {
  const { build } = await import('vite');
  const plugins = [floor ? rollupFloor(paths) : timeHooks((await plugin('rollup'))())];
  if (floor && withAsset) plugins.push(assetOfBundleSize((await startShadow()).bundle));
  else if (!floor) await startShadow();
  shadow = floor ? undefined : shadow;
  const watcher = await build({
    root: path.dirname(entry),
    configFile: false,
    logLevel: 'silent',
    plugins,
    build: {
      outDir,
      emptyOutDir: false,
      minify: false,
      watch: { buildDelay: 0 },
      rolldownOptions: { input: entry, preserveEntrySignatures: 'strict', output: { entryFileNames: '[name].js' } },
    },
  });
  await watchLoop(eventsOf(watcher), 100);
  await watcher.close();
} else if (host === 'cli') {
  // `berrypack build --watch`, its own watcher and debounce: write → the build's JSON line (the bundle written).
  const child = spawn(process.execPath, [path.join(ROOT, 'packages/cli/bin/berrypack.js'), 'build', manifest, '--watch', '--json', '--out-dir', outDir], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const builds = buildTracker();
  let buffer = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    buffer += chunk;
    for (let at = buffer.indexOf('\n'); at >= 0; at = buffer.indexOf('\n')) {
      const line = buffer.slice(0, at);
      buffer = buffer.slice(at + 1);
      builds.started();
      builds.ended(JSON.parse(line).ok === true ? line : new Error(line));
    }
  });
  try {
    await watchLoop(builds, 100);
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
  // The watcher is another process: this one's CPU and page faults say nothing about it.
  delete result.extra.cpuMs;
  delete result.extra.minorFaults;
} else if (host === 'webpack' || host === 'rspack') {
  const create = await hostCompiler(host);
  const floorPlugin = floor && withAsset ? webpackAssetOfBundleSize(webpackFloor(paths), (await startShadow()).bundle) : webpackFloor(paths);
  const plugins = [floor ? floorPlugin : timeWebpackHooks((await plugin('webpack'))(noEmit ? { emit: false } : {}))];
  if (!floor) await startShadow();
  shadow = floor ? undefined : shadow;
  const compiler = create(webpackConfig(entry, outDir, plugins, 'development'));
  const builds = buildTracker();
  compiler.hooks.watchRun.tap('bench', () => builds.started());
  const watching = compiler.watch({ aggregateTimeout: 5 }, (error, stats) => {
    if (error) builds.ended(error);
    else if (stats.hasErrors()) builds.ended(new Error(stats.toString({ all: false, errors: true })));
    else builds.ended(stats);
  });
  await watchLoop(builds, 150);
  await new Promise((resolve) => watching.close(() => compiler.close(() => resolve())));
} else {
  const esbuild = await import('esbuild');
  const plugins = mode === 'esbuild-plugin' ? [timeHooks((await plugin('esbuild'))())] : floor ? [esbuildFloor(paths)] : [];
  if (mode === 'esbuild-plugin') await startShadow();
  const input = mode === 'esbuild-js' ? path.join(jsDir, 'entry.js') : entry;
  const outfile = path.join(outDir, 'entry.js');
  let t = performance.now();
  const ctx = await esbuild.context({ entryPoints: [input], bundle: true, format: 'esm', outdir: outDir, plugins, logLevel: 'silent' });
  await ctx.rebuild();
  result.initialMs = performance.now() - t;
  for (let i = 0; i < edits; i++) {
    for (const kind of kinds) {
      const before = mode === 'esbuild-plugin' ? bundleNames() : undefined;
      const marker = edit(kind);
      t = performance.now();
      hookMs = 0;
      const r = await ctx.rebuild();
      samples[kind].push(performance.now() - t);
      hookSamples[kind].push(hookMs);
      // esbuild reports no changed files, but its plugin takes them from its own file watches
      // from a context's third build on: this compiler is given the edited file too.
      await shadowRebuild(kind, true);
      if (r.errors.length > 0) throw new Error(JSON.stringify(r.errors));
      const changed = floor || (before ? [...bundleNames()].some((f) => !before.has(f)) : readFileSync(outfile, 'utf8').includes(marker));
      if (!changed) throw new Error(`the ${kind} edit did not reach the output`);
    }
  }
  await ctx.dispose();
  await esbuild.stop?.();
}
if (!existsSync(outDir)) throw new Error('no output');
if (shadow) Object.assign(result.extra, { hookMs: hookSamples, compilerMs: compilerSamples });
// What the session left in the out dir: one bundle per package where the plugin hands the superseded one over.
if (!floor && mode !== 'esbuild-js' && !mode.startsWith('compiler')) result.extra.bundlesLeft = bundleNames().size;
process.stdout.write(JSON.stringify(result) + '\n');
