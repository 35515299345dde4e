import { failure } from '../errors.js';
import type { Target } from '../bundle/content.js';
import type { PackageView, RoutineRef } from '../bundle/routine-table.js';
import type { RefValue } from './native-schema.js';

/**
 * The value a `!ref` captures (REF-4): the exact address of a source or import, `{name,
 * digest}`, where the digest is the source file's (a source) or the imported content's id (an
 * import). Decision: an address is plain JSON data, so it validates against schema `const`s,
 * travels through `next.input` and is recorded like any value; it grants nothing.
 */
export interface Address {
  name: string;
  digest: string;
}

export function addressOf(pkg: PackageView, target: Target): Address {
  if (target.kind === 'source') {
    const source = Object.hasOwn(pkg.content.sources, target.name) ? pkg.content.sources[target.name] : undefined;
    if (source) return { name: target.name, digest: source.digest };
  } else if (target.kind === 'import') {
    const imported = pkg.imports.get(target.alias);
    if (imported) return { name: target.alias, digest: imported.view.id };
  }
  throw failure(
    'invalid-bundle',
    `Unexpected \`!ref\` to ${target.kind} \`${target.kind === 'import' ? target.alias : target.name}\`, expected a source or import of the package`,
  );
}

/**
 * Schema `const`/`enum` keep the name as written (`{"!ref": "textlib"}`); the routine's `refs`
 * hold what it resolved to. The written name is matched the way REF-2 resolved it: exactly, as a
 * sibling in the routine's namespace, or as the unique final segment.
 */
export function schemaRefValue(routine: RoutineRef): RefValue {
  const refs = routine.source.refs ?? [];
  const nameOf = (t: Target) => (t.kind === 'import' ? t.alias : t.name);
  const namespace = routine.name.includes('.') ? routine.name.slice(0, routine.name.lastIndexOf('.')) : '';
  return (written) => {
    const match =
      refs.find((t) => nameOf(t) === written) ??
      refs.find((t) => namespace !== '' && nameOf(t) === `${namespace}.${written}`) ??
      only(refs.filter((t) => nameOf(t).split('.').pop() === written));
    if (match === undefined) throw failure('invalid-bundle', `Unexpected \`!ref ${written}\` in \`${routine.qualified}\`, which the bundle did not resolve`);
    return addressOf(routine.pkg, match);
  };
}

function only<T>(items: T[]): T | undefined {
  return items.length === 1 ? items[0] : undefined;
}
