import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseCatalog, type Catalog } from '@berrypack/compiler';
import type { FilterPattern } from './filter.js';

export type { FilterPattern };

/** Options of `berrypack()`; the same as the Rollup adapter's. */
export interface Options {
  /**
   * Imports to claim (globs resolve against the current directory, or RegExps, tested on
   * absolute paths with `/`). When set, a matching `plugin.json` is claimed even without the
   * `ai.strawberry.berry` extension, so the compiler reports what is missing.
   * @default undefined: every `plugin.json` carrying the `ai.strawberry.berry` extension and
   * every `.md` below such a manifest; any other `.json` or `.md` is left to esbuild and other plugins
   */
  include?: FilterPattern | undefined;
  /**
   * Imports never to claim; checked before `include`.
   * @default undefined
   */
  exclude?: FilterPattern | undefined;
  /**
   * Model and tool catalog (`{models, tools}`, see CONTRACTS.md), or the path of a JSON file
   * holding one (read once, when the plugin is created).
   * @default undefined: model settings are checked at preparation, external tools must be in `requires`
   */
  catalog?: Catalog | string | undefined;
  /**
   * Content store for `root` imports.
   * @default 'node_modules/.cache/berrypack/store' under the current directory
   */
  store?: string | undefined;
  /**
   * Write the bundle (and its resource blobs) to `outdir`, or beside `outfile`.
   * @default true
   */
  emit?: boolean | undefined;
  /**
   * Report warnings as errors, failing the build.
   * @default false
   */
  strict?: boolean | undefined;
  /**
   * Also export each field of the module by name, besides the default export.
   * @default false
   */
  namedExports?: boolean | undefined;
}

export interface ResolvedOptions {
  include: FilterPattern | undefined;
  exclude: FilterPattern | undefined;
  catalog: Catalog | undefined;
  store: string | undefined;
  emit: boolean;
  strict: boolean;
  namedExports: boolean;
}

const KEYS = ['include', 'exclude', 'catalog', 'store', 'emit', 'strict', 'namedExports'];

/** Checks the options when the plugin is created, so a mistake fails before any build. */
export function resolveOptions(options: unknown, cwd = process.cwd()): ResolvedOptions {
  if (options === undefined || options === null) options = {};
  if (typeof options !== 'object' || Array.isArray(options)) {
    throw new Error(`Unexpected options ${describe(options)}, expected an object`);
  }
  const o = options as Record<string, unknown>;
  for (const key of Object.keys(o)) {
    if (!KEYS.includes(key)) throw new Error(`Unexpected option \`${key}\`, expected one of ${KEYS.map((k) => `\`${k}\``).join(', ')}`);
  }
  return {
    include: filterPattern(o, 'include'),
    exclude: filterPattern(o, 'exclude'),
    catalog: catalog(o.catalog, cwd),
    store: o.store === undefined ? undefined : nonEmptyString(o.store, 'store'),
    emit: boolean(o, 'emit', true),
    strict: boolean(o, 'strict', false),
    namedExports: boolean(o, 'namedExports', false),
  };
}

function filterPattern(o: Record<string, unknown>, key: string): FilterPattern | undefined {
  const value = o[key];
  if (value === undefined || value === null) return undefined;
  const ok = (v: unknown) => typeof v === 'string' || v instanceof RegExp;
  if (ok(value) || (Array.isArray(value) && value.every(ok))) return value as FilterPattern;
  throw new Error(`Unexpected \`${key}\` ${describe(value)}, expected a glob, a RegExp or a list of them`);
}

function catalog(value: unknown, cwd: string): Catalog | undefined {
  if (value === undefined) return undefined;
  let document = value;
  if (typeof value === 'string') {
    const file = path.resolve(cwd, value);
    try {
      document = JSON.parse(readFileSync(file, 'utf8'));
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message.split('\n')[0];
      throw new Error(`Unexpected \`catalog\` ${value}: ${reason}, expected a readable JSON file`);
    }
  } else if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`Unexpected \`catalog\` ${describe(value)}, expected an object or the path of a JSON file`);
  }
  const parsed = parseCatalog(document);
  if (!parsed.ok) throw new Error(`Unexpected \`catalog\`: ${parsed.message}`);
  return parsed.catalog;
}

function nonEmptyString(value: unknown, key: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw new Error(`Unexpected \`${key}\` ${describe(value)}, expected a nonempty path`);
  return value;
}

function boolean(o: Record<string, unknown>, key: string, fallback: boolean): boolean {
  const value = o[key];
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw new Error(`Unexpected \`${key}\` ${describe(value)}, expected a boolean`);
  return value;
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  return typeof value === 'object' && value !== null ? 'object' : (JSON.stringify(value) ?? typeof value);
}
