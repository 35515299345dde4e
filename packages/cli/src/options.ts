import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { OutputFormat } from './output/report.js';
import { UsageError } from './usage-error.js';

export const COMMON_OPTIONS = {
  json: { type: 'boolean' },
  format: { type: 'string' },
  'max-warnings': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

export interface ParsedArgs {
  values: Record<string, string | boolean | string[] | boolean[] | undefined>;
  positionals: string[];
}

export function parse(args: string[], options: NonNullable<ParseArgsConfig['options']>): ParsedArgs {
  try {
    const { values, positionals } = parseArgs({ args, options: { ...COMMON_OPTIONS, ...options }, allowPositionals: true, strict: true });
    return { values, positionals };
  } catch (error) {
    throw new UsageError((error as Error).message.split('\n')[0]);
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
