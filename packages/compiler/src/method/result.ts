import type { Reporter } from '../diagnostics/reporter.js';
import { describeNode, type YNode } from '../source/yaml-tree.js';
import { defineField } from './data-types.js';
import { resolveReference } from './references.js';
import type { MethodScope } from './scope.js';
import type { CompiledMethod, Reference } from './types.js';

/** MTH-15: one data reference, or a non-empty map of display names to references. */
export function checkResult(r: Reporter, node: YNode, scope: MethodScope): CompiledMethod['result'] | undefined {
  if (node.kind === 'scalar' && typeof node.value === 'string' && !node.ref) {
    const ref = dataReference(r, node, scope, '`result`');
    return ref ? { single: ref } : undefined;
  }
  if (node.kind !== 'map' || node.entries.length === 0) {
    r.report(
      'BP6140',
      node,
      `Unexpected ${node.kind === 'map' ? 'empty mapping' : describeNode(node)} for \`result\`, expected a data reference or a map of display names to references`,
      {
        hint: 'name the data the run delivers: `result: report_file`, or `result:` then `  Report: report_file` per line',
      },
    );
    return undefined;
  }
  const map: Record<string, Reference> = {};
  let ok = true;
  for (const e of node.entries) {
    if (e.key.trim() === '') {
      r.report('BP6140', e.keySpan, 'Unexpected empty display name in `result`, expected a nonempty name', { hint: 'any text will do, such as `Report`' });
      ok = false;
      continue;
    }
    const ref = dataReference(r, e.value, scope, `\`result.${e.key}\``);
    if (ref) defineField(map, e.key, ref);
    else ok = false;
  }
  return ok ? { map } : undefined;
}

function dataReference(r: Reporter, node: YNode, scope: MethodScope, what: string): Reference | undefined {
  const resolved = resolveReference(r, scope, node, what);
  if (resolved?.kind !== 'connection') return resolved?.ref;
  r.report('BP6140', node, `Unexpected connection \`${resolved.ref.text}\` for ${what}, expected data the run delivers`, {
    hint: 'a connection is access, not data; return what the run produced through it as a step output',
  });
  return undefined;
}
