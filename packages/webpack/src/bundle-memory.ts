import type { HostCompilation, HostCompiler } from './host.js';
import { writesToNodeFs } from './node-output.js';

/**
 * The memory webpack's copy of a bundle is joined into, reused from one watch rebuild to the next.
 * webpack writes one buffer per asset, so each rebuild joins the bundle's parts (2.6 MB at
 * N = 1,000). Into fresh memory that cost 10-15 ms of page faults per rebuild on the bench VM,
 * and the previous join's memory is free again only after a collection happened to run. The
 * memory is reused only when nothing but the write can have seen it:
 * - the output file system is Node's (webpack's own, which copies the bytes to the file before
 *   its callback; an in-memory one such as webpack-dev-middleware's keeps the very buffer);
 * - nobody listens on `assetEmitted` (a listener is handed the buffer and may keep it);
 * - and webpack replaced the written asset's source by its size, so the compilation holds no
 *   reference to it. An asset that was not written (an error after `processAssets`, a plugin
 *   that cancelled the emit) keeps its memory, and the next join takes fresh memory.
 */
export interface BundleMemory {
  /** `parts` joined, for the asset `name` of `compilation`; `slot` names the package, so two bundles never share memory. */
  join(parts: readonly Uint8Array[], slot: string, compilation: HostCompilation, name: string): Buffer;
  /** After webpack's emit: which joins' memory nothing refers to any more. */
  emitted(compilation: HostCompilation): void;
}

interface Slot {
  memory: Buffer;
  /** Set while a compilation's asset may still refer to the memory. */
  lent?: { compilation: HostCompilation; name: string } | undefined;
}

export function createBundleMemory(host: HostCompiler): BundleMemory {
  const slots = new Map<string, Slot>();
  return {
    join(parts, slot, compilation, name) {
      const length = parts.reduce((sum, part) => sum + part.byteLength, 0);
      if (!reusable(host)) {
        slots.delete(slot);
        return Buffer.concat(parts, length);
      }
      let entry = slots.get(slot);
      if (!entry || entry.lent || entry.memory.length < length) {
        // Room to grow: an edit usually adds a few bytes, and a smaller bundle fits as it is.
        entry = { memory: Buffer.allocUnsafeSlow(length + (length >> 3)) };
        slots.set(slot, entry);
      }
      let offset = 0;
      for (const part of parts) {
        entry.memory.set(part, offset);
        offset += part.byteLength;
      }
      entry.lent = { compilation, name };
      return entry.memory.subarray(0, length);
    },
    emitted(compilation) {
      for (const [slot, entry] of slots) {
        if (entry.lent?.compilation !== compilation) continue;
        // webpack swaps the source of an asset it wrote (or found already written) for its size.
        const { SizeOnlySource } = host.webpack.sources;
        const asset = compilation.getAsset(entry.lent.name) as { source?: unknown } | undefined;
        if (SizeOnlySource !== undefined && asset?.source instanceof SizeOnlySource) delete entry.lent;
        else slots.delete(slot);
      }
    },
  };
}

/** webpack (not Rspack, whose Rust side may hold what it is given) writing to Node's own file system, and no `assetEmitted` listener. */
function reusable(host: HostCompiler): boolean {
  if (host.webpack.rspackVersion !== undefined) return false;
  return writesToNodeFs(host) && host.hooks.assetEmitted?.isUsed() === false;
}
