#!/usr/bin/env node
// Bundles the CLI and the compiler into dist/berrypack.mjs, which the bin shim loads when it is
// at least as new as dist/index.js: one file instead of about 130 ES modules saves some 40 ms of
// every `berrypack` run on Node 20 (no compile cache), a tenth of a cold build of 1,000 routines
// (docs/performance.md). Third-party packages and the runtime (its sandbox worker is a file of
// its own) stay external, so they resolve from node_modules as before.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const dir = fileURLToPath(new URL('..', import.meta.url));
const manifest = (p) => JSON.parse(readFileSync(new URL(p, import.meta.url), 'utf8'));
const compiler = manifest('../../compiler/package.json');
const external = ['@berrypack/runtime', ...Object.keys(compiler.dependencies ?? {})];

await build({
  absWorkingDir: dir,
  entryPoints: ['dist/index.js'],
  outfile: 'dist/berrypack.mjs',
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external,
  // Deterministic and readable: a stack trace of the bundle still names the functions.
  minify: false,
  legalComments: 'none',
  logLevel: 'warning',
});
