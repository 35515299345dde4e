import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { LineIndex } from '../diagnostics/line-index.js';
import { Reporter, type Span } from '../diagnostics/reporter.js';
import { decodeSourceText, reportUndecodable } from './normalize-text.js';
import { parseFrontmatter } from './parse-frontmatter.js';
import { splitFrontmatter } from './split-frontmatter.js';
import type { YMap } from './yaml-tree.js';

/** A Markdown source split and parsed, with everything positions need. */
export interface ParsedSource {
  file: string;
  /** Normalized text (UTF-8 decoded, no BOM, LF only). */
  text: string;
  lines: LineIndex;
  /** The frontmatter, when it parsed as a mapping. */
  frontmatter: YMap | undefined;
  body: string;
  bodyStart: number;
  /** The closing `---` line, where whole-file diagnostics point. */
  fenceSpan: Span;
}

export type ParseSourceResult =
  | { status: 'documentation'; diagnostics: Diagnostic[] }
  | { status: 'source'; source: ParsedSource; reporter: Reporter }
  | { status: 'unreadable'; diagnostics: Diagnostic[] };

export interface ParseSourceOptions {
  /** The file was imported directly as a routine, so a file without frontmatter is an error (SRC-1). */
  requireSource?: boolean;
}

export function parseSource(file: string, input: Uint8Array | string, options: ParseSourceOptions = {}): ParseSourceResult {
  const decoded = decodeSourceText(input);
  if (!decoded.ok) {
    const reporter = reportUndecodable(file, input as Uint8Array, decoded, 'BP1004', {
      tooLarge: 'a routine source is a small text file',
      invalid: 'save the file as UTF-8',
    });
    return { status: 'unreadable', diagnostics: reporter.diagnostics };
  }
  const text = decoded.text;
  const lines = new LineIndex(text);
  const reporter = new Reporter(file, lines);
  const split = splitFrontmatter(text);
  if (split.kind === 'documentation') {
    if (options.requireSource) {
      reporter.report('BP1002', { start: 0, end: lines.lineText(1).length }, 'Unexpected first line, expected `---` opening the frontmatter of a routine', {
        hint: 'a routine starts with `---`, its YAML frontmatter, a closing `---` line, then the body',
      });
      return { status: 'unreadable', diagnostics: reporter.diagnostics };
    }
    reporter.report('BP1003', { start: 0, end: 0 }, 'Skipped: the first line is not `---`, so this Markdown file is documentation, not a source');
    return { status: 'documentation', diagnostics: reporter.diagnostics };
  }
  if (split.kind === 'unclosed') {
    reporter.report('BP1001', split.openSpan, 'Unexpected end of file, expected a `---` line closing the frontmatter', {
      hint: 'add a line holding only `---` after the frontmatter',
    });
    return { status: 'unreadable', diagnostics: reporter.diagnostics };
  }
  const tree = parseFrontmatter(split.yaml, split.yamlStart, reporter, { refuseLoneSurrogates: true });
  let frontmatter: YMap | undefined;
  if (tree?.kind === 'map') frontmatter = tree;
  else if (tree) {
    reporter.report(
      'BP1005',
      tree.span.end > tree.span.start ? tree.span : split.closeSpan,
      'Unexpected frontmatter that is not a mapping, expected `name:`, `description:` and the other fields',
      {
        hint: 'every source requires at least `name` and `description`',
      },
    );
  }
  return {
    status: 'source',
    reporter,
    source: { file, text, lines, frontmatter, body: split.body, bodyStart: split.bodyStart, fenceSpan: split.closeSpan },
  };
}
