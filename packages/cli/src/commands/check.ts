import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { checkDirectory, checkSource, hasErrors, type Diagnostic } from '@berrypack/compiler';
import type { CliIo } from '../io.js';
import { maxWarnings, outputFormat, parse, stringOption } from '../options.js';
import { printDiagnostics } from '../output/report.js';
import { UsageError } from '../usage-error.js';

export const CHECK_HELP = `Usage: berrypack check PATH [--json | --format text|json|github] [--max-warnings N]

PATH is a routine .md file, a plugin.json, or a directory (every .md source below it is checked).
Exit 0: no errors; 1: errors (or more warnings than --max-warnings); 2: usage or internal error.
`;

export function checkCommand(args: string[], io: CliIo): number {
  const { values, positionals } = parse(args, {});
  if (values.help) {
    io.stdout.write(CHECK_HELP);
    return 0;
  }
  const format = outputFormat(values);
  const limit = maxWarnings(stringOption(values, 'max-warnings'));
  if (positionals.length !== 1) throw new UsageError(`Unexpected ${positionals.length} paths, expected exactly one PATH (see berrypack check --help)`);
  const target = path.resolve(io.cwd, positionals[0]!);
  const diagnostics = checkPath(target);
  const warnings = diagnostics.filter((d) => d.severity === 'warning').length;
  const ok = !hasErrors(diagnostics) && (limit === undefined || warnings <= limit);
  printDiagnostics(io, format, diagnostics, { ok });
  return ok ? 0 : 1;
}

function checkPath(target: string): Diagnostic[] {
  let stat;
  try {
    stat = statSync(target);
  } catch {
    throw new UsageError(`Unexpected PATH ${target}: no such file or directory`);
  }
  if (stat.isDirectory()) return checkDirectory(target).diagnostics;
  if (path.basename(target) === 'plugin.json') return checkDirectory(sourcesDirectory(target)).diagnostics;
  if (target.endsWith('.md')) return checkSource(target, readFileSync(target), { requireSource: true }).diagnostics;
  throw new UsageError(`Unexpected PATH ${target}, expected a .md file, a plugin.json or a directory`);
}

/** The extension's `sources` directory when it is readable; full manifest checks live in the compiler. */
function sourcesDirectory(manifest: string): string {
  const dir = path.dirname(manifest);
  try {
    const json = JSON.parse(readFileSync(manifest, 'utf8')) as { extensions?: Record<string, { sources?: unknown }> };
    const sources = json.extensions?.['ai.strawberry.berry']?.sources;
    if (typeof sources === 'string') return path.resolve(dir, sources);
  } catch {
    // The manifest's own problems are reported by the package checks.
  }
  return dir;
}
