import path from 'node:path';
import { createCompiler, writeBundle, type BuildResult } from '@berrypack/compiler';
import type { CliIo } from '../io.js';
import { maxWarnings, outputFormat, parse, stringOption } from '../options.js';
import { printDiagnostics } from '../output/report.js';
import { displayPath } from '../paths.js';
import { UsageError } from '../usage-error.js';
import { compilerOptions, COMPILER_OPTIONS, resolveManifestArg } from './compiler-options.js';

export const BUILD_HELP = `Usage: berrypack build MANIFEST [--out-dir DIR] [--json | --format text|json|github]
                       [--catalog FILE] [--store DIR] [--version SHA256] [--max-warnings N]

Compiles the package of MANIFEST (a plugin.json or its directory) into
DIR/<plugin-name>.<first 12 hex of id>.berry.json (default DIR: dist), resources into
DIR/blobs/sha256/. Nothing is written when there are errors.
`;

export function buildCommand(args: string[], io: CliIo): number {
  const { values, positionals } = parse(args, { 'out-dir': { type: 'string' }, version: { type: 'string' }, ...COMPILER_OPTIONS });
  if (values.help) {
    io.stdout.write(BUILD_HELP);
    return 0;
  }
  const format = outputFormat(values);
  const limit = maxWarnings(stringOption(values, 'max-warnings'));
  if (positionals.length !== 1) throw new UsageError(`Unexpected ${positionals.length} arguments, expected exactly one MANIFEST (see berrypack build --help)`);
  const manifest = resolveManifestArg(io.cwd, positionals[0]!);
  const outDir = path.resolve(io.cwd, stringOption(values, 'out-dir') ?? 'dist');
  const version = stringOption(values, 'version');
  const compiler = createCompiler(compilerOptions(io.cwd, values));
  const result: BuildResult = compiler.build(manifest, version === undefined ? {} : { version });
  const warnings = result.diagnostics.filter((d) => d.severity === 'warning').length;
  if (!result.ok || !result.bundle || (limit !== undefined && warnings > limit)) {
    printDiagnostics(io, format, result.diagnostics, { ok: false });
    return 1;
  }
  const file = writeBundle(outDir, result.bundle);
  const shown = displayPath(file, io.cwd);
  if (format === 'json') printDiagnostics(io, format, result.diagnostics, { ok: true, id: result.bundle.id, file: shown });
  else {
    if (result.diagnostics.some((d) => d.severity !== 'info')) printDiagnostics(io, format, result.diagnostics);
    if (format === 'text') io.stdout.write(`built ${shown}\n  id ${result.bundle.id}\n`);
  }
  return 0;
}
