import type { FilterPattern } from '@berrypack/compiler';

export type IdFilter = (id: unknown) => boolean;

const none = (pattern: FilterPattern | undefined) => pattern === undefined || pattern === null || (Array.isArray(pattern) && pattern.length === 0);

/**
 * The include/exclude filter of `@rollup/pluginutils`, whose module (with picomatch and
 * estree-walker) costs about 30 ms of a build's start-up to load. Without patterns its filter only
 * refuses what is not a string or is a virtual id (`\0`): that one is given at once, and the module
 * loads only when there are patterns, started here and awaited by the hook that filters first.
 */
export function idFilter(include: FilterPattern | undefined, exclude: FilterPattern | undefined): IdFilter | Promise<IdFilter> {
  if (none(include) && none(exclude)) return (id) => typeof id === 'string' && !id.includes('\0');
  const loading = import('@rollup/pluginutils').then(({ createFilter }) => createFilter(include, exclude));
  // A failed import is reported by the hooks that await it.
  loading.catch(() => undefined);
  return loading;
}
