import { declaredTools } from '../bundle/declared-tools.js';
import type { NextEntry, Target } from '../bundle/content.js';
import { resolveTarget, type PackageView, type RoutineRef } from '../bundle/routine-table.js';

export interface Reachable {
  /** Routines that can run, by qualified name. */
  routines: Map<string, RoutineRef>;
  /** External tools some reachable routine declares or continues to, with the first routine that needs each. */
  externals: Map<string, string>;
}

/**
 * What the preparation must bind: the routines reachable from the agents and exports through
 * `tools` and `next` (imports included, whatever they re-export), and the external tools they
 * reach. A library's unused exports therefore add no requirement to an application.
 */
export function reachableFrom(root: PackageView): Reachable {
  const routines = new Map<string, RoutineRef>();
  const externals = new Map<string, string>();
  const queue: RoutineRef[] = [];
  const visit = (pkg: PackageView, target: Target | null, from: string): void => {
    if (target === null) return;
    const resolved = resolveTarget(pkg, target);
    if (resolved?.kind === 'external') {
      if (!externals.has(resolved.name)) externals.set(resolved.name, from);
    } else if (resolved?.kind === 'routine' && !routines.has(resolved.routine.qualified)) {
      routines.set(resolved.routine.qualified, resolved.routine);
      queue.push(resolved.routine);
    }
  };
  for (const agent of Object.values(root.content.agents)) visit(root, { kind: 'source', name: agent.entry }, 'an agent entry');
  for (const entry of root.content.exports) visit(root, entry.target, 'an export');
  while (queue.length > 0) {
    const routine = queue.shift()!;
    for (const tool of declaredTools(routine)) visit(routine.pkg, tool.target, routine.qualified);
    for (const target of nextTargets(routine.source.next)) visit(routine.pkg, target, routine.qualified);
    for (const target of policyTargets(routine.source)) visit(routine.pkg, target, routine.qualified);
  }
  return { routines, externals };
}

/** The routines a model's `compaction.summary`, `configure` and `route` call: reachable like tools. */
export function policyTargets(source: RoutineRef['source']): Target[] {
  const targets: Target[] = [];
  if (source.compaction?.summary) targets.push(source.compaction.summary);
  if (source.configure) targets.push(source.configure.routine);
  if (source.route) targets.push(source.route.routine);
  return targets;
}

export function nextTargets(next: NextEntry | undefined): (Target | null)[] {
  if (next === undefined) return [];
  return 'to' in next ? [next.to] : Object.values(next.cases);
}
