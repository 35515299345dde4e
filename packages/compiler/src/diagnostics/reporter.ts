import type { Diagnostic, RelatedLocation, Severity } from './diagnostic.js';
import { CODES, type Code } from './codes.js';
import type { LineIndex } from './line-index.js';

/** Half-open range of UTF-16 offsets into a file's normalized text. */
export interface Span {
  start: number;
  end: number;
}

export interface ReportOptions {
  hint?: string | undefined;
  related?: RelatedLocation[] | undefined;
  /** Only for codes whose severity depends on an option (e.g. `strict`). */
  severity?: Severity | undefined;
}

let capture: Diagnostic[] | undefined;

/**
 * Runs `fn` with the reports of every reporter going to `into` instead of the reporter's own
 * list: incremental resolution keeps each unit of work's diagnostics, wherever they point,
 * to reuse them with the unit.
 */
export function captureReports<T>(into: Diagnostic[], fn: () => T): T {
  const outer = capture;
  capture = into;
  try {
    return fn();
  } finally {
    capture = outer;
  }
}

/** Collects diagnostics for one file, turning spans into 1-based positions. */
export class Reporter {
  readonly diagnostics: Diagnostic[] = [];

  constructor(
    readonly file: string,
    readonly lines: LineIndex,
  ) {}

  report(code: Code, at: Span | { span: Span }, message: string, options: ReportOptions = {}): Diagnostic {
    const span = 'span' in at ? at.span : at;
    const start = this.lines.position(span.start);
    const end = this.lines.position(Math.max(span.end, span.start));
    const info = CODES[code];
    const diagnostic: Diagnostic = {
      code,
      rule: info.rule,
      severity: options.severity ?? info.severity,
      message,
      file: this.file,
      line: start.line,
      column: start.column,
      endLine: end.line,
      endColumn: end.column,
    };
    if (options.hint !== undefined) diagnostic.hint = options.hint;
    if (options.related !== undefined && options.related.length > 0) diagnostic.related = options.related;
    (capture ?? this.diagnostics).push(diagnostic);
    return diagnostic;
  }

  /** A related location in this same file, for `related`. */
  locate(at: Span | { span: Span }, message: string): RelatedLocation {
    const span = 'span' in at ? at.span : at;
    const { line, column } = this.lines.position(span.start);
    return { file: this.file, line, column, message };
  }

  get errorCount(): number {
    return this.diagnostics.filter((d) => d.severity === 'error').length;
  }
}
