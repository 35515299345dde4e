import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseCatalog, type Catalog, type CompilerOptions } from '@berrypack/compiler';
import type { FilterPattern } from '@rollup/pluginutils';

export type { FilterPattern };

/** Options of `berrypack()`; the same for Rollup, Vite and rolldown. */
export interface Options {
  /**
   * Picomatch globs or regular expressions for the files this plugin may claim (globs not
   * starting with `**` resolve against the current directory). Within them it claims only a
   * `plugin.json` carrying the `ai.strawberry.berry` extension and the `.md` files inside such a
   * package; every other `.json` and `.md` import is left to other plugins.
   * @default undefined (every `plugin.json` and `.md` is a candidate)
   */
  include?: FilterPattern | undefined;
  /**
   * Picomatch globs or regular expressions for files never to claim, checked before `include`
   * (for example `/README\.md$/` to hand a package's documentation to a Markdown plugin).
   * @default undefined
   */
  exclude?: FilterPattern | undefined;
  /**
   * The receiving build's model and tool catalog: an object `{models, tools}` or the path of a
   * catalog JSON file (relative to the current directory). Without one, model checks (MDL-6) are
   * deferred to preparation and external tool names must be listed in `requires` (TOOL-6).
   * @default undefined
   */
  catalog?: Catalog | string | undefined;
  /**
   * Content store directory that `root` imports are resolved from (relative to the current directory).
   * @default 'node_modules/.cache/berrypack/store'
   */
  store?: string | undefined;
  /**
   * Emit the bundle (and its resource blobs) as assets. With `false` nothing is emitted or served
   * and the module's `file` is only the bundle's file name.
   * @default true
   */
  emit?: boolean | undefined;
  /**
   * Fail the build on warnings, as on errors.
   * @default false
   */
  strict?: boolean | undefined;
  /**
   * Also export each field of the module's descriptor by name (`import { id } from …`).
   * @default false
   */
  namedExports?: boolean | undefined;
}

export interface Settings {
  include: FilterPattern | undefined;
  exclude: FilterPattern | undefined;
  compiler: CompilerOptions;
  emit: boolean;
  strict: boolean;
  namedExports: boolean;
}

const NAMES = ['include', 'exclude', 'catalog', 'store', 'emit', 'strict', 'namedExports'];

/** Checks the options a user passed; throws with a message naming the first problem. */
export function validateOptions(options: unknown): Settings {
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
  if (catalog !== undefined && catalog !== null) compiler.catalog = loadCatalog(catalog);
  const store = given.store;
  if (store !== undefined && store !== null) {
    if (typeof store !== 'string') throw wrongType('store', store, 'a directory path');
    compiler.store = path.resolve(store);
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

function loadCatalog(value: unknown): Catalog {
  let parsed = value;
  let where = '';
  if (typeof value === 'string') {
    where = ` (${value})`;
    try {
      parsed = JSON.parse(readFileSync(path.resolve(value), 'utf8'));
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
  if (valid(value) || (Array.isArray(value) && value.every(valid))) return value as FilterPattern;
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
