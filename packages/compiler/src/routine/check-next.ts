import { checkExpression, checkPathScalar } from '../reference/expression.js';
import { describeNode, entry, type YMap, type YNode } from '../source/yaml-tree.js';
import { checkOwnKeys, expectFlag, expectMapping, expectName, refuseRef } from './check-misc.js';
import type { RoutineContext } from './context.js';

export const NEXT_KEYS = ['to', 'select', 'cases', 'input', 'output'] as const;
const NEXT_ROOTS = ['input', 'output'] as const;

const NEXT_HINTS: Readonly<Record<string, string>> = {
  with: "there is no `next.with`: `next.input` builds the successor's input",
  default: 'there is no default case: list every label under `cases`',
  target: 'did you mean `to`?',
};

/** NEXT-1..4 (and PATH-1, PATH-2 for its paths) on the `next` field. */
export function checkNextField(ctx: RoutineContext, node: YNode): void {
  const r = ctx.reporter;
  if (refuseRef(r, node, '`next`')) return;
  if (node.kind === 'scalar') {
    if (node.value === null) {
      r.report('BP1030', node, 'Unexpected null for `next`, expected a target name or a mapping', {
        hint: `${node.empty ? 'a key with nothing after it is null; ' : ''}name the successor (\`next: notes.reply\`), or remove \`next\` to end with the local output`,
      });
    } else if (typeof node.value === 'string') {
      expectName(r, node, 'BP1432', '`next`');
    } else {
      r.report('BP1430', node, `Unexpected ${describeNode(node)} for \`next\`, expected a target name or a mapping`, {
        hint: `quote it if it is a name: \`'${String(node.value)}'\``,
      });
    }
    return;
  }
  if (node.kind === 'seq') {
    r.report('BP1430', node, 'Unexpected a list for `next`, expected a target name or a mapping', {
      hint: 'a routine has one successor; choose among several with `select` and `cases`',
    });
    return;
  }
  checkOwnKeys(r, node, NEXT_KEYS, 'BP1431', '`next`', NEXT_HINTS);
  checkSuccessor(ctx, node);
  const input = entry(node, 'input');
  if (input) checkExpression(r, input.value, NEXT_ROOTS, '`next.input`');
  const output = entry(node, 'output');
  if (output && expectFlag(r, output.value, 'BP1440', '`next.output`') === true && !ctx.port.output) {
    r.report('BP1441', output.keySpan, 'Unexpected `next.output: true` in a routine without an output port, expected `port.output: true`', {
      hint: 'add `port` with `output: true` (and `input` and `limits`), or remove `next.output`',
    });
  }
}

/** NEXT-2: `to`, or `select` with nonempty `cases`. */
function checkSuccessor(ctx: RoutineContext, next: YMap): void {
  const r = ctx.reporter;
  const to = entry(next, 'to');
  const select = entry(next, 'select');
  const cases = entry(next, 'cases');
  if (to) {
    expectName(r, to.value, 'BP1432', '`next.to`');
    for (const other of [select, cases]) {
      if (!other) continue;
      r.report('BP1435', other.keySpan, `Unexpected \`${other.key}\` beside \`to\`, expected either \`to\` or \`select\` with \`cases\``, {
        hint: 'remove `to` to choose by label, or remove `select` and `cases` to always continue to one target',
      });
    }
  } else if (!select && !cases) {
    r.report('BP1435', next, 'Unexpected `next` without `to` or `select`, expected `to: name`, or `select` with `cases`', {
      hint: 'remove `next` to end with the local output',
    });
  } else if (!cases) {
    r.report('BP1435', select!.keySpan, 'Unexpected `select` without `cases`, expected `cases` mapping labels to targets', {
      hint: 'add `cases:` with one `label: target` line per label (`label: null` ends the chain)',
    });
  } else if (!select) {
    r.report('BP1435', cases.keySpan, 'Unexpected `cases` without `select`, expected `select` with the path of the label', {
      hint: 'add `select: $.output.label` (the path whose string chooses the case)',
    });
  }
  if (select) {
    const path = select.value;
    if (path.kind === 'scalar' && typeof path.value === 'string' && !path.ref) checkPathScalar(r, path, NEXT_ROOTS, '`next.select`');
    else if (!refuseRef(r, path, '`next.select`')) {
      r.report('BP1437', path, `Unexpected ${describeNode(path)} for \`next.select\`, expected a path such as \`$.output.kind\``);
    }
  }
  if (cases) checkCases(ctx, cases.value);
}

function checkCases(ctx: RoutineContext, node: YNode): void {
  const r = ctx.reporter;
  const map = expectMapping(r, node, 'BP1436', '`next.cases`', 'labels to target names');
  if (!map) return;
  if (map.entries.length === 0) {
    r.report('BP1436', map, 'Unexpected empty `next.cases`, expected at least one `label: target`', {
      hint: 'there is no default case: list every label the selected value can take',
    });
    return;
  }
  for (const e of map.entries) {
    // Null ends the chain with the local output (NEXT-2).
    if (e.value.kind === 'scalar' && e.value.value === null && !e.value.ref) continue;
    expectName(r, e.value, 'BP1436', `the case \`${e.key}\``);
  }
}
