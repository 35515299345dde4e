import type { Reporter } from '../diagnostics/reporter.js';
import { entry, type YEntry, type YNode } from '../source/yaml-tree.js';
import { checkDeclaration, defineField } from './data-types.js';
import { checkName } from './names.js';
import { expectMap } from './expect-node.js';
import type { MethodScope } from './scope.js';
import type { DataType } from './types.js';

/** A step found in pass one, with its checked `out` declarations. */
export interface CollectedStep {
  entry: YEntry;
  /** Only declarations that passed MTH-2/3/4. */
  out: Record<string, DataType>;
  outOk: boolean;
}

/**
 * Pass one over `steps` (MTH-6 shape, MTH-2 keys, MTH-3/MTH-4 outputs): registers every
 * step and output in the scope, so pass two can resolve references in any direction.
 */
export function collectSteps(r: Reporter, node: YNode, scope: MethodScope): CollectedStep[] {
  const map = expectMap(
    r,
    node,
    'BP6050',
    '`steps`',
    node.kind === 'scalar' && node.value === null ? 'write at least one step: `steps:` then `  step_key:` with `do:` or `ask:`' : undefined,
  );
  if (!map) return [];
  if (map.entries.length === 0) {
    r.report('BP6050', map, 'Unexpected empty `steps`, expected at least one step', {
      hint: 'a step has a key and `do:` (agent instructions) or `ask:` (a human request)',
    });
    return [];
  }
  const collected: CollectedStep[] = [];
  for (const e of map.entries) {
    checkName(r, e.key, e.keySpan, 'step key');
    const step = expectMap(r, e.value, 'BP6050', `step \`${e.key}\``, 'a step is a mapping with `do:` or `ask:` and optional `in`, `out`, `check`, …');
    const outputs: string[] = [];
    const result: CollectedStep = { entry: e, out: {}, outOk: true };
    const isEach = step !== undefined && entry(step, 'each') !== undefined;
    const outEntry = step ? entry(step, 'out') : undefined;
    if (outEntry) result.outOk = collectOutputs(r, scope, e.key, isEach, outEntry.value, result.out, outputs);
    scope.steps.set(e.key, { key: e.key, keySpan: e.keySpan, outputs, isEach });
    collected.push(result);
  }
  return collected;
}

function collectOutputs(
  r: Reporter,
  scope: MethodScope,
  stepKey: string,
  isEach: boolean,
  node: YNode,
  out: Record<string, DataType>,
  names: string[],
): boolean {
  const map = expectMap(r, node, 'BP6020', `\`out\` of step \`${stepKey}\``, 'write `out:` then one `name: {type, description}` per output, or `{}`');
  if (!map) return false;
  let ok = true;
  for (const e of map.entries) {
    const named = checkName(r, e.key, e.keySpan, 'output name');
    const type = checkDeclaration(r, e.value, 'out', `output \`${e.key}\``, e.keySpan);
    if (!named || !type) ok = false;
    const first = scope.outputs.get(e.key);
    const input = scope.inputs.get(e.key);
    const state = scope.state.get(e.key);
    if (first) {
      r.report('BP6030', e.keySpan, `Unexpected second output \`${e.key}\` in step \`${stepKey}\`, expected output names unique across the method`, {
        hint: 'rename one of them; data is declared once, where it enters',
        related: [r.locate(first.keySpan, `first declared by step \`${first.step}\``)],
      });
      ok = false;
      continue;
    }
    if (input || state) {
      r.report(
        'BP6030',
        e.keySpan,
        `Unexpected output \`${e.key}\` in step \`${stepKey}\` named like ${input ? 'an input' : 'a state'}, expected a name of its own`,
        {
          hint: input
            ? 'data is declared once, where it enters; read the input as `inputs.' + e.key + '` or rename the output'
            : 'to update the state, list `state.' + e.key + '` under `changes`; otherwise rename the output',
          related: [r.locate((input ?? state)!.span, `${input ? 'input' : 'state'} \`${e.key}\` is declared here`)],
        },
      );
      ok = false;
      continue;
    }
    scope.outputs.set(e.key, { name: e.key, step: stepKey, type, list: isEach, keySpan: e.keySpan });
    names.push(e.key);
    if (type) defineField(out, e.key, type);
  }
  return ok;
}
