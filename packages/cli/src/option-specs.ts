import type { ParseArgsConfig } from 'node:util';

// The option tables of the commands, in a module of their own without imports: the early start
// of `build` (early-build.ts) reads its arguments before the compiler is loaded.

export const COMMON_OPTIONS = {
  json: { type: 'boolean' },
  format: { type: 'string' },
  'max-warnings': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

export const COMPILER_OPTIONS = {
  catalog: { type: 'string' },
  store: { type: 'string' },
} as const satisfies ParseArgsConfig['options'];

export const BUILD_OPTIONS = {
  'out-dir': { type: 'string' },
  version: { type: 'string' },
  watch: { type: 'boolean' },
  'no-cache': { type: 'boolean' },
  parallel: { type: 'boolean' },
  'no-parallel': { type: 'boolean' },
  ...COMPILER_OPTIONS,
} as const satisfies ParseArgsConfig['options'];
