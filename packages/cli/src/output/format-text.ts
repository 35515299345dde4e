import { readNormalized } from '@berrypack/compiler/internal-cli';
import { LineIndex, type Diagnostic } from '@berrypack/compiler';
import { terminalCodeFrame, terminalSafe as safe } from '../terminal-safe.js';
import type { Colors } from './colors.js';

/**
 * Human output: diagnostics grouped by file, each with its position, code and rule,
 * a code frame and the hint, then a summary line. `files` maps a displayed path to the
 * text the positions refer to (normalized), read from disk when absent. Every string of a
 * diagnostic and every code line is escaped for the terminal (`terminal-safe.ts`).
 */
export function formatText(diagnostics: readonly Diagnostic[], colors: Colors, readText: (file: string) => string | undefined = readNormalized): string {
  const byFile = new Map<string, Diagnostic[]>();
  for (const d of diagnostics) {
    const list = byFile.get(d.file) ?? [];
    list.push(d);
    byFile.set(d.file, list);
  }
  const out: string[] = [];
  for (const [file, list] of byFile) {
    out.push(colors.bold(safe(file)));
    const text = readText(file);
    const index = text === undefined ? undefined : new LineIndex(text);
    for (const d of list) {
      const label = d.severity === 'error' ? colors.red('error') : d.severity === 'warning' ? colors.yellow('warning') : colors.cyan('info');
      out.push(`  ${d.line}:${d.column}  ${label}  ${safe(d.message)}  ${colors.dim(safe(`${d.code} ${d.rule}`))}`);
      if (index && d.severity !== 'info') {
        const frame = terminalCodeFrame(index, { line: d.line, column: d.column }, { line: d.endLine, column: d.endColumn });
        out.push(...frame.split('\n').map((l) => '    ' + l));
      }
      if (d.hint) out.push(`    ${colors.cyan('hint:')} ${safe(d.hint)}`);
      for (const r of d.related ?? []) out.push(`    ${colors.dim(safe(`${r.file}:${r.line}:${r.column}`))} ${safe(r.message)}`);
    }
    out.push('');
  }
  out.push(summaryLine(diagnostics, colors));
  return out.join('\n') + '\n';
}

export function summaryLine(diagnostics: readonly Diagnostic[], colors: Colors): string {
  const errors = diagnostics.filter((d) => d.severity === 'error').length;
  const warnings = diagnostics.filter((d) => d.severity === 'warning').length;
  const files = new Set(diagnostics.filter((d) => d.severity !== 'info').map((d) => d.file)).size;
  if (errors === 0 && warnings === 0) return colors.bold('✔ no problems');
  const parts = `${plural(errors, 'error')}, ${plural(warnings, 'warning')} in ${plural(files, 'file')}`;
  return errors > 0 ? colors.red(colors.bold(`✖ ${parts}`)) : colors.yellow(colors.bold(`⚠ ${parts}`));
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
