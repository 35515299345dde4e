import type { Position } from './line-index.js';
import { LineIndex } from './line-index.js';

const MAX_LINE_WIDTH = 120;
const CONTEXT_LINES = 2;

/**
 * Renders the lines around `start` with a caret underline, Vite/Babel style.
 * Lines wider than 120 columns are elided around the marked part.
 */
export function codeFrame(source: string | LineIndex, start: Position, end?: Position): string {
  const index = typeof source === 'string' ? new LineIndex(source) : source;
  const first = Math.max(1, start.line - CONTEXT_LINES);
  const last = Math.min(index.lineCount, start.line + CONTEXT_LINES);
  const gutter = String(last).length;
  const out: string[] = [];
  for (let line = first; line <= last; line++) {
    const full = index.lineText(line).replace(/\t/g, ' ');
    const marked = line === start.line;
    const from = marked ? start.column - 1 : 0;
    let width = 1;
    if (marked) {
      const endCol = end && end.line === start.line ? end.column - 1 : full.length;
      width = Math.max(1, endCol - from);
    }
    const { text, shift } = elide(full, marked ? from : 0);
    out.push(`${marked ? '>' : ' '} ${String(line).padStart(gutter)} | ${text}`);
    if (marked) {
      const caretStart = from - shift;
      const caretWidth = Math.max(1, Math.min(width, text.length - caretStart));
      out.push(`  ${' '.repeat(gutter)} | ${' '.repeat(Math.max(0, caretStart))}${'^'.repeat(caretWidth)}`);
    }
  }
  return out.join('\n');
}

function elide(line: string, focus: number): { text: string; shift: number } {
  if (line.length <= MAX_LINE_WIDTH) return { text: line, shift: 0 };
  const half = Math.floor(MAX_LINE_WIDTH / 2);
  let start = Math.max(0, focus - half);
  const end = Math.min(line.length, start + MAX_LINE_WIDTH);
  start = Math.max(0, end - MAX_LINE_WIDTH);
  const prefix = start > 0 ? '...' : '';
  const suffix = end < line.length ? '...' : '';
  return { text: prefix + line.slice(start, end) + suffix, shift: start - prefix.length };
}
