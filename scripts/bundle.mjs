#!/usr/bin/env node
// Bundles what runs in a fresh process after `tsc --build` (run by `npm run build`, `npm test`
// and `prepare`): one module graph of about 130 files costs some 40 ms to load on Node 20, which
// has no compile cache. Each bundle goes to its package's dist/bundle/, and a small entry loads
// it only when it is at least as new as dist/index.js, so a `tsc --build` without this step
// never runs stale code.
// - the CLI (packages/cli/dist/bundle/berrypack.js): the compiler inlined, a chunk per command
//   (splitting keeps each command's imports with it, so `build` never loads the runtime);
// - the Rollup and esbuild plugins (packages/*/dist/bundle/index.js): the compiler inlined.
// Third-party packages and the runtime (its sandbox worker is a file of its own) stay external.
//   node scripts/bundle.mjs [cli|rollup|esbuild …]   (default: all)
import { readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const deps = (pkg) => {
  const m = JSON.parse(readFileSync(new URL(`../packages/${pkg}/package.json`, import.meta.url), 'utf8'));
  return [...Object.keys(m.dependencies ?? {}), ...Object.keys(m.peerDependencies ?? {})].filter((d) => d !== '@berrypack/compiler');
};
const compilerDeps = deps('compiler');

const TARGETS = {
  cli: { entryPoints: { berrypack: 'dist/index.js' }, splitting: true, external: [...compilerDeps, ...deps('cli')] },
  rollup: { entryPoints: { index: 'dist/index.js' }, splitting: false, external: [...compilerDeps, ...deps('rollup')] },
  esbuild: { entryPoints: { index: 'dist/index.js' }, splitting: false, external: [...compilerDeps, ...deps('esbuild')] },
};

const wanted = process.argv.slice(2);
for (const [pkg, target] of Object.entries(TARGETS)) {
  if (wanted.length > 0 && !wanted.includes(pkg)) continue;
  const dir = `${ROOT}packages/${pkg}`;
  // Old chunks would pile up: their names carry their content's hash.
  rmSync(`${dir}/dist/bundle`, { recursive: true, force: true });
  await build({
    absWorkingDir: dir,
    ...target,
    outdir: 'dist/bundle',
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // Readable: a stack trace of the bundle still names the functions.
    minify: false,
    legalComments: 'none',
    logLevel: 'warning',
  });
}
