import type { MethodCode } from '../diagnostics/codes/method.js';
import type { Reporter } from '../diagnostics/reporter.js';
import { describeNode, type YMap, type YNode } from '../source/yaml-tree.js';

/** A mapping, or a report naming what was found instead. */
export function expectMap(r: Reporter, node: YNode, code: MethodCode, what: string, hint?: string): YMap | undefined {
  if (node.kind === 'map') return node;
  const nullHint = node.kind === 'scalar' && node.value === null ? 'a key with nothing after it is null; write `{}` for an empty mapping' : undefined;
  r.report(code, node, `Unexpected ${describeNode(node)} for ${what}, expected a mapping`, { hint: hint ?? nullHint });
  return undefined;
}

/** A nonempty string (not a `!ref`, which is refused elsewhere), or a report. */
export function expectText(r: Reporter, node: YNode, code: MethodCode, what: string): string | undefined {
  if (node.kind === 'scalar' && typeof node.value === 'string' && !node.ref) {
    if (node.value.trim() !== '') return node.value;
    r.report(code, node, `Unexpected empty string for ${what}, expected a nonempty string`);
    return undefined;
  }
  const colonTrap = node.kind === 'map' && !node.flow && node.entries.length === 1;
  r.report(code, node, `Unexpected ${describeNode(node)} for ${what}, expected a nonempty string`, {
    hint: colonTrap ? 'an unquoted `: ` made YAML read a mapping; quote the whole value or write it after `|`' : undefined,
  });
  return undefined;
}
