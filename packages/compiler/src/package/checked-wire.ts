import { LineIndex } from '../diagnostics/line-index.js';
import type { RoutineSource } from '../routine/check-routine.js';
import { entry, reviveNode, type YMap } from '../source/yaml-tree.js';
import type { CheckedSource } from './cache/source-cache.js';

/**
 * How a worker thread hands a checked source back (check-pool.ts): as JSON text, without what
 * the receiving thread rebuilds cheaper than it parses (the line index, the body, the shared
 * name span). Structured cloning of the located tree cost the main thread about what checking
 * the file did; `JSON.parse` of the same tree costs a fifth of that (docs/performance.md).
 * Everything in a checked source is JSON data (spans, the located tree, revived as its classes, diagnostics):
 * only `undefined` fields vanish, and a missing field reads as `undefined` all the same.
 */
export function packChecked(checked: CheckedSource): PackedChecked {
  const routine = checked.routine;
  if (routine === undefined) return checked;
  const { lines: _lines, body: _body, nameSpan: _nameSpan, ...rest } = routine;
  return { ...checked, routine: rest };
}

/** What `packChecked` gives, once through `JSON.stringify` and `JSON.parse`. */
export type PackedChecked = Omit<CheckedSource, 'routine'> & { routine: Omit<RoutineSource, 'lines' | 'body' | 'nameSpan'> | undefined };

/** The checked source again, from its packed form (after `JSON.parse`; the object is reused). */
export function unpackChecked(packed: PackedChecked): CheckedSource {
  const checked = packed as CheckedSource;
  const routine = checked.routine as Omit<RoutineSource, 'lines' | 'body' | 'nameSpan'> | undefined;
  // Undefined fields as the checker leaves them, so the result is the very same data.
  if (routine === undefined) checked.routine = undefined;
  else {
    if (routine.name === undefined) (routine as RoutineSource).name = undefined;
    // As parseSource and checkRoutine make them: the body is the text after the fence, and the
    // name's span is the very span of its value in the tree (or the fence).
    const full = routine as RoutineSource;
    // The located tree's nodes keep their spans as numbers and make a span when read (yaml-tree.ts).
    full.frontmatter = reviveNode(routine.frontmatter) as YMap;
    full.lines = new LineIndex(routine.text);
    full.body = routine.text.slice(routine.bodyStart);
    full.nameSpan = entry(routine.frontmatter, 'name')?.value.span ?? routine.fenceSpan;
  }
  return checked;
}
