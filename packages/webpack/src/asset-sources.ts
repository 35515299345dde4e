import type { BundleFile } from '@berrypack/compiler';
import type { HostCompiler } from './host.js';

/** The host's `Source` objects for the assets the plugin emits. */
export interface AssetSources {
  blob(bytes: Uint8Array): unknown;
  bundle(bundle: BundleFile): unknown;
}

export function createAssetSources(host: HostCompiler): AssetSources {
  const { RawSource, ConcatSource } = host.webpack.sources;
  // Rspack's ConcatSource goes to Rust as its parts, which Rust joins: the bundle (2.6 MB at
  // N = 1,000) is then never joined in JavaScript, where a fresh buffer that size cost 10-15 ms of
  // page faults per rebuild on the bench machine. webpack's ConcatSource joins its parts into a new
  // buffer anyway and reads as text where a RawSource of a buffer reads as bytes (webpack's
  // RealContentHashPlugin leaves bytes alone), so webpack gets one joined buffer.
  const native = host.webpack.rspackVersion !== undefined && ConcatSource !== undefined;
  return {
    blob: (bytes) => new RawSource(view(bytes)),
    bundle: (bundle) => {
      if (!bundle.parts) return new RawSource(view(bundle.bytes));
      if (native) return new ConcatSource(...(bundle.parts.map((part) => new RawSource(view(part))) as never[]));
      // Joined here rather than through `bundle.bytes`, which the BundleFile would keep (and with
      // it the plugin, until the next build): webpack swaps an emitted asset's source for its size,
      // so this buffer is garbage once written, and the allocator can give its memory to the next
      // rebuild's join instead of fresh pages (about 400 of a rebuild's 1,300 page faults at
      // N = 1,000; bench/workers/watch.mjs' minorFaults).
      return new RawSource(Buffer.concat(bundle.parts));
    },
  };
}

/** A Buffer over the same memory (no copy). */
function view(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
