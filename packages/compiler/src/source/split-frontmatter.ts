import type { Span } from '../diagnostics/reporter.js';

export type SplitResult =
  | { kind: 'documentation' }
  | { kind: 'unclosed'; openSpan: Span }
  | { kind: 'source'; yaml: string; yamlStart: number; body: string; bodyStart: number; closeSpan: Span };

const FENCE = /^---[ \t]*$/;

/**
 * Splits `---\n<yaml>\n---\n<body>` (SRC-1). The text is already normalized to LF.
 * A first line other than `---` means documentation, not a source.
 */
export function splitFrontmatter(text: string): SplitResult {
  const firstEnd = text.indexOf('\n');
  const firstLine = firstEnd === -1 ? text : text.slice(0, firstEnd);
  if (!FENCE.test(firstLine)) return { kind: 'documentation' };
  if (firstEnd === -1) return { kind: 'unclosed', openSpan: { start: 0, end: firstLine.length } };
  const yamlStart = firstEnd + 1;
  let lineStart = yamlStart;
  while (lineStart <= text.length) {
    const lineEnd = text.indexOf('\n', lineStart);
    const end = lineEnd === -1 ? text.length : lineEnd;
    if (FENCE.test(text.slice(lineStart, end))) {
      const bodyStart = lineEnd === -1 ? text.length : lineEnd + 1;
      return {
        kind: 'source',
        yaml: text.slice(yamlStart, lineStart),
        yamlStart,
        body: text.slice(bodyStart),
        bodyStart,
        closeSpan: { start: lineStart, end },
      };
    }
    if (lineEnd === -1) break;
    lineStart = lineEnd + 1;
  }
  return { kind: 'unclosed', openSpan: { start: 0, end: firstLine.length } };
}
