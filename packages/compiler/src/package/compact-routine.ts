import { trustedJson } from '../bundle/canonical-json.js';
import { NOT_SORTABLE, sortedJson } from '../json/sorted-json.js';
import { refsIn } from '../reference/resolve-expression.js';
import { modelSelection, sessionCalls } from '../reference/requirements.js';
import type { RoutineSource } from '../routine/check-routine.js';
import { mapAt } from '../routine/model-schema-view.js';
import { COPIED_FIELDS, type CopiedField } from '../routine/routine-facts.js';
import { entry, MapNode, toJson, type YEntry } from '../source/yaml-tree.js';

/**
 * The routine as the package-wide steps need it (`RoutineFacts`, routine-facts.ts): the copied
 * fields' JSON values and canonical texts made now, while the tree is young, and a frontmatter
 * of only the entries resolution reports on (`tools`, `next`, `configure`, `route`, `compaction`,
 * and an `input` or `output` that holds a `!ref`, REF-4, or a key `toJson` cannot set). For a source without errors only: one
 * with errors keeps its whole tree, so every diagnostic is made from what was written.
 */
export function compactRoutine(routine: RoutineSource): RoutineSource {
  const fm = routine.frontmatter;
  const kept: YEntry[] = [];
  const copied: CopiedField[] = [];
  for (const e of fm.entries) {
    if (!COPIED_FIELDS.has(e.key)) {
      kept.push(e);
      continue;
    }
    const sorted = sortedJson(e.value);
    const key = e.keySpan;
    copied.push({ key: e.key, keyStart: key.start, keyEnd: key.end, plain: toJson(e.value), wire: sorted === NOT_SORTABLE ? undefined : trustedJson(sorted) });
    // A schema keeps its tree where its JSON value would not read the same (TPL-3's input check):
    // a `!ref`, which resolution also reports on, or a key toJson cannot set (NOT_SORTABLE: `__proto__`).
    if ((e.key === 'input' || e.key === 'output') && e.value.kind === 'map' && (sorted === NOT_SORTABLE || refsIn(e.value).length > 0)) kept.push(e);
  }
  const select = mapAt(mapAt(fm, 'model'), 'select');
  const operation = select && entry(select, 'operation')?.value;
  const span = fm.span;
  return {
    ...routine,
    // Cut to their exact length: a list grown by `push` keeps 17 slots, and these live to assembly.
    frontmatter: new MapNode(span.start, span.end, fm.flow, kept.slice()),
    facts: {
      copied: copied.slice(),
      selection: modelSelection(routine),
      calls: sessionCalls(routine),
      classification: operation?.kind === 'scalar' && operation.value === 'classification',
    },
  };
}
