import type { BuildMemo } from './importer-module.js';
import type { Offload } from './offload.js';
import type { BuildResult } from './types.js';

/**
 * A one-shot host build's memo: `prepare` takes the result the worker compiled ahead of the host
 * (offload.ts), and `build` then gives it as `inner` would give its own (`first` on the first call
 * since `clear`); a package the worker has no result for goes to `inner`, on this thread.
 */
export function offloadedMemo(inner: BuildMemo, offload: () => Offload | undefined): BuildMemo {
  const taken = new Map<string, BuildResult>();
  const given = new Set<string>();
  const preparing = new Map<string, Promise<void>>();
  // A take that settles after `clear` belongs to the build before.
  let generation = 0;
  return {
    build(manifest) {
      const result = taken.get(manifest);
      if (result === undefined) return inner.build(manifest);
      const first = !given.has(manifest);
      given.add(manifest);
      return { result, first };
    },
    warm(manifest) {
      if (!taken.has(manifest)) inner.warm(manifest);
    },
    prepare(manifest) {
      let pending = preparing.get(manifest);
      if (pending === undefined) {
        const at = generation;
        // Modules of one package loading at once share one take.
        pending = (async () => {
          const result = await offload()?.take(manifest);
          if (result !== undefined && at === generation) taken.set(manifest, result);
          else await inner.prepare(manifest);
        })();
        const settled = pending;
        settled.catch(() => preparing.get(manifest) === settled && preparing.delete(manifest));
        preparing.set(manifest, pending);
      }
      return pending;
    },
    clear(changed) {
      generation++;
      taken.clear();
      given.clear();
      preparing.clear();
      inner.clear(changed);
    },
  };
}
