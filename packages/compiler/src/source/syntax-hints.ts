import type { LineIndex } from '../diagnostics/line-index.js';
import type { Span } from '../diagnostics/reporter.js';

/** A precise reading of a YAML syntax error, for the two mistakes the parser's words hide. */
export interface SyntaxHint {
  code: 'BP1017' | 'BP1018';
  span: Span;
  message: string;
  hint: string;
}

const KEY_LINE = /^( *)(?:- +)?([^\s:#'"][^:#]*?):(?:\s|$)/;

/**
 * A line indented to no mapping around it (`BAD_INDENT`), or indented under a `key: value`
 * line (YAML then reads it as the continuation of that value, and reports a nested mapping
 * there, which looks like the `: ` trap): the line, its indentation, and the columns that would
 * fit. `line` is the 1-based line the parser complained about.
 */
export function indentationHint(lines: LineIndex, line: number, code: string): SyntaxHint | undefined {
  let bad = line;
  if (code !== 'BAD_INDENT') {
    // The parser names the `key: value` line; the mistake is the deeper key line after it.
    const here = KEY_LINE.exec(lines.lineText(line));
    const next = KEY_LINE.exec(lines.lineText(line + 1));
    const value = here ? lines.lineText(line).slice(here[0].length).trim() : '';
    if (!here || !next || value === '' || /:\s/.test(value) || next[1]!.length <= here[1]!.length) return undefined;
    bad = line + 1;
  }
  const text = lines.lineText(bad);
  const key = KEY_LINE.exec(text);
  if (!key) return undefined;
  const indent = key[1]!.length;
  // The columns of the keys above, innermost first: each one opens a mapping the line could join.
  const columns: { indent: number; key: string }[] = [];
  for (let k = bad - 1; k >= 2; k--) {
    const above = KEY_LINE.exec(lines.lineText(k));
    if (!above) continue;
    const at = above[1]!.length;
    if (columns.length === 0 || at < columns[columns.length - 1]!.indent) columns.push({ indent: at, key: above[2]! });
    if (at === 0) break;
  }
  const deeper = [...columns].reverse().find((c) => c.indent > indent);
  const shallower = columns.find((c) => c.indent < indent);
  const fits = [deeper, shallower].filter((c) => c !== undefined);
  if (fits.length === 0) return undefined;
  const start = lines.starts[bad - 1]!;
  const expected = fits.map((c) => `${c.indent} (beside \`${c.key}\`)`).join(' or ');
  return {
    code: 'BP1017',
    span: { start, end: start + Math.max(1, indent) },
    message: `Unexpected indentation of ${indent} space${indent === 1 ? '' : 's'} before \`${key[2]}\`, expected ${expected}`,
    hint: `YAML nests by indentation: a key belongs to the mapping whose keys start in its column; indent \`${key[2]}\` as the key it sits beside`,
  };
}

/** A quoted value whose closing quote is missing: the parser reports it where the frontmatter ends; this points at the opening quote. */
export function unclosedQuoteHint(lines: LineIndex, line: number, message: string): SyntaxHint | undefined {
  const quote = /^Missing closing (["'])quote/.exec(message)?.[1];
  if (quote === undefined) return undefined;
  for (let k = Math.min(line, lines.lineCount); k >= 2; k--) {
    const text = lines.lineText(k);
    const opening = new RegExp(`^\\s*(?:-\\s+)?(?:[^\\s:#'"][^:#]*:\\s+)?${quote}`).exec(text);
    if (!opening) continue;
    const rest = text.slice(opening[0].length);
    const closed = quote === '"' ? /(?<!\\)(?:\\\\)*"/.test(rest) : /'(?!')/.test(rest.replace(/''/g, ''));
    if (closed) continue;
    const start = lines.starts[k - 1]! + opening[0].length - 1;
    return {
      code: 'BP1018',
      span: { start, end: lines.starts[k - 1]! + text.length },
      message: `Unexpected \`${quote}\` without a closing \`${quote}\`: the quoted value runs on to the end of the frontmatter`,
      hint: `close the quote where the value ends, or write a long value as a block scalar after \`|\` or \`>\``,
    };
  }
  return undefined;
}
