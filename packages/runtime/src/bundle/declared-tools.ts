import type { SourceEntry, ToolConnection } from './content.js';
import type { RoutineRef } from './routine-table.js';

/**
 * The tools a routine offers: its own `tools`, then those of the instructions its body
 * includes (and they include), in include order; a name the routine declares itself keeps
 * its own connection (spec: the tools of included instructions are merged into the
 * including routine's offered tools).
 */
export function declaredTools(routine: RoutineRef): ToolConnection[] {
  const out = [...(routine.source.tools ?? [])];
  const keys = new Set(out.map((t) => t.key));
  const seen = new Set<string>();
  const visit = (source: SourceEntry & { includes?: unknown }) => {
    for (const name of Array.isArray(source.includes) ? source.includes : []) {
      if (typeof name !== 'string' || seen.has(name) || !Object.hasOwn(routine.pkg.content.sources, name)) continue;
      seen.add(name);
      const included = routine.pkg.content.sources[name]!;
      if (included.kind !== 'instructions') continue;
      for (const tool of included.tools ?? []) {
        if (keys.has(tool.key)) continue;
        keys.add(tool.key);
        out.push(tool);
      }
      visit(included);
    }
  };
  visit(routine.source);
  return out;
}
