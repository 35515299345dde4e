import { scanTemplate } from '../body/scan-template.js';
import type { RoutineSource } from '../routine/check-routine.js';
import { entry, type YMap, type YNode } from '../source/yaml-tree.js';

export type ReferenceRole = 'tools' | 'next' | 'include' | 'dependency' | 'configure' | 'route' | 'summary' | 'entry' | 'export';

/** A name written in a routine that the one resolver (REF-2) resolves; offsets are into the normalized text. */
export interface RoutineReference {
  name: string;
  role: ReferenceRole;
  start: number;
  end: number;
  /** Tools and next may name an external tool when nothing local matches (TOOL-6). */
  allowExternal: boolean;
}

/**
 * Every place REF-1 lists, in one routine: `tools`, `next` (`to` and `cases`),
 * `configure.routine`, `route.routine`, `compaction.summary`, and body `{{name}}` and
 * `[[name]]` markers. Shapes the checker refuses are skipped, not reported.
 */
export function routineReferences(routine: RoutineSource): RoutineReference[] {
  const out: RoutineReference[] = [];
  const fm = routine.frontmatter;
  const add = (node: YNode | undefined, role: ReferenceRole, allowExternal = false) => {
    if (node?.kind === 'scalar' && typeof node.value === 'string' && !node.ref)
      out.push({ name: node.value, role, start: node.span.start, end: node.span.end, allowExternal });
  };
  const tools = entry(fm, 'tools')?.value;
  if (tools?.kind === 'seq') {
    for (const item of tools.items) {
      if (item.kind === 'scalar') add(item, 'tools', true);
      else if (item.kind === 'map' && item.entries.length === 1) {
        const e = item.entries[0]!;
        out.push({ name: e.key, role: 'tools', start: e.keySpan.start, end: e.keySpan.end, allowExternal: true });
      }
    }
  }
  const next = entry(fm, 'next')?.value;
  if (next?.kind === 'scalar') add(next, 'next', true);
  else if (next?.kind === 'map') {
    add(entry(next, 'to')?.value, 'next', true);
    const cases = entry(next, 'cases')?.value;
    if (cases?.kind === 'map') for (const c of cases.entries) add(c.value, 'next', true);
  }
  add(mapAt(fm, 'configure') && entry(mapAt(fm, 'configure')!, 'routine')?.value, 'configure');
  add(mapAt(fm, 'route') && entry(mapAt(fm, 'route')!, 'routine')?.value, 'route');
  add(mapAt(fm, 'compaction') && entry(mapAt(fm, 'compaction')!, 'summary')?.value, 'summary');
  if (routine.kind !== 'code') {
    for (const item of scanTemplate(routine.body)) {
      if (item.kind === 'include' || item.kind === 'dependency') {
        out.push({ name: item.name, role: item.kind, start: routine.bodyStart + item.at.start, end: routine.bodyStart + item.at.end, allowExternal: false });
      }
    }
  }
  return out;
}

function mapAt(map: YMap, key: string): YMap | undefined {
  const v = entry(map, key)?.value;
  return v?.kind === 'map' ? v : undefined;
}
