import type { Position, Range } from 'vscode-languageserver';
import { normalizeNewlines, type Diagnostic } from './compiler.js';

/**
 * The compiler counts in the normalized text (no BOM, LF only), 1-based, UTF-16 columns; LSP
 * counts in the document as the editor holds it, 0-based, UTF-16 (the 3.17 default). Lines
 * agree (CRLF and CR are one line break for both); only a BOM shifts the first line.
 */
export const normalize = normalizeNewlines;

const bomShift = (text: string, line0: number) => (line0 === 0 && text.startsWith('\uFEFF') ? 1 : 0);

export function lspPosition(text: string, line1: number, column1: number): Position {
  const line = Math.max(0, line1 - 1);
  return { line, character: Math.max(0, column1 - 1) + bomShift(text, line) };
}

export function diagnosticRange(text: string, d: Pick<Diagnostic, 'line' | 'column' | 'endLine' | 'endColumn'>): Range {
  return { start: lspPosition(text, d.line, d.column), end: lspPosition(text, d.endLine, d.endColumn) };
}

/** Line starts of a normalized text. */
export function lineStarts(normalized: string): number[] {
  const starts = [0];
  for (let i = normalized.indexOf('\n'); i !== -1; i = normalized.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/** An offset into the normalized text for an LSP position in the document `text`. */
export function offsetAt(text: string, normalized: string, position: Position): number {
  const starts = lineStarts(normalized);
  const start = starts[Math.min(position.line, starts.length - 1)]!;
  const end = position.line + 1 < starts.length ? starts[position.line + 1]! - 1 : normalized.length;
  return Math.min(end, start + Math.max(0, position.character - bomShift(text, position.line)));
}

/** The LSP range of a normalized-text offset range. */
export function offsetRange(text: string, normalized: string, start: number, end: number): Range {
  const starts = lineStarts(normalized);
  const at = (offset: number): Position => {
    let line = 0;
    while (line + 1 < starts.length && starts[line + 1]! <= offset) line++;
    return { line, character: offset - starts[line]! + bomShift(text, line) };
  };
  return { start: at(start), end: at(end) };
}
