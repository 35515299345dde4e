import type { Reporter } from '../diagnostics/reporter.js';
import { checkName } from '../routine/names.js';
import { entry, type YMap, type YNode, type YScalar } from '../source/yaml-tree.js';
import { mappingForm } from './expression.js';
import type { Target } from './resolve-name.js';
import { resolveAt, type Place, type ResolveContext } from './resolve-report.js';

/**
 * The JSON form of a `next.input` or `presentation.value` expression (NEXT-4): every node
 * is tagged by its one key, so no authored data can be mistaken for an operation:
 *
 * - `{"object": {key: Expr}}`, `{"array": [Expr]}`
 * - `{"path": "$.output.x"}`: a path as written
 * - `{"literal": JSON}`: a number, boolean or null written as itself, or `{$literal: value}`
 * - `{"select": "$.output.kind", "cases": {label: Expr}}`
 * - `{"!ref": Target}`: a captured source address, resolved (`null` only after an error)
 */
export type ValueExpression =
  | { object: Record<string, ValueExpression> }
  | { array: ValueExpression[] }
  | { path: string }
  | { literal: unknown }
  | { select: string; cases: Record<string, ValueExpression> }
  | { '!ref': Target | null };

export const REF_PLACE: Place = { missing: 'BP2102', what: '`!ref` name', expected: 'the name of a source or import' };

// The single-file checker bounds nesting too; this only keeps recursion finite.
const MAX_DEPTH = 256;

/** Builds the JSON form of an expression, resolving each `!ref` (REF-4) into `refs`. */
export function expressionJson(ctx: ResolveContext, r: Reporter, node: YNode, namespace: string | undefined, refs: Target[], depth = 0): ValueExpression {
  if (depth > MAX_DEPTH) return { literal: null };
  if (node.kind === 'seq') return { array: node.items.map((item) => expressionJson(ctx, r, item, namespace, refs, depth + 1)) };
  if (node.kind === 'scalar') {
    if (node.ref) return { '!ref': resolveRef(ctx, r, node, namespace, refs) ?? null };
    return typeof node.value === 'string' ? { path: node.value } : { literal: node.value };
  }
  const form = mappingForm(node);
  if (form === 'literal') {
    const value = entry(node, '$literal')!.value;
    refuseRefsIn(r, value, depth);
    return { literal: plainJson(value) };
  }
  if (form === 'select') {
    const select = entry(node, 'select')!.value;
    const cases = entry(node, 'cases')?.value;
    return {
      select: select.kind === 'scalar' ? String(select.value) : '',
      cases: cases?.kind === 'map' ? pairs(cases, (v) => expressionJson(ctx, r, v, namespace, refs, depth + 1)) : {},
    };
  }
  return { object: pairs(node, (v) => expressionJson(ctx, r, v, namespace, refs, depth + 1)) };
}

/** REF-4: resolves one `!ref` scalar to any source or import (never an external name). */
export function resolveRef(ctx: ResolveContext, r: Reporter, node: YScalar, namespace: string | undefined, refs: Target[]): Target | undefined {
  const name = String(node.value);
  // An invalid name was refused by the single-file check (NEXT-4, SCH).
  if (checkName(name) !== undefined) return undefined;
  const target = resolveAt(ctx, name, namespace, { reporter: r, span: node.span }, REF_PLACE);
  if (target) refs.push(target);
  return target;
}

/** Every `!ref` scalar below `node`, for schema `const`/`enum` values. */
export function refsIn(node: YNode, out: YScalar[] = [], depth = 0): YScalar[] {
  if (depth > MAX_DEPTH) return out;
  if (node.kind === 'scalar') {
    if (node.ref) out.push(node);
  } else if (node.kind === 'seq') for (const item of node.items) refsIn(item, out, depth + 1);
  else for (const e of node.entries) refsIn(e.value, out, depth + 1);
  return out;
}

/**
 * Decision: `{$literal: …}` holds plain data exactly as written, so a `!ref` inside it is
 * refused rather than silently captured or silently kept as text.
 */
function refuseRefsIn(r: Reporter, node: YNode, depth: number): void {
  for (const ref of refsIn(node, [], depth)) {
    r.report('BP2103', ref, `Unexpected \`!ref ${String(ref.value)}\` inside \`$literal\`, expected plain data`, {
      hint: '`$literal` keeps its value exactly as written; write the `!ref` as an expression of its own, beside the literal',
    });
  }
}

/** JSON of a YAML node; own-property safe for keys such as `__proto__`. */
export function plainJson(node: YNode, depth = 0): unknown {
  if (depth > MAX_DEPTH) return null;
  if (node.kind === 'scalar') return node.ref ? null : node.value;
  if (node.kind === 'seq') return node.items.map((item) => plainJson(item, depth + 1));
  return pairs(node, (v) => plainJson(v, depth + 1));
}

function pairs<T>(map: YMap, value: (node: YNode) => T): Record<string, T> {
  return Object.fromEntries(map.entries.map((e) => [e.key, value(e.value)]));
}
