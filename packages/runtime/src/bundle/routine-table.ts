import type { FileEntry, PackageContent, SourceEntry, Target } from './content.js';

/** One package of a bundle: the bundle itself, or an embedded import (recursively). */
export interface PackageView {
  /** `''` for the bundle; `alias/` (nested: `a/b/`) for an import, the prefix of qualified names. */
  readonly prefix: string;
  readonly id: string;
  readonly content: PackageContent;
  readonly files: ReadonlyMap<string, FileEntry>;
  readonly imports: ReadonlyMap<string, { view: PackageView; export: string | undefined }>;
}

/** A callable routine wherever it lives. */
export interface RoutineRef {
  readonly pkg: PackageView;
  /** Its declared name inside its package. */
  readonly name: string;
  /** Unique in the bundle: the name for the bundle's own routines, `alias/name` for imported ones. */
  readonly qualified: string;
  readonly source: SourceEntry;
}

export function packageView(id: string, content: PackageContent, prefix = ''): PackageView {
  const imports = new Map<string, { view: PackageView; export: string | undefined }>();
  for (const entry of content.imports) {
    imports.set(entry.name, { view: packageView(entry.id, entry.content, `${prefix}${entry.name}/`), export: entry.export });
  }
  return { prefix, id, content, files: new Map(content.files.map((f) => [f.path, f])), imports };
}

export type Resolved = { kind: 'routine'; routine: RoutineRef } | { kind: 'external'; name: string } | { kind: 'opaque'; view: PackageView; alias: string };

/** Follows a resolved compiler target to the routine it names; an import alias goes to its export. */
export function resolveTarget(pkg: PackageView, target: Target): Resolved | undefined {
  if (target.kind === 'external') return { kind: 'external', name: target.name };
  if (target.kind === 'source') return routineIn(pkg, target.name);
  const imported = pkg.imports.get(target.alias);
  if (imported === undefined) return undefined;
  if (imported.export === undefined) return { kind: 'opaque', view: imported.view, alias: target.alias };
  const entry =
    imported.view.content.exports.find((e) => e.name === imported.export) ??
    imported.view.content.exports.find((e) => e.target.kind === 'source' && e.target.name === imported.export);
  return entry === undefined ? undefined : resolveTarget(imported.view, entry.target);
}

function routineIn(pkg: PackageView, name: string): Resolved | undefined {
  if (!Object.prototype.hasOwnProperty.call(pkg.content.sources, name)) return undefined;
  const source = pkg.content.sources[name]!;
  return { kind: 'routine', routine: { pkg, name, qualified: `${pkg.prefix}${name}`, source } };
}

/** Every package of the bundle, the bundle first. */
export function allPackages(root: PackageView): PackageView[] {
  const out: PackageView[] = [];
  const visit = (view: PackageView): void => {
    out.push(view);
    for (const imported of view.imports.values()) visit(imported.view);
  };
  visit(root);
  return out;
}
