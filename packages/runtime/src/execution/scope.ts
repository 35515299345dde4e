import type { RoutineRef } from '../bundle/routine-table.js';
import type { Allowance, Semaphore } from './allowance.js';
import type { CallState } from './call-state.js';
import type { Execution } from './execution.js';
import { READERS, UI_PUBLISH } from './external-tool.js';

/** How a child sees its caller through `$.parent` (TPL-3): frozen at the child's admission. */
export interface Frame {
  input: unknown;
  calls: Record<string, unknown>[];
  parent: Frame | null;
}

/** Where a position's output port publishes; undefined when it has no way out. */
export type OutputPath = { call: CallState } | undefined;

/** One position: one invocation of one routine at its place in a chain. */
export interface Scope {
  exec: Execution;
  /** The position's call: what it calls is recorded under it. */
  call: CallState;
  routine: RoutineRef;
  input: unknown;
  allowance: Allowance;
  /** Optional external tools still selectable (RUN-12): the grants, narrowed by each `permissions` list on the way down. */
  optional: ReadonlySet<string>;
  parentFrame: Frame | null;
  semaphore: Semaphore;
  /** Synchronous calls in flight: the position settles only after each is observed (RUN-10). */
  pending: Set<Promise<unknown>>;
  output: OutputPath;
}

export function frameOf(scope: Scope): Frame {
  return { input: scope.input, calls: scope.call.children.map((c) => c.view()), parent: scope.parentFrame };
}

/**
 * RUN-12: `permissions` narrows the optional tools of the routine and all it delegates: a
 * list to exactly those; `tools` to the supplied non-contextual external tools (never the
 * runtime's readers or `runtime.ui.publish`); `catalogs` to installed ToolCatalog suppliers,
 * of which this runtime has none (docs/runtime.md, "Permissions and catalog()").
 */
export function narrow(optional: ReadonlySet<string>, permissions: unknown): ReadonlySet<string> {
  if (permissions === 'tools') return new Set([...optional].filter((name) => !isContextual(name)));
  if (permissions === 'catalogs') return new Set();
  if (!Array.isArray(permissions)) return optional;
  return new Set(permissions.filter((p): p is string => typeof p === 'string' && optional.has(p)));
}

/** The runtime's readers and UI grant: authority for the runtime's own work, never a callable tool. */
export function isContextual(name: string): boolean {
  return name === UI_PUBLISH || (Object.values(READERS) as string[]).includes(name);
}
