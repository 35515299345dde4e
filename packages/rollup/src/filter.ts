import { filterWithoutPatterns, type FilterPattern, type IdFilter } from '@berrypack/compiler/internal-adapter';

/**
 * The include/exclude filter: given at once without patterns; with patterns `@rollup/pluginutils`
 * is loaded, started here and awaited by the hook that filters first.
 */
export function idFilter(include: FilterPattern | undefined, exclude: FilterPattern | undefined): IdFilter | Promise<IdFilter> {
  const quick = filterWithoutPatterns(include, exclude);
  if (quick) return quick;
  const loading = import('@rollup/pluginutils').then(({ createFilter }) => createFilter(include, exclude));
  // A failed import is reported by the hooks that await it.
  loading.catch(() => undefined);
  return loading;
}
