import { handOverBundle } from '@berrypack/compiler/internal-adapter';
import type { HostCompilation, HostCompiler } from './host.js';
import { writesToNodeFs } from './node-output.js';

/**
 * In a watch session writing to disk, the bundle a rebuild supersedes becomes the new bundle's
 * file (`handOverBundle`): renamed to the new name just before the host writes, so the host
 * overwrites it instead of creating a file, and the session leaves one bundle per package.
 */
export interface HandOver {
  /**
   * Called as the bundle of `slot` (its manifest) is emitted as `name`: whether the asset may be
   * marked `immutable`. Not when its file is to be handed over: the host would find the old
   * bytes under the new name and keep them (webpack and Rspack skip writing an existing file for
   * an immutable asset).
   */
  immutable(compilation: HostCompilation, slot: string, name: string): boolean;
  /** In the host's `emit` hook, after which it writes the assets: renames what was planned. */
  emitting(compilation: HostCompilation): void;
}

export function createHandOver(host: HostCompiler): HandOver {
  /** Output directory and slot -> the bundle's name the last emit of this plugin instance wrote. */
  const written = new Map<string, string>();
  /** Per compilation: slot -> the bundle's name emitted for it, and whether its asset is mutable. */
  const planned = new WeakMap<HostCompilation, Map<string, { name: string; handOver: boolean }>>();
  const lastBySlot = new Map<string, string>();
  return {
    immutable(compilation, slot, name) {
      const previous = lastBySlot.get(slot);
      // A watch session only: a single build leaves every older file alone. Not under Rspack's
      // `output.clean`, which may remove the superseded file while this hook renames it (then the
      // host writes a new file); it removes the superseded bundle itself.
      const racesClean = host.webpack.rspackVersion !== undefined && Boolean(host.options.output?.clean);
      const handOver = host.watchMode === true && previous !== undefined && previous !== name && writesToNodeFs(host) && !racesClean;
      let plan = planned.get(compilation);
      if (!plan) planned.set(compilation, (plan = new Map()));
      plan.set(slot, { name, handOver });
      return !handOver;
    },
    emitting(compilation) {
      const plan = planned.get(compilation);
      if (!plan || host.outputPath === undefined) return;
      const dir = compilation.getPath(host.outputPath, {});
      for (const [slot, { name, handOver }] of plan) {
        // Another plugin may have removed or renamed the asset after it was emitted.
        if (!compilation.getAsset(name)) continue;
        const key = `${dir}\0${slot}`;
        const previous = written.get(key);
        // webpack compares an existing file with the asset only when their lengths match; Rspack always.
        const size = host.webpack.rspackVersion === undefined ? sizeOf(compilation.getAsset(name)) : undefined;
        if (handOver && previous !== undefined) handOverBundle(dir, previous, name, size);
        written.set(key, name);
        lastBySlot.set(slot, name);
      }
    },
  };
}

/** The length of an asset's source, if it tells. */
function sizeOf(asset: unknown): number | undefined {
  const size = (asset as { source?: { size?: () => unknown } } | undefined)?.source?.size?.();
  return typeof size === 'number' ? size : undefined;
}
