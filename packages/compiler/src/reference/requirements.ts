import type { RoutineSource } from '../routine/check-routine.js';
import { mapAt } from '../routine/model-schema-view.js';
import { entry, type YMap } from '../source/yaml-tree.js';
import { plainJson } from './resolve-expression.js';

/** MAN-7: what a package needs from the runtime that prepares it, derived from its sources. */
export interface PackageRequirements {
  /** External tool names used (TOOL-6, NEXT-5). */
  tools: string[];
  /** TPL-4 readers of model routine templates, included text counted. */
  readers: string[];
  /** Each model routine's selection: `{routine, select}` or `{routine, provider, id}`, by routine name. */
  models: unknown[];
  /** TPL-6 `{{ env.NAME }}` placeholders rendered in model routines. */
  env: string[];
  /** TOOL-5: some connection declares `presentation`, so `runtime.ui.publish` is needed. */
  ui: boolean;
  /** MDL-7/8: call readers and senders session models need. */
  calls: string[];
}

const VOICE_CALLS = ['runtime.call.cancel', 'runtime.call.read', 'runtime.call.send'];
const BOUNDED_CALLS = ['runtime.call.read', 'runtime.call.send'];

/** The `model` selection of a model routine as JSON, or undefined when it has neither form. */
export function modelSelection(routine: RoutineSource): unknown {
  if (routine.facts) return routine.facts.selection;
  const model = mapAt(routine.frontmatter, 'model');
  if (!model || routine.name === undefined) return undefined;
  const select = mapAt(model, 'select');
  if (select) return { routine: routine.name, select: plainJson(select) };
  const provider = text(model, 'provider');
  const id = text(model, 'id');
  return provider !== undefined && id !== undefined ? { routine: routine.name, provider, id } : undefined;
}

/**
 * MDL-7: the audio session profile needs call read, send and cancel; MDL-8: a bounded
 * session needs read and send. A `provider`/`id` session model is known only from a
 * catalog, so it is left to preparation (decision, as for MDL-6).
 */
export function sessionCalls(routine: RoutineSource): readonly string[] {
  if (routine.facts) return routine.facts.calls;
  const select = mapAt(mapAt(routine.frontmatter, 'model'), 'select');
  if (!select || text(select, 'interaction') !== 'session') return [];
  return text(mapAt(select, 'session'), 'trigger') === 'voice_activity' ? VOICE_CALLS : BOUNDED_CALLS;
}

function text(map: YMap | undefined, key: string): string | undefined {
  const v = map && entry(map, key)?.value;
  return v?.kind === 'scalar' && typeof v.value === 'string' && !v.ref ? v.value : undefined;
}

export function sortedUnique(values: Iterable<string>): string[] {
  return [...new Set(values)].sort();
}
