import type { MemberExpression, ObjectPattern, Pattern } from 'acorn';
import type { Span } from '../diagnostics/reporter.js';
import { closest, quoteList } from '../hints/did-you-mean.js';
import { staticMemberKey, staticPropertyKey, type FunctionNode, type Node } from './ast.js';
import type { CodeReporter } from './code-reporter.js';
import type { ScopeAnalysis } from './scope.js';

interface ToolCheck {
  declared: ReadonlySet<string>;
  scopes: ScopeAnalysis;
  cr: CodeReporter;
}

/**
 * CODE-7: static keys read from the default function's second parameter (`tools`, whatever
 * it is named, or destructured) must be declared tool names. Routines with `catalog: true`
 * may call discovered tools, so nothing is checked there.
 */
export function checkToolKeys(fn: FunctionNode | undefined, scopes: ScopeAnalysis, declaredTools: readonly string[], catalog: boolean, cr: CodeReporter): void {
  if (catalog || !fn) return;
  let param: Pattern | undefined = fn.params[1];
  if (param?.type === 'AssignmentPattern') param = param.left;
  if (!param) return;
  const check: ToolCheck = { declared: new Set(declaredTools), scopes, cr };
  if (param.type === 'ObjectPattern') {
    checkPattern(param, check);
    return;
  }
  if (param.type !== 'Identifier') return;
  const binding = scopes.declarations.get(param);
  if (!binding) return;
  for (const ref of scopes.references) {
    if (ref.binding !== binding) continue;
    const parent = scopes.parents.get(ref.id);
    if (parent?.type === 'MemberExpression' && parent.object === ref.id) checkMember(parent, check);
    else if (parent?.type === 'VariableDeclarator' && parent.init === ref.id && parent.id.type === 'ObjectPattern') checkPattern(parent.id, check);
    else if (parent?.type === 'AssignmentExpression' && parent.right === ref.id && parent.left.type === 'ObjectPattern') checkPattern(parent.left, check);
  }
}

function checkMember(member: MemberExpression, check: ToolCheck): void {
  const key = staticMemberKey(member);
  if (key === undefined || check.declared.has(key)) return;
  // tools.notes.compose reads `notes`, then `compose`: find the declared dotted name it meant.
  const keys = [key];
  const members: Node[] = [member];
  for (let at: Node = member; ;) {
    const parent = check.scopes.parents.get(at);
    if (parent?.type !== 'MemberExpression' || parent.object !== at) break;
    const next = staticMemberKey(parent);
    if (next === undefined) break;
    keys.push(next);
    members.push(parent);
    at = parent;
  }
  for (let n = keys.length; n >= 2; n--) {
    const dotted = keys.slice(0, n).join('.');
    if (!check.declared.has(dotted)) continue;
    const span = { start: member.start, end: members[n - 1]!.end };
    const base = check.cr.slice({ start: member.object.start, end: member.object.end });
    report(
      check,
      span,
      key,
      `Unexpected \`${check.cr.slice(span)}\`, expected \`${base}['${dotted}']\`: tool keys are the literal declared names, not nested objects`,
      `write ${base}['${dotted}']`,
    );
    return;
  }
  report(check, member, key);
}

function checkPattern(pattern: ObjectPattern, check: ToolCheck): void {
  for (const prop of pattern.properties) {
    if (prop.type !== 'Property') continue;
    const key = staticPropertyKey(prop);
    if (key === undefined || check.declared.has(key)) continue;
    const inner = prop.value.type === 'AssignmentPattern' ? prop.value.left : prop.value;
    if (inner.type === 'ObjectPattern') {
      const nested = inner.properties
        .map((p) => (p.type === 'Property' ? staticPropertyKey(p) : undefined))
        .find((k) => k !== undefined && check.declared.has(`${key}.${k}`));
      if (nested !== undefined) {
        report(
          check,
          prop.key,
          key,
          `Unexpected nested \`${key}\` in the destructured tools, expected the literal name \`${key}.${nested}\``,
          `write { '${key}.${nested}': ${nested} }`,
        );
        continue;
      }
    }
    report(check, prop.key, key);
  }
}

function report(check: ToolCheck, span: Span, key: string, message?: string, hint?: string): void {
  const names = [...check.declared].sort();
  const expected = names.length === 0 ? ': the routine declares no tools' : `, expected a declared tool: ${quoteList(names)}`;
  const guess = closest(key, names);
  check.cr.report('BP3060', span, message ?? `Unexpected tool \`${key}\`${expected}`, {
    hint:
      hint ??
      (guess !== undefined
        ? `did you mean \`${guess}\`?`
        : 'declare it under `tools` in the frontmatter, or set `catalog: true` to call tools discovered at run time'),
  });
}
