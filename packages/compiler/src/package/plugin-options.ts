import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseCatalog, type Catalog } from './catalog.js';
import type { CompilerOptions } from './types.js';

/** A glob, a RegExp, or a list of them; the shape `@rollup/pluginutils`' `createFilter` takes. */
export type FilterPattern = ReadonlyArray<string | RegExp> | string | RegExp | null;

/** An adapter's include/exclude test on a module id. */
export type IdFilter = (id: unknown) => boolean;

const noPattern = (pattern: FilterPattern | undefined) => pattern === undefined || pattern === null || (Array.isArray(pattern) && pattern.length === 0);

/**
 * The include/exclude filter when neither has a pattern, else undefined (the adapter then makes
 * it with `@rollup/pluginutils`' `createFilter`). Without patterns that filter only refuses what
 * is not a string or is a virtual id (`\0`), and its module (with picomatch and estree-walker)
 * costs about 30 ms of a build's start-up to load, so it is loaded only when there are patterns.
 */
export function filterWithoutPatterns(include: FilterPattern | undefined, exclude: FilterPattern | undefined): IdFilter | undefined {
  return noPattern(include) && noPattern(exclude) ? (id) => typeof id === 'string' && !id.includes('\0') : undefined;
}

/** Options of every bundler plugin (`@berrypack/rollup`, `@berrypack/esbuild`): the same names, defaults and messages. */
export interface PluginOptions {
  /**
   * Picomatch globs or regular expressions for the imports this plugin may claim, tested on
   * absolute paths with `/` separators (globs not starting with `**` resolve against the
   * current directory).
   * @default undefined: every `plugin.json` carrying the `ai.strawberry.berry` extension and
   * every `.md` inside such a package is a candidate; any other `.json` or `.md` import is left
   * to the bundler and other plugins
   */
  include?: FilterPattern | undefined;
  /**
   * Picomatch globs or regular expressions for imports never to claim, checked before `include`
   * (for example `/README\.md$/` to hand a package's documentation to a Markdown plugin).
   * @default undefined
   */
  exclude?: FilterPattern | undefined;
  /**
   * The receiving build's model and tool catalog: an object `{models, tools}` (CONTRACTS.md) or
   * the path of a catalog JSON file (relative to the current directory, read once when the
   * plugin is created).
   * @default undefined: model checks (MDL-6) are deferred to preparation and external tool
   * names must be listed in `requires` (TOOL-6)
   */
  catalog?: Catalog | string | undefined;
  /**
   * Content store directory that `root` imports are resolved from (relative to the current directory).
   * @default 'node_modules/.cache/berrypack/store' under the current directory
   */
  store?: string | undefined;
  /**
   * Emit the bundle and its resource blobs with the build's output; with `false` nothing is
   * written or served.
   * @default true
   */
  emit?: boolean | undefined;
  /**
   * Fail the build on warnings, as on errors.
   * @default false
   */
  strict?: boolean | undefined;
  /**
   * Also export each field of the module's descriptor by name (`import { id } from …`), besides
   * the default export.
   * @default false
   */
  namedExports?: boolean | undefined;
}

/** Checked options with the defaults filled in; `compiler` is ready for `createCompiler`. */
export interface ResolvedPluginOptions {
  include: FilterPattern | undefined;
  exclude: FilterPattern | undefined;
  compiler: CompilerOptions;
  emit: boolean;
  strict: boolean;
  namedExports: boolean;
}

const NAMES = ['include', 'exclude', 'catalog', 'store', 'emit', 'strict', 'namedExports'];

/**
 * Checks the options a user passed to a plugin factory, so a mistake fails before any build;
 * throws with a message naming the first problem. `undefined` and `null` mean "not given".
 */
export function resolvePluginOptions(options: unknown, cwd: string = process.cwd()): ResolvedPluginOptions {
  if (options === undefined || options === null) options = {};
  if (typeof options !== 'object' || Array.isArray(options)) {
    throw new Error(`Unexpected options of type ${typeName(options)}, expected an object`);
  }
  const given = options as Record<string, unknown>;
  for (const name of Object.keys(given)) {
    if (!NAMES.includes(name)) throw new Error(`Unexpected option \`${name}\`, expected one of ${NAMES.map((n) => `\`${n}\``).join(', ')}`);
  }
  const compiler: CompilerOptions = {};
  const catalog = given.catalog;
  if (catalog !== undefined && catalog !== null) compiler.catalog = loadCatalog(catalog, cwd);
  const store = given.store;
  if (store !== undefined && store !== null) {
    if (typeof store !== 'string') throw wrongType('store', store, 'a directory path');
    // A blank path would silently put the store in the current directory itself.
    if (store.trim() === '') throw new Error('Unexpected blank string for option `store`, expected a directory path');
    compiler.store = path.resolve(cwd, store);
  }
  return {
    include: filterPattern(given, 'include'),
    exclude: filterPattern(given, 'exclude'),
    compiler,
    emit: flag(given, 'emit', true),
    strict: flag(given, 'strict', false),
    namedExports: flag(given, 'namedExports', false),
  };
}

function loadCatalog(value: unknown, cwd: string): Catalog {
  let parsed = value;
  let where = '';
  if (typeof value === 'string') {
    where = ` (${value})`;
    try {
      parsed = JSON.parse(readFileSync(path.resolve(cwd, value), 'utf8'));
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message.split('\n')[0];
      throw new Error(`Invalid option \`catalog\`${where}: ${reason}`);
    }
  } else if (typeof value !== 'object' || Array.isArray(value)) {
    throw wrongType('catalog', value, 'a catalog object or the path of a catalog JSON file');
  }
  const result = parseCatalog(parsed);
  if (!result.ok) throw new Error(`Invalid option \`catalog\`${where}: ${result.message}`);
  return result.catalog;
}

function filterPattern(options: Record<string, unknown>, name: string): FilterPattern | undefined {
  const value = options[name];
  if (value === undefined || value === null) return undefined;
  const valid = (item: unknown) => typeof item === 'string' || item instanceof RegExp;
  if (valid(value) || (Array.isArray(value) && value.every(valid))) return value;
  throw wrongType(name, value, 'a string, a RegExp or an array of them');
}

function flag(options: Record<string, unknown>, name: string, fallback: boolean): boolean {
  const value = options[name];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'boolean') throw wrongType(name, value, 'a boolean');
  return value;
}

function wrongType(name: string, value: unknown, expected: string): Error {
  return new Error(`Unexpected type ${typeName(value)} for option \`${name}\`, expected ${expected}`);
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}
