import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseCatalog, type CompilerOptions } from '@berrypack/compiler';
import { stringOption, type ParsedArgs } from '../options.js';
import { UsageError } from '../usage-error.js';

export { COMPILER_OPTIONS } from '../option-specs.js';
export { resolveManifestArg } from '../manifest-arg.js';

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
