import type { Position } from './line-index.js';
import { LineIndex } from './line-index.js';

/**
 * Characters a terminal would obey rather than show: C0 controls but tab, DEL, C1 controls
 * and the bidi embeddings, overrides and isolates. A frame shows each as `\uXXXX`, so a
 * source line cannot drive the terminal of whoever reads the diagnostic (Rollup and Vite
 * print frames too); the CLI escapes every other package-chosen string the same way.
 */
const UNSAFE_CHAR = /^[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]$/;

/** `\u001b` for ESC: the visible form of one unsafe character. */
export function escapeChar(char: string): string {
  return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/**
 * One line of source escaped for display, with where each UTF-16 code unit of the original
 * lands: `columns[i]` is the offset in `text` of code unit `i`, `columns[line.length]` is
 * `text.length`. An escaped character is 6 wide, every other code unit 1 (as the rest of the
 * CLI counts columns). `boundary[k]` says whether `text` may be cut at offset `k` without
 * splitting an escape or a surrogate pair.
 */
export function escapeLine(line: string): { text: string; columns: number[]; boundary: boolean[] } {
  const columns: number[] = [];
  const boundary: boolean[] = [];
  let text = '';
  for (let i = 0; i < line.length; i++) {
    const char = line[i]!;
    columns.push(text.length);
    const code = line.charCodeAt(i);
    const insidePair = code >= 0xdc00 && code <= 0xdfff && i > 0 && isHighSurrogate(line.charCodeAt(i - 1));
    boundary.push(!insidePair);
    if (UNSAFE_CHAR.test(char)) {
      const escaped = escapeChar(char);
      for (let k = 1; k < escaped.length; k++) boundary.push(false);
      text += escaped;
    } else {
      text += char;
    }
  }
  columns.push(text.length);
  boundary.push(true);
  return { text, columns, boundary };
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

const MAX_LINE_WIDTH = 120;
const CONTEXT_LINES = 2;

/**
 * The lines around `start` with a caret underline, Vite/Babel style, every line escaped with
 * `escapeLine`; the carets are placed in the escaped text, so they stay under the characters
 * `start`–`end` name. Lines wider than 120 columns (after escaping) are elided around the
 * marked part, never inside an escape.
 */
export function codeFrame(source: string | LineIndex, start: Position, end?: Position): string {
  const index = typeof source === 'string' ? new LineIndex(source) : source;
  const first = Math.max(1, start.line - CONTEXT_LINES);
  const last = Math.min(index.lineCount, start.line + CONTEXT_LINES);
  const gutter = String(last).length;
  const out: string[] = [];
  for (let line = first; line <= last; line++) {
    const full = index.lineText(line).replace(/\t/g, ' ');
    const escaped = escapeLine(full);
    const column = (unit: number) => (unit <= full.length ? escaped.columns[Math.max(0, unit)]! : escaped.text.length + (unit - full.length));
    const marked = line === start.line;
    const from = marked ? column(start.column - 1) : 0;
    let width = 1;
    if (marked) {
      const endCol = end && end.line === start.line ? column(end.column - 1) : escaped.text.length;
      width = Math.max(1, endCol - from);
    }
    const { text, shift } = elide(escaped.text, escaped.boundary, from);
    out.push(`${marked ? '>' : ' '} ${String(line).padStart(gutter)} | ${text}`);
    if (marked) {
      const caretStart = from - shift;
      const caretWidth = Math.max(1, Math.min(width, text.length - caretStart));
      out.push(`  ${' '.repeat(gutter)} | ${' '.repeat(Math.max(0, caretStart))}${'^'.repeat(caretWidth)}`);
    }
  }
  return out.join('\n');
}

function elide(line: string, boundary: readonly boolean[], focus: number): { text: string; shift: number } {
  if (line.length <= MAX_LINE_WIDTH) return { text: line, shift: 0 };
  const half = Math.floor(MAX_LINE_WIDTH / 2);
  let start = Math.max(0, Math.min(focus, line.length) - half);
  let end = Math.min(line.length, start + MAX_LINE_WIDTH);
  start = Math.max(0, end - MAX_LINE_WIDTH);
  // Cut only between characters: the window shrinks to the nearest whole ones.
  while (start < end && !boundary[start]) start++;
  while (end > start && !boundary[end]) end--;
  const prefix = start > 0 ? '...' : '';
  const suffix = end < line.length ? '...' : '';
  return { text: prefix + line.slice(start, end) + suffix, shift: start - prefix.length };
}
