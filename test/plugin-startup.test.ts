// When the bundler plugins load the compiler (issue #21, round four): `@berrypack/esbuild`,
// `@berrypack/rollup` and `@berrypack/webpack` import the compiler's main entry when a build
// needs it, not when the plugin is imported, so it loads while the host starts (esbuild's
// service, Vite's config, rolldown's threads, Rspack's native side). Each case runs the built dist/ in a child process with
// test/support/module-log.mjs preloaded, which lists every module it loads; the script writes
// its own markers into the same list.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePackage } from '../bench/generate.mjs';
import { ROOT } from './support/cli.js';
import { cleanup, tempDir } from './support/temp.js';

let dir: string;
let entry: string;
beforeAll(() => {
  dir = tempDir('berrypack-plugin-startup-');
  generatePackage(path.join(dir, 'pkg'), 5);
  entry = path.join(dir, 'entry.js');
  writeFileSync(entry, `import pkg from ${JSON.stringify(path.join(dir, 'pkg', 'plugin.json'))};\nexport default pkg;\n`);
});
afterAll(() => cleanup(dir));

const COMPILER_MAIN = '/packages/compiler/dist/index.js';
const url = (file: string) => JSON.stringify(pathToFileURL(file).href);
const resolveFrom = (pkg: string, name: string) => createRequire(path.join(ROOT, 'packages', pkg, 'package.json')).resolve(name);

/** Runs `body` (an ES module script that may call `note(marker)`) and returns the log split at the markers. */
function run(name: string, body: string): { phases: Record<string, string[]>; out: string; status: number | null } {
  const log = path.join(dir, `${name}.log`);
  const script = path.join(dir, `${name}.mjs`);
  writeFileSync(log, '');
  writeFileSync(
    script,
    `import { appendFileSync } from 'node:fs';\nconst note = (marker) => appendFileSync(${JSON.stringify(log)}, '-- ' + marker + '\\n');\n${body}`,
  );
  const result = spawnSync(process.execPath, ['--import', path.join(ROOT, 'test/support/module-log.mjs'), script], {
    cwd: dir,
    env: { ...process.env, BERRYPACK_MODULE_LOG: log, NO_COLOR: '1' },
    encoding: 'utf8',
    timeout: 120_000,
  });
  const phases: Record<string, string[]> = {};
  let current = 'start';
  for (const line of readFileSync(log, 'utf8').split('\n').filter(Boolean)) {
    if (line.startsWith('-- ')) current = line.slice(3);
    else (phases[current] ??= []).push(line);
  }
  return { phases, out: `${result.stdout}${result.stderr}`, status: result.status };
}

const loadsCompiler = (modules: string[] | undefined) => (modules ?? []).some((m) => m.endsWith(COMPILER_MAIN));
/** Modules of the include/exclude filter (and `also`) loaded in any phase: none without patterns. */
const filterModules = (phases: Record<string, string[]>, also?: RegExp) =>
  Object.values(phases)
    .flat()
    .filter((m) => /[\\/]node_modules[\\/](@rollup[\\/]pluginutils|picomatch)[\\/]/.test(m) || also?.test(m));

