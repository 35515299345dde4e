import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseCatalog, type CompilerOptions } from '@berrypack/compiler';
import { stringOption, type ParsedArgs } from '../options.js';
import { UsageError } from '../usage-error.js';

export const COMPILER_OPTIONS = {
  catalog: { type: 'string' },
  store: { type: 'string' },
} as const;

export function compilerOptions(cwd: string, values: ParsedArgs['values']): CompilerOptions {
  const options: CompilerOptions = {};
  const catalog = stringOption(values, 'catalog');
  if (catalog !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(path.resolve(cwd, catalog), 'utf8'));
    } catch (error) {
      throw new UsageError(`Unexpected --catalog ${catalog}: ${(error as Error).message.split('\n')[0]}`);
    }
    const result = parseCatalog(parsed);
    if (!result.ok) throw new UsageError(`Unexpected --catalog ${catalog}: ${result.message}`);
    options.catalog = result.catalog;
  }
  const store = stringOption(values, 'store');
  options.store = path.resolve(cwd, store ?? 'node_modules/.cache/berrypack/store');
  return options;
}

/** A plugin.json, or a directory holding one. */
export function resolveManifestArg(cwd: string, arg: string): string {
  const target = path.resolve(cwd, arg);
  let stat;
  try {
    stat = statSync(target);
  } catch {
    throw new UsageError(`Unexpected MANIFEST ${arg}: no such file or directory`);
  }
  if (stat.isDirectory()) {
    const inside = path.join(target, 'plugin.json');
    try {
      if (statSync(inside).isFile()) return inside;
    } catch {
      // fall through to the usage error
    }
    throw new UsageError(`Unexpected MANIFEST ${arg}: the directory holds no plugin.json`);
  }
  if (path.basename(target) !== 'plugin.json') throw new UsageError(`Unexpected MANIFEST ${arg}, expected a plugin.json or a directory holding one`);
  return target;
}
