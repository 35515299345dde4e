import { nearest } from '../hints/did-you-mean.js';
import type { RoutineSource } from '../routine/check-routine.js';
import { finalSegment } from '../routine/names.js';

/** What a name resolves to (REF-1). */
export type Target =
  | { kind: 'source'; name: string } // a local source, by its declared name
  | { kind: 'import'; alias: string } // an import alias (MAN-5)
  | { kind: 'external'; name: string }; // an external Tool (TOOL-6)

export interface ImportAlias {
  alias: string;
  /** Kind of the public definition an `export` names, or 'opaque' without export. */
  kind: 'model' | 'code' | 'instructions' | 'opaque';
  /** Expanded body text when kind is instructions, for inclusion. */
  body?: string;
}

export interface NameTable {
  sources: ReadonlyMap<string, RoutineSource>;
  imports: ReadonlyMap<string, ImportAlias>;
  /** External tool names the build knows: the manifest's `requires` plus, when a catalog is given, its tool names. */
  externals: ReadonlySet<string>;
  /** Names declared by sources that failed to parse (and their files): a reference to one is not reported as unknown. */
  unparsed?: ReadonlyMap<string, string>;
}

export type Resolution = { ok: true; target: Target } | { ok: false; reason: 'missing' | 'ambiguous' | 'unparsed'; candidates: string[] };

/**
 * REF-2, the one resolver for every place a source is named (REF-1). A qualified name
 * resolves exactly; a short name tries, in order, the caller's sibling, the exact root
 * name, a unique final segment, and only then an external name. `callerNamespace`
 * undefined means no caller namespace (agent entries and exports, REF-3); `''` is the
 * root namespace. Externals are considered only with `allowExternal` (tools and next).
 */
export function resolveName(table: NameTable, name: string, callerNamespace: string | undefined, options: { allowExternal?: boolean } = {}): Resolution {
  const allowExternal = options.allowExternal === true;
  if (name.includes('.')) {
    const exact = exactTarget(table, name);
    if (exact) return { ok: true, target: exact };
  } else {
    if (callerNamespace) {
      const sibling = exactTarget(table, `${callerNamespace}.${name}`);
      if (sibling) return { ok: true, target: sibling };
    }
    const root = exactTarget(table, name);
    if (root) return { ok: true, target: root };
    const bySegment = [...allNames(table)].filter((candidate) => finalSegment(candidate) === name).sort();
    if (bySegment.length > 1) return { ok: false, reason: 'ambiguous', candidates: bySegment };
    const only = bySegment[0];
    if (only !== undefined) return { ok: true, target: exactTarget(table, only)! };
  }
  if (allowExternal && table.externals.has(name)) return { ok: true, target: { kind: 'external', name } };
  if (namesUnparsed(table, name, callerNamespace)) return { ok: false, reason: 'unparsed', candidates: [] };
  const pool = allowExternal ? [...allNames(table), ...table.externals] : [...allNames(table)];
  return { ok: false, reason: 'missing', candidates: nearest(name, new Set(pool)) };
}

/** Whether `name` (as written by a caller in `callerNamespace`) would name a source that failed to parse. */
function namesUnparsed(table: NameTable, name: string, callerNamespace: string | undefined): boolean {
  const unparsed = table.unparsed;
  if (unparsed === undefined || unparsed.size === 0) return false;
  if (unparsed.has(name) || (callerNamespace && unparsed.has(`${callerNamespace}.${name}`))) return true;
  return !name.includes('.') && [...unparsed.keys()].some((candidate) => finalSegment(candidate) === name);
}

/** A source wins over an import alias of the same name; the manifest checker refuses that clash. */
function exactTarget(table: NameTable, name: string): Target | undefined {
  if (table.sources.has(name)) return { kind: 'source', name };
  if (table.imports.has(name)) return { kind: 'import', alias: name };
  return undefined;
}

function* allNames(table: NameTable): Iterable<string> {
  yield* table.sources.keys();
  for (const alias of table.imports.keys()) if (!table.sources.has(alias)) yield alias;
}

/** The name a target is addressed by: the declared source name, the alias or the external name. */
export function targetName(target: Target): string {
  return target.kind === 'import' ? target.alias : target.name;
}

/** A stable key: equal targets have equal keys. */
export function targetKey(target: Target): string {
  return `${target.kind}:${targetName(target)}`;
}

/** Deduplicated and sorted by name, then kind, so bundles list them deterministically. */
export function sortTargets(targets: Iterable<Target>): Target[] {
  const unique = new Map<string, Target>();
  for (const t of targets) unique.set(targetKey(t), t);
  return [...unique.values()].sort((a, b) => compare(targetName(a), targetName(b)) || compare(a.kind, b.kind));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
