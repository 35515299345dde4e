import type { Reporter, Span } from '../diagnostics/reporter.js';
import { quoteList, closest } from '../hints/did-you-mean.js';
import { locateInScalar } from '../schema/locate-in-scalar.js';
import type { YNode } from '../source/yaml-tree.js';
import { walkPath } from './references.js';
import type { DataType } from './types.js';

export interface Placeholder {
  /** Offset of `{{` in the text. */
  index: number;
  /** Length of the whole `{{…}}`. */
  length: number;
  alias: string;
  path: (string | number)[];
}

/**
 * `{{alias}}` and `{{alias.field}}` (spaces inside the braces allowed). Only this shape is a
 * placeholder; other `{{…}}` text is left as written, so the runner must use this same
 * function when it substitutes (once: substituted values are never scanned again).
 */
const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*)\s*\}\}/g;

export function findPlaceholders(text: string): Placeholder[] {
  const found: Placeholder[] = [];
  for (const match of text.matchAll(PLACEHOLDER)) {
    const [alias, ...rest] = match[1]!.split('.');
    found.push({ index: match.index, length: match[0].length, alias: alias!, path: rest.map((s) => (/^(?:0|[1-9][0-9]{0,8})$/.test(s) ? Number(s) : s)) });
  }
  return found;
}

/** A local the instructions may name: a data alias (type undefined when unknown) or a connection. */
export type LocalValue = { kind: 'data'; type: DataType | undefined } | { kind: 'connection' };

/** MTH-8: every placeholder names a declared alias, and a field that alias has. */
export function checkPlaceholders(r: Reporter, node: YNode, text: string, locals: ReadonlyMap<string, LocalValue>, where: string): void {
  for (const p of findPlaceholders(text)) {
    const span = placeholderSpan(r, node, p);
    const written = text.slice(p.index, p.index + p.length);
    const local = locals.get(p.alias);
    if (!local) {
      const guess = closest(p.alias, locals.keys());
      r.report(
        'BP6070',
        span,
        `Unexpected placeholder \`${written}\` in ${where}, expected one of the step's aliases${locals.size > 0 ? ` (${quoteList([...locals.keys()])})` : ''}`,
        {
          hint: guess ? `did you mean \`${guess}\`?` : `add \`${p.alias}\` to the step's \`in\` (\`${p.alias}: inputs.${p.alias}\`, an output name, …)`,
        },
      );
      continue;
    }
    if (p.path.length === 0) continue;
    if (local.kind === 'connection') {
      r.report('BP6071', span, `Unexpected field in \`${written}\` in ${where}: \`${p.alias}\` is a connection, expected \`{{${p.alias}}}\``);
      continue;
    }
    if (local.type === undefined) continue;
    const walked = walkPath(local.type, p.path, `${p.alias}.${p.path.join('.')}`);
    if (!walked.ok) r.report('BP6071', span, `${walked.message} (placeholder in ${where})`, { hint: walked.hint });
  }
}

function placeholderSpan(r: Reporter, node: YNode, p: Placeholder): Span {
  if (node.kind !== 'scalar' || typeof node.value !== 'string') return node.span;
  const first = locateInScalar(r.lines, node as typeof node & { value: string }, p.index);
  const last = locateInScalar(r.lines, node as typeof node & { value: string }, p.index + p.length - 1);
  if (!first) return node.span;
  return { start: first.start, end: last && last.end > first.start ? last.end : first.end };
}
