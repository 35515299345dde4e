import type { Code } from '../diagnostics/codes.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { LineIndex } from '../diagnostics/line-index.js';
import { Reporter, type ReportOptions, type Span } from '../diagnostics/reporter.js';

/**
 * Reports spans of a piece of code that sits at `base` inside `file`: a routine body sits
 * after the frontmatter of its `.md` file (base = bodyStart), a module at 0 in its own file.
 */
export class CodeReporter {
  readonly reporter: Reporter;

  constructor(
    file: string,
    lines: LineIndex,
    /** The code itself (the body, or the whole module). */
    readonly code: string,
    readonly base: number,
  ) {
    this.reporter = new Reporter(file, lines);
  }

  get file(): string {
    return this.reporter.file;
  }

  get diagnostics(): Diagnostic[] {
    return this.reporter.diagnostics;
  }

  report(code: Code, at: Span, message: string, options?: ReportOptions): Diagnostic {
    return this.reporter.report(code, this.shift(at), message, options);
  }

  locate(at: Span, message: string): ReturnType<Reporter['locate']> {
    return this.reporter.locate(this.shift(at), message);
  }

  /** The span's first line only, so a multi-line statement does not fill a code frame. */
  head(at: Span): Span {
    const newline = this.code.indexOf('\n', at.start);
    return { start: at.start, end: newline === -1 || newline > at.end ? at.end : newline };
  }

  /** Source text of a span, shortened for messages. */
  slice(at: Span, max = 60): string {
    const s = this.code.slice(at.start, at.end).replace(/\s+/g, ' ');
    return s.length > max ? s.slice(0, max - 1) + '…' : s;
  }

  private shift(at: Span): Span {
    return { start: at.start + this.base, end: at.end + this.base };
  }
}
