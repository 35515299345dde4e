import path from 'node:path';
import { sortDiagnostics, type Diagnostic } from '@berrypack/compiler';
import { readNormalized } from '@berrypack/compiler/internal-cli';
import type { CliIo } from '../io.js';
import { createColors } from './colors.js';
import { formatGithub } from './format-github.js';
import { formatText } from './format-text.js';
import { relativize } from './relativize.js';

export type OutputFormat = 'text' | 'json' | 'github';

/** Prints diagnostics in the chosen format; `json` merges them into `payload`. */
export function printDiagnostics(io: CliIo, format: OutputFormat, diagnostics: readonly Diagnostic[], payload: Record<string, unknown> = {}): void {
  const shown = relativize(sortDiagnostics(diagnostics), io.cwd);
  if (format === 'json') {
    io.stdout.write(JSON.stringify({ ...payload, diagnostics: shown }) + '\n');
  } else if (format === 'github') {
    io.stdout.write(formatGithub(shown));
  } else {
    const colors = createColors(io.stdout, io.env);
    io.stdout.write(formatText(shown, colors, (file) => readNormalized(path.resolve(io.cwd, file))));
  }
}
