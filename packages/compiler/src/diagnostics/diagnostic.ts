export type Severity = 'error' | 'warning' | 'info';

export interface RelatedLocation {
  file: string;
  line: number;
  column: number;
  message: string;
}

/**
 * The one diagnostic shape every package shares (see CONTRACTS.md).
 * Lines are 1-based; columns are 1-based in UTF-16 code units; `endColumn` is exclusive.
 */
export interface Diagnostic {
  code: string;
  rule: string;
  severity: Severity;
  message: string;
  hint?: string;
  file: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  related?: RelatedLocation[];
}

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === 'error');
}

/** Stable order for output: by file, then position, then code. */
export function sortDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  return [...diagnostics].sort(
    (a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) || a.line - b.line || a.column - b.column || (a.code < b.code ? -1 : a.code > b.code ? 1 : 0),
  );
}
