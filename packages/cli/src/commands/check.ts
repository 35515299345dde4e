import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { checkDirectory, checkMethod, checkSource, createCompiler, hasErrors, isMethodFile, type CompilerOptions, type Diagnostic } from '@berrypack/compiler';
import type { CliIo } from '../io.js';
import { maxWarnings, outputFormat, parse, stringOption } from '../options.js';
import { printDiagnostics } from '../output/report.js';
import { UsageError } from '../usage-error.js';
import { compilerOptions, COMPILER_OPTIONS } from './compiler-options.js';

export const CHECK_HELP = `Usage: berrypack check PATH [--json | --format text|json|github] [--max-warnings N]
                       [--catalog FILE] [--store DIR]

PATH is a routine .md file or a method document (*.method.yaml|yml|json), checked on its own, a plugin.json or a directory holding one
(the whole package: sources, references, code graph, resources, imports), or any other
directory (every .md source below it, checked on its own and for duplicate names).
Exit 0: no errors; 1: errors (or more warnings than --max-warnings); 2: usage or internal error.
`;

export function checkCommand(args: string[], io: CliIo): number {
  const { values, positionals } = parse(args, COMPILER_OPTIONS);
  if (values.help) {
    io.stdout.write(CHECK_HELP);
    return 0;
  }
  const format = outputFormat(values);
  const limit = maxWarnings(stringOption(values, 'max-warnings'));
  if (positionals.length !== 1) throw new UsageError(`Unexpected ${positionals.length} paths, expected exactly one PATH (see berrypack check --help)`);
  const target = path.resolve(io.cwd, positionals[0]!);
  const diagnostics = checkPath(target, compilerOptions(io.cwd, values));
  const warnings = diagnostics.filter((d) => d.severity === 'warning').length;
  const ok = !hasErrors(diagnostics) && (limit === undefined || warnings <= limit);
  printDiagnostics(io, format, diagnostics, { ok });
  return ok ? 0 : 1;
}

function checkPath(target: string, options: CompilerOptions): Diagnostic[] {
  let stat;
  try {
    stat = statSync(target);
  } catch {
    throw new UsageError(`Unexpected PATH ${target}: no such file or directory`);
  }
  const manifest = stat.isDirectory() ? path.join(target, 'plugin.json') : target;
  if (path.basename(manifest) === 'plugin.json' && isFile(manifest)) return createCompiler(options).build(manifest).diagnostics;
  if (stat.isDirectory()) {
    const { routines, diagnostics } = checkDirectory(target);
    // Nothing to check is not "no problems": the path is likely wrong.
    if (routines.length === 0 && !hasErrors(diagnostics)) {
      throw new UsageError(`Unexpected PATH ${target}: it holds no plugin.json and no routine sources (.md files whose first line is \`---\`)`);
    }
    return diagnostics;
  }
  if (isMethodFile(target)) return checkMethod(target, readFileSync(target)).diagnostics;
  if (target.endsWith('.md')) return checkSource(target, readFileSync(target), { requireSource: true }).diagnostics;
  const bundle = target.endsWith('.berry.json') ? '; a bundle is verified and listed with `berrypack inspect`' : '';
  throw new UsageError(`Unexpected PATH ${target}, expected a .md file, a method document, a plugin.json or a directory${bundle}`);
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}
