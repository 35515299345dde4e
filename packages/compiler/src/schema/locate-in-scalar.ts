import type { LineIndex } from '../diagnostics/line-index.js';
import type { Span } from '../diagnostics/reporter.js';
import type { YScalar } from '../source/yaml-tree.js';

/**
 * The file span of one character of a string scalar's value, so that an error inside
 * embedded text (the JSON of `document:`) points at the character, not at the whole
 * value. Only styles whose mapping is certain are handled (a literal block, a quoted or
 * plain value on one line); anything else (folded lines, escapes that do not round-trip)
 * returns undefined and the caller reports at the scalar.
 */
export function locateInScalar(lines: LineIndex, node: YScalar & { value: string }, index: number): Span | undefined {
  const value = node.value;
  if (index < 0 || index > value.length) return undefined;
  // An error at the end of the text is shown just after its last character: in a block
  // the end lies past the trailing line break, on a line that is no longer the value.
  const trimmed = value.replace(/\s+$/, '').length;
  if (index >= trimmed && trimmed > 0) {
    const last = locate(lines, node, trimmed - 1);
    return last === undefined ? undefined : { start: last + 1, end: last + 1 };
  }
  const at = locate(lines, node, index);
  return at === undefined ? undefined : { start: at, end: at + 1 };
}

function locate(lines: LineIndex, node: YScalar & { value: string }, index: number): number | undefined {
  const source = lines.text.slice(node.span.start, node.span.end);
  switch (node.style) {
    case 'plain':
      return source === node.value ? node.span.start + index : undefined;
    case 'single': {
      if (source.includes('\n')) return undefined;
      // `''` is one quote in the value: walk both strings together.
      let s = 1;
      for (let v = 0; v < index; v++) s += source[s] === "'" ? 2 : 1;
      return source.slice(1, -1).replace(/''/g, "'") === node.value ? node.span.start + s : undefined;
    }
    case 'double':
      return locateDouble(source, node.value, index, node.span.start);
    case 'literal':
      return locateLiteral(lines, node, index);
    case 'folded':
      return undefined;
  }
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', '/': '/', n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', '0': '\0', ' ': ' ' };

function locateDouble(source: string, value: string, index: number, start: number): number | undefined {
  if (source.includes('\n') || source.length < 2) return undefined;
  let rebuilt = '';
  let found: number | undefined;
  for (let s = 1; s < source.length - 1;) {
    if (rebuilt.length === index) found = s;
    const c = source[s]!;
    if (c !== '\\') {
      rebuilt += c;
      s++;
      continue;
    }
    const e = source[s + 1] ?? '';
    const simple = SIMPLE_ESCAPES[e];
    if (simple !== undefined) {
      rebuilt += simple;
      s += 2;
    } else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(source.slice(s + 2, s + 6))) {
      rebuilt += String.fromCharCode(parseInt(source.slice(s + 2, s + 6), 16));
      s += 6;
    } else {
      return undefined;
    }
  }
  if (rebuilt !== value || found === undefined) return undefined;
  return start + found;
}

/** Line k of the value is line k after the header (`|`), past the block's indentation. */
function locateLiteral(lines: LineIndex, node: YScalar & { value: string }, index: number): number | undefined {
  const before = node.value.slice(0, index);
  const k = before.split('\n').length - 1;
  const column = index - (before.lastIndexOf('\n') + 1);
  const valueLine = node.value.split('\n')[k] ?? '';
  const header = lines.position(node.span.start).line;
  const line = header + 1 + k;
  const lineStart = lines.starts[line - 1];
  if (lineStart === undefined || lineStart >= node.span.end) return undefined;
  const text = lines.lineText(line);
  const indent = text.length - valueLine.length;
  if (indent < 0 || !text.endsWith(valueLine) || text.slice(0, indent).trim() !== '') return undefined;
  return lineStart + indent + column;
}
