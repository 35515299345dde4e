import type { Span } from '../diagnostics/reporter.js';
import { entry, type YMap, type YNode, type YSeq } from '../source/yaml-tree.js';

/**
 * Read-only helpers for the model and classification checks that look at the shape of
 * `input`/`output`. The schema checker (SCH) owns every structural error there, so these
 * helpers never report: anything they cannot read comes back `undefined` and the caller
 * skips it.
 */

/**
 * The root schema of `input`/`output`. An independent document (SCH-2) is parsed into a
 * tree whose every node carries the span of the `document` string, so one checker serves
 * both forms and its diagnostics still point into the file.
 */
export function schemaRoot(node: YNode): YMap | undefined {
  if (node.kind !== 'map') return undefined;
  const document = entry(node, 'document')?.value;
  if (!document) return node;
  if (document.kind !== 'scalar' || typeof document.value !== 'string') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(document.value);
  } catch {
    return undefined;
  }
  const tree = jsonToNode(parsed, document.span);
  return tree.kind === 'map' ? tree : undefined;
}

export function jsonToNode(value: unknown, span: Span): YNode {
  if (Array.isArray(value)) return { kind: 'seq', span, flow: false, items: value.map((v) => jsonToNode(v, span)) };
  if (value !== null && typeof value === 'object') {
    return {
      kind: 'map',
      span,
      flow: false,
      entries: Object.entries(value).map(([key, v]) => ({ key, keySpan: span, value: jsonToNode(v, span), span })),
    };
  }
  const scalar = typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? value : null;
  return { kind: 'scalar', span, value: scalar, style: 'plain', ref: false, empty: false };
}

export function mapAt(map: YMap | undefined, key: string): YMap | undefined {
  const v = map && entry(map, key)?.value;
  return v?.kind === 'map' ? v : undefined;
}

export function seqAt(map: YMap | undefined, key: string): YSeq | undefined {
  const v = map && entry(map, key)?.value;
  return v?.kind === 'seq' ? v : undefined;
}

/** A plain string value (not `!ref`). */
export function stringAt(map: YMap | undefined, key: string): string | undefined {
  const v = map && entry(map, key)?.value;
  return v?.kind === 'scalar' && typeof v.value === 'string' && !v.ref ? v.value : undefined;
}

export function scalarAt(map: YMap | undefined, key: string): string | number | boolean | null | undefined {
  const v = map && entry(map, key)?.value;
  return v?.kind === 'scalar' && !v.ref ? v.value : undefined;
}

/** The strings of a list, or undefined when it is not a list of plain strings. */
export function stringsOf(seq: YSeq | undefined): string[] | undefined {
  if (!seq) return undefined;
  const out: string[] = [];
  for (const item of seq.items) {
    if (item.kind !== 'scalar' || typeof item.value !== 'string' || item.ref) return undefined;
    out.push(item.value);
  }
  return out;
}

export function code(text: string): string {
  return '`' + text + '`';
}

/** `a`, `b` and `c`: for lists that are all meant, where `quoteList` offers a choice. */
export function andList(items: readonly string[]): string {
  const q = items.map(code);
  return q.length <= 1 ? q.join('') : q.slice(0, -1).join(', ') + ' and ' + q[q.length - 1];
}
