import { methodCodes, type MethodCode } from '../diagnostics/codes/method.js';
import type { Diagnostic, RelatedLocation } from '../diagnostics/diagnostic.js';
import type { Reporter, ReportOptions, Span } from '../diagnostics/reporter.js';
import { describeNode, type YMap, type YNode } from '../source/yaml-tree.js';

/**
 * Reports method codes into a file's Reporter. It looks codes up in `methodCodes` itself,
 * so the checker works whether or not the shared registry lists them yet.
 */
export class MethodReporter {
  constructor(readonly base: Reporter) {}

  report(code: MethodCode, at: Span | { span: Span }, message: string, options: ReportOptions = {}): Diagnostic {
    const span = 'span' in at ? at.span : at;
    const lines = this.base.lines;
    const start = lines.position(span.start);
    const end = lines.position(Math.max(span.end, span.start));
    const info = methodCodes[code];
    const diagnostic: Diagnostic = {
      code,
      rule: info.rule,
      severity: options.severity ?? info.severity,
      message,
      file: this.base.file,
      line: start.line,
      column: start.column,
      endLine: end.line,
      endColumn: end.column,
    };
    if (options.hint !== undefined) diagnostic.hint = options.hint;
    if (options.related !== undefined && options.related.length > 0) diagnostic.related = options.related;
    this.base.diagnostics.push(diagnostic);
    return diagnostic;
  }

  locate(at: Span | { span: Span }, message: string): RelatedLocation {
    return this.base.locate(at, message);
  }

  get errorCount(): number {
    return this.base.errorCount;
  }

  /** A mapping, or a report naming what was found instead. */
  map(node: YNode, code: MethodCode, what: string, hint?: string): YMap | undefined {
    if (node.kind === 'map') return node;
    const nullHint = node.kind === 'scalar' && node.value === null ? 'a key with nothing after it is null; write `{}` for an empty mapping' : undefined;
    this.report(code, node, `Unexpected ${describeNode(node)} for ${what}, expected a mapping`, { hint: hint ?? nullHint });
    return undefined;
  }

  /** A nonempty string (not a `!ref`, which is refused elsewhere). */
  text(node: YNode, code: MethodCode, what: string): string | undefined {
    if (node.kind === 'scalar' && typeof node.value === 'string' && !node.ref) {
      if (node.value.trim() !== '') return node.value;
      this.report(code, node, `Unexpected empty string for ${what}, expected a nonempty string`);
      return undefined;
    }
    const colonTrap = node.kind === 'map' && !node.flow && node.entries.length === 1;
    this.report(code, node, `Unexpected ${describeNode(node)} for ${what}, expected a nonempty string`, {
      hint: colonTrap ? 'an unquoted `: ` made YAML read a mapping; quote the whole value or write it after `|`' : undefined,
    });
    return undefined;
  }
}
