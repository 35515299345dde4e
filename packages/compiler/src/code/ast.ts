import type {
  AnonymousFunctionDeclaration,
  AnyNode,
  ArrowFunctionExpression,
  FunctionDeclaration,
  FunctionExpression,
  MemberExpression,
  Property,
  AssignmentProperty,
} from 'acorn';

export type Node = AnyNode;
export type FunctionNode = FunctionDeclaration | AnonymousFunctionDeclaration | FunctionExpression | ArrowFunctionExpression;

/** Keys that never hold child nodes; skipping them keeps the generic walk off metadata. */
const NOT_CHILDREN = new Set(['type', 'start', 'end', 'loc', 'range']);

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}

/** Direct child nodes in source order (acorn builds fields in source order). */
export function childNodes(node: Node): Node[] {
  const out: Node[] = [];
  for (const [key, value] of Object.entries(node)) {
    if (NOT_CHILDREN.has(key)) continue;
    if (Array.isArray(value)) {
      for (const item of value) if (isNode(item)) out.push(item);
    } else if (isNode(value)) out.push(value);
  }
  return out;
}

export function isFunction(node: Node | null | undefined): node is FunctionNode {
  return node?.type === 'FunctionDeclaration' || node?.type === 'FunctionExpression' || node?.type === 'ArrowFunctionExpression';
}

/** The property name of `a.b`, `a['b']` or `` a[`b`] ``; undefined when it is computed at run time. */
export function staticMemberKey(member: MemberExpression): string | undefined {
  const p = member.property;
  if (!member.computed) return p.type === 'Identifier' ? p.name : undefined;
  return staticString(p);
}

/** The key of an object property or pattern property when written literally. */
export function staticPropertyKey(prop: Property | AssignmentProperty): string | undefined {
  const k = prop.key;
  if (!prop.computed) {
    if (k.type === 'Identifier') return k.name;
    if (k.type === 'Literal') return k.value === null || k.value === undefined ? undefined : String(k.value);
    return undefined;
  }
  return staticString(k);
}

function staticString(node: Node): string | undefined {
  if (node.type === 'Literal') return typeof node.value === 'string' ? node.value : undefined;
  if (node.type === 'TemplateLiteral' && node.expressions.length === 0) return node.quasis[0]?.value.cooked ?? undefined;
  return undefined;
}
