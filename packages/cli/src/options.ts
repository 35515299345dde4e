import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { OutputFormat } from './output/report.js';
import { closest } from '@berrypack/compiler/internal-cli';
import { UsageError } from './usage-error.js';

import { COMMON_OPTIONS } from './option-specs.js';

export { COMMON_OPTIONS };

export interface ParsedArgs {
  values: Record<string, string | boolean | string[] | boolean[] | undefined>;
  positionals: string[];
}

export function parse(args: string[], options: NonNullable<ParseArgsConfig['options']>): ParsedArgs {
  try {
    const { values, positionals } = parseArgs({ args, options: { ...COMMON_OPTIONS, ...options }, allowPositionals: true, strict: true });
    return { values, positionals };
  } catch (error) {
    throw new UsageError(usageMessage(error as Error & { code?: string }, { ...COMMON_OPTIONS, ...options }));
  }
}

export function stringOption(values: ParsedArgs['values'], name: string): string | undefined {
  const v = values[name];
  return typeof v === 'string' ? v : undefined;
}

export function outputFormat(values: ParsedArgs['values']): OutputFormat {
  if (values.json === true) return 'json';
  const f = stringOption(values, 'format') ?? 'text';
  if (f !== 'text' && f !== 'json' && f !== 'github') throw new UsageError(`Unexpected --format ${f}, expected text, json or github`);
  return f;
}

export function maxWarnings(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`Unexpected --max-warnings ${value}, expected a nonnegative integer`);
  return Number(value);
}

/** parseArgs's own words, turned into ours for an unknown option: what it is, what fits, and the likely one. */
function usageMessage(error: Error & { code?: string }, options: NonNullable<ParseArgsConfig['options']>): string {
  const unknown = error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /^Unknown option '([^']+)'/.exec(error.message)?.[1] : undefined;
  if (unknown === undefined) return error.message.split('\n')[0]!;
  const names = Object.keys(options).map((name) => `--${name}`);
  const guess = closest(unknown.replace(/=.*$/, ''), names);
  return `Unexpected option \`${unknown}\`${guess === undefined ? '' : ` (did you mean \`${guess}\`?)`}; run with --help for the options`;
}
