import type { BundleFile } from '@berrypack/compiler';
import { createBundleMemory } from './bundle-memory.js';
import type { HostCompilation, HostCompiler } from './host.js';

/** The host's `Source` objects for the assets the plugin emits. */
export interface AssetSources {
  blob(bytes: Uint8Array): unknown;
  /** `slot` names the package the bundle is built from; `compilation` is the one emitting it. */
  bundle(bundle: BundleFile, slot: string, compilation: HostCompilation): unknown;
  /** After the host's emit of `compilation`. */
  emitted(compilation: HostCompilation): void;
}

export function createAssetSources(host: HostCompiler): AssetSources {
  const { RawSource, ConcatSource } = host.webpack.sources;
  // Rspack's ConcatSource goes to Rust as its parts, which Rust joins: the bundle (2.6 MB at
  // N = 1,000) is then never joined in JavaScript, where a fresh buffer that size cost 10-15 ms of
  // page faults per rebuild on the bench machine. webpack's ConcatSource joins its parts into a new
  // buffer anyway and reads as text where a RawSource of a buffer reads as bytes (webpack's
  // RealContentHashPlugin leaves bytes alone), so webpack gets one joined buffer.
  const native = host.webpack.rspackVersion !== undefined && ConcatSource !== undefined;
  const memory = createBundleMemory(host);
  return {
    blob: (bytes) => new RawSource(view(bytes)),
    bundle: (bundle, slot, compilation) => {
      if (!bundle.parts) return new RawSource(view(bundle.bytes));
      if (native) return new ConcatSource(...(bundle.parts.map((part) => new RawSource(view(part))) as never[]));
      // Joined here rather than through `bundle.bytes`, which the BundleFile would keep (and with
      // it the plugin, until the next build), into memory the previous rebuild's write no longer
      // needs where that is safe (bundle-memory.ts).
      return new RawSource(memory.join(bundle.parts, slot, compilation, bundle.fileName));
    },
    emitted: (compilation) => memory.emitted(compilation),
  };
}

/** A Buffer over the same memory (no copy). */
function view(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
