import type { Reporter } from '../diagnostics/reporter.js';
import { indentationHint, unclosedQuoteHint } from './syntax-hints.js';

const COLON_TRAP_ERRORS = new Set(['BLOCK_AS_IMPLICIT_KEY', 'MULTILINE_IMPLICIT_KEY']);

/** The yaml parser's errors as BP1010 (one per line), or BP1050 where an unquoted `: ` made a nested mapping (SRC-6). */
export function reportSyntaxErrors(errors: readonly { code: string; pos: [number, number]; message: string }[], offset: number, reporter: Reporter): void {
  const linesSeen = new Set<number>();
  for (const error of errors) {
    const span = { start: offset + error.pos[0], end: offset + Math.max(error.pos[1], error.pos[0] + 1) };
    const { line } = reporter.lines.position(span.start);
    if (linesSeen.has(line)) continue;
    linesSeen.add(line);
    const message = error.message.split('\n')[0]!.replace(/ at line \d+, column \d+.*$/, '');
    const lineText = reporter.lines.lineText(line);
    const previous = reporter.lines.lineText(line - 1);
    const precise =
      error.code === 'BAD_INDENT' || COLON_TRAP_ERRORS.has(error.code)
        ? indentationHint(reporter.lines, line, error.code)
        : error.code === 'MISSING_CHAR'
          ? unclosedQuoteHint(reporter.lines, line, message)
          : undefined;
    if (precise) {
      reporter.report(precise.code, precise.span, precise.message, { hint: precise.hint });
      continue;
    }
    if (COLON_TRAP_ERRORS.has(error.code) && (/:\s.*:\s/.test(lineText + ' ') || /: /.test(lineText) || /: /.test(previous))) {
      const lineStart = reporter.lines.starts[line - 1] ?? span.start;
      // Point at the value after the first `key: `, which is what needs quoting.
      const valueAt = /^\s*(?:-\s+)?[^\s:#][^:#]*:\s+(?=\S)/.exec(lineText)?.[0].length ?? lineText.search(/\S/);
      reporter.report(
        'BP1050',
        { start: lineStart + Math.max(0, valueAt), end: lineStart + lineText.length },
        'Unexpected `: ` inside an unquoted value: YAML reads it as a nested mapping',
        {
          hint: 'quote the whole value (`description: "Note: x"`) or write it as a block scalar after `|` or `>`',
        },
      );
      continue;
    }
    reporter.report('BP1010', span, `YAML syntax error: ${message}`);
  }
}
