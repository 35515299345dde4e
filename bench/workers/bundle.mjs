// One cold bundler build in this (fresh) process, so the driver's wall time counts process start
// and module loading as it does for `berrypack build` and the floor.
//   node bench/workers/bundle.mjs TOOL ENTRY OUT_DIR
// TOOL: rollup-plugin | vite-plugin | esbuild-plugin | webpack-plugin | rspack-plugin (ENTRY imports
//       the package's plugin.json)
//       rollup-floor | vite-floor | esbuild-floor | webpack-floor | rspack-floor (the same host
//       build with a do-nothing plugin that turns plugin.json into a one-line module: what the
//       host costs without berrypack)
//       esbuild-js | rollup-js (ENTRY is the JS mirror's entry.js)
// Prints one JSON line: {tool, importMs, buildMs, outputs}.
import path from 'node:path';
import { esbuildFloor, rollupFloor, webpackFloor } from '../lib/floor-plugins.mjs';
import { hostCompiler, webpackConfig } from '../lib/webpack-config.mjs';

const [tool, entry, outDir] = process.argv.slice(2);
const t0 = performance.now();
let importMs;
let outputs = 0;

// A floor registers no paths: a cold build watches nothing, and a cacheable module with 1,021
// dependencies would have webpack hash them all in production.
const NO_PATHS = { files: [], directories: [] };

async function plugin(pkg) {
  // As users load it: the package's entry.
  return (await import(`@berrypack/${pkg}`)).default;
}

switch (tool) {
  case 'rollup-plugin':
  case 'rollup-floor':
  case 'rollup-js': {
    const { rollup } = await import('rollup');
    const plugins = tool === 'rollup-plugin' ? [(await plugin('rollup'))()] : tool === 'rollup-floor' ? [rollupFloor(NO_PATHS)] : [];
    importMs = performance.now() - t0;
    const bundle = await rollup({ input: entry, plugins, logLevel: 'silent' });
    const written = await bundle.write({ dir: outDir, format: 'es' });
    await bundle.close();
    outputs = written.output.length;
    break;
  }
  case 'vite-plugin':
  case 'vite-floor': {
    const { build } = await import('vite');
    const berrypack = tool === 'vite-floor' ? () => rollupFloor(NO_PATHS) : await plugin('rollup');
    importMs = performance.now() - t0;
    const result = await build({
      root: path.dirname(entry),
      configFile: false,
      logLevel: 'silent',
      plugins: [berrypack()],
      build: {
        outDir,
        emptyOutDir: true,
        minify: false,
        rolldownOptions: { input: entry, preserveEntrySignatures: 'strict', output: { entryFileNames: '[name].js' } },
      },
    });
    outputs = [result].flat().reduce((sum, r) => sum + (r.output?.length ?? 0), 0);
    break;
  }
  case 'esbuild-plugin':
  case 'esbuild-floor':
  case 'esbuild-js': {
    const esbuild = await import('esbuild');
    const plugins = tool === 'esbuild-plugin' ? [(await plugin('esbuild'))()] : tool === 'esbuild-floor' ? [esbuildFloor(NO_PATHS)] : [];
    importMs = performance.now() - t0;
    const result = await esbuild.build({ entryPoints: [entry], bundle: true, format: 'esm', outdir: outDir, plugins, logLevel: 'silent', metafile: true });
    if (result.errors.length > 0) throw new Error(JSON.stringify(result.errors));
    outputs = Object.keys(result.metafile.outputs).length;
    await esbuild.stop?.();
    break;
  }
  case 'webpack-plugin':
  case 'rspack-plugin':
  case 'webpack-floor':
  case 'rspack-floor': {
    const create = await hostCompiler(tool.startsWith('webpack') ? 'webpack' : 'rspack');
    const plugins = tool.endsWith('-floor') ? [webpackFloor(NO_PATHS)] : [(await plugin('webpack'))()];
    importMs = performance.now() - t0;
    const compiler = create(webpackConfig(entry, outDir, plugins, 'production'));
    const stats = await new Promise((resolve, reject) => compiler.run((error, s) => (error ? reject(error) : resolve(s))));
    if (stats.hasErrors()) throw new Error(stats.toString({ all: false, errors: true }));
    outputs = Object.keys(stats.compilation.assets).length;
    await new Promise((resolve) => compiler.close(() => resolve()));
    break;
  }
  default:
    throw new Error(`Unexpected tool ${tool}`);
}
if (outputs === 0) throw new Error(`${tool} wrote no output`);
process.stdout.write(JSON.stringify({ tool, importMs, buildMs: performance.now() - t0 - importMs, outputs }) + '\n');
