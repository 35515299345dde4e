import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import type { RoutineSource } from '../../routine/check-routine.js';
import { checkNames } from '../../check-directory.js';
import { Sweeper } from './sweeper.js';

interface NameCheck {
  /** SRC-9's diagnostics. */
  diagnostics: Diagnostic[];
  /** The named routines, the first of each name, in the order given. */
  unique: RoutineSource[];
  /** The same by name: one map per manifest, brought up to date on a rebuild (not to be kept across builds). */
  byName: ReadonlyMap<string, RoutineSource>;
}

/**
 * SRC-9 over a package's routines, kept per manifest: when the last check found every routine
 * named, unique and in its conventional file, a rebuild whose routines carry the same names in
 * the same files, in the same order, has the same (empty) answer without a table of names.
 */
export class NameCheckCache {
  readonly #last = new Map<string, { routines: readonly RoutineSource[]; check: NameCheck & { byName: Map<string, RoutineSource> } }>();
  readonly #live = new Sweeper();

  check(manifestFile: string, routines: readonly RoutineSource[]): NameCheck {
    this.#live.use(manifestFile);
    const last = this.#last.get(manifestFile);
    if (last !== undefined && last.check.diagnostics.length === 0 && last.check.unique.length === routines.length && sameNames(last.routines, routines)) {
      const byName = last.check.byName;
      for (let i = 0; i < routines.length; i++) if (routines[i] !== last.routines[i]) byName.set(routines[i]!.name!, routines[i]!);
      this.#last.set(manifestFile, { routines, check: last.check });
      return { diagnostics: [], unique: [...routines], byName };
    }
    const unique = uniqueByName(routines);
    const check = { diagnostics: checkNames(routines), unique, byName: new Map(unique.map((r) => [r.name!, r])) };
    this.#last.set(manifestFile, { routines, check });
    // Copies: a caller may rewrite a diagnostic (relative paths).
    return { diagnostics: check.diagnostics.map((d) => ({ ...d })), unique: [...unique], byName: check.byName };
  }

  sweep(root: string): void {
    this.#live.sweep(root, this.#last);
  }
}

function sameNames(a: readonly RoutineSource[], b: readonly RoutineSource[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i] && (a[i]!.name !== b[i]!.name || a[i]!.file !== b[i]!.file)) return false;
  return true;
}

function uniqueByName(routines: readonly RoutineSource[]): RoutineSource[] {
  const byName = new Map<string, RoutineSource>();
  for (const r of routines) if (r.name !== undefined && !byName.has(r.name)) byName.set(r.name, r);
  return [...byName.values()];
}