describe('the plugins import the compiler when a build needs it', () => {
  it('@berrypack/esbuild: not on import nor when the plugin is made; during the build, which writes the bundle', () => {
    const outdir = path.join(dir, 'out-esbuild');
    const { phases, out, status } = run(
      'esbuild',
      `const { default: berrypack } = await import(${url(path.join(ROOT, 'packages/esbuild/dist/index.js'))});
const esbuild = await import(${url(resolveFrom('esbuild', 'esbuild'))});
note('imported');
const plugin = berrypack();
note('made');
const result = await esbuild.build({ entryPoints: [${JSON.stringify(entry)}], bundle: true, format: 'esm', outdir: ${JSON.stringify(outdir)}, plugins: [plugin], logLevel: 'silent' });
note('built');
await esbuild.stop?.();
if (result.errors.length > 0) process.exit(1);
`,
    );
    expect(status, out).toBe(0);
    expect(loadsCompiler(phases.start)).toBe(false);
    // Its adapter seam (options, messages) is loaded: the factory checks options at once.
    expect((phases.start ?? []).some((m) => m.endsWith('/packages/compiler/dist/internal-adapter.js'))).toBe(true);
    // Without include/exclude patterns the filter needs neither @rollup/pluginutils nor picomatch.
    expect(filterModules(phases)).toEqual([]);
    expect(loadsCompiler(phases.imported)).toBe(false);
    expect(loadsCompiler(phases.made)).toBe(true);
    expect(readdirSync(outdir).filter((f) => f.endsWith('.berry.json'))).toHaveLength(1);
  });

  it('@berrypack/rollup: not on import; from the factory on, and a Rollup build writes the bundle', () => {
    const outdir = path.join(dir, 'out-rollup');
    const { phases, out, status } = run(
      'rollup',
      `const { default: berrypack } = await import(${url(path.join(ROOT, 'packages/rollup/dist/index.js'))});
const { rollup } = await import(${url(resolveFrom('rollup', 'rollup'))});
note('imported');
const bundle = await rollup({ input: ${JSON.stringify(entry)}, plugins: [berrypack()], logLevel: 'silent' });
await bundle.write({ dir: ${JSON.stringify(outdir)}, format: 'es' });
await bundle.close();
note('built');
`,
    );
    expect(status, out).toBe(0);
    expect(loadsCompiler(phases.start)).toBe(false);
    expect(loadsCompiler(phases.imported)).toBe(true);
    // Without include/exclude patterns the filter needs neither @rollup/pluginutils nor picomatch,
    // and a build needs nothing of the dev server.
    expect(filterModules(phases, /[\\/]dev-server\.js$/)).toEqual([]);
    expect(existsSync(outdir) && readdirSync(outdir).filter((f) => f.endsWith('.berry.json'))).toHaveLength(1);
  });

  it.each(['webpack', 'rspack'])('@berrypack/webpack with %s: not on import; from the factory on, and the build writes the bundle', (host) => {
    const outdir = path.join(dir, `out-${host}`);
    const factory =
      host === 'webpack'
        ? `(await import(${url(resolveFrom('webpack', 'webpack'))})).default`
        : `(await import(${url(resolveFrom('webpack', '@rspack/core'))})).rspack`;
    const { phases, out, status } = run(
      host,
      `const { default: berrypack } = await import(${url(path.join(ROOT, 'packages/webpack/dist/index.js'))});
note('imported');
const plugin = berrypack();
note('made');
const compile = ${factory};
const compiler = compile({ mode: 'production', context: ${JSON.stringify(dir)}, entry: ${JSON.stringify(entry)}, target: 'node', devtool: false, output: { path: ${JSON.stringify(outdir)}, library: { type: 'commonjs2' } }, optimization: { minimize: false }, infrastructureLogging: { level: 'none' }, stats: 'none', plugins: [plugin] });
const stats = await new Promise((resolve, reject) => compiler.run((error, result) => (error ? reject(error) : resolve(result))));
await new Promise((resolve) => compiler.close(resolve));
note('built');
if (stats.hasErrors()) { console.log(stats.toString('errors-only')); process.exit(1); }
`,
    );
    expect(status, out).toBe(0);
    expect(loadsCompiler(phases.start)).toBe(false);
    expect((phases.start ?? []).some((m) => m.endsWith('/packages/compiler/dist/internal-adapter.js'))).toBe(true);
    expect(loadsCompiler([...(phases.imported ?? []), ...(phases.made ?? [])])).toBe(true);
    expect(filterModules(phases)).toEqual([]);
    expect(readdirSync(outdir).filter((f) => f.endsWith('.berry.json'))).toHaveLength(1);
  });

  it('still checks options in the factory, before the compiler loads', () => {
    const { out, status } = run(
      'bad-option',
      `const { default: berrypack } = await import(${url(path.join(ROOT, 'packages/esbuild/dist/index.js'))});
try { berrypack({ strict: 'yes' }); } catch (error) { console.log('threw', error.message); }
`,
    );
    expect(status, out).toBe(0);
    expect(out).toContain('threw Unexpected type string for option `strict`, expected a boolean');
  });
});
