import type { Reporter } from '../diagnostics/reporter.js';
import type { YNode } from '../source/yaml-tree.js';

/**
 * The parser reports `.inf`, `.nan` and aliases (SRC-2) and leaves a null in their place;
 * judging that null again here would report one mistake twice. Only the source text
 * tells such a null from a written `null`.
 */
export function refusedByParser(r: Reporter, node: YNode): boolean {
  if (node.kind !== 'scalar' || node.value !== null || node.empty || node.ref) return false;
  const text = r.lines.text.slice(node.span.start, node.span.end);
  return /^(?:\*|[-+]?\.(?:inf|Inf|INF)$|\.(?:nan|NaN|NAN)$)/.test(text);
}
