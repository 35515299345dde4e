#!/usr/bin/env node
// Bundles the CLI and the compiler into dist/bundle/ (berrypack.js and the chunks of the commands
// it loads lazily), which the bin shim loads when it is at least as new as dist/index.js: a few
// files instead of about 130 ES modules. Splitting keeps each command's imports with it, so
// `build` never loads the runtime. Third-party packages and the runtime (its sandbox worker is a
// file of its own) stay external, so they resolve from node_modules as before.
import { readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const dir = fileURLToPath(new URL('..', import.meta.url));
const manifest = (p) => JSON.parse(readFileSync(new URL(p, import.meta.url), 'utf8'));
const compiler = manifest('../../compiler/package.json');
const external = ['@berrypack/runtime', ...Object.keys(compiler.dependencies ?? {})];

// Old chunks would pile up: their names carry their content's hash.
rmSync(new URL('../dist/bundle', import.meta.url), { recursive: true, force: true });

await build({
  absWorkingDir: dir,
  entryPoints: { berrypack: 'dist/index.js' },
  outdir: 'dist/bundle',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external,
  // Deterministic and readable: a stack trace of the bundle still names the functions.
  minify: false,
  legalComments: 'none',
  logLevel: 'warning',
});
