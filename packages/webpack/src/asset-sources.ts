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
  // RealContentHashPlugin leaves bytes alone), so webpack keeps the joined bytes.
  const native = host.webpack.rspackVersion !== undefined && ConcatSource !== undefined;
  return {
    blob: (bytes) => new RawSource(view(bytes)),
    bundle: (bundle) =>
      native && bundle.parts ? new ConcatSource(...(bundle.parts.map((part) => new RawSource(view(part))) as never[])) : new RawSource(view(bundle.bytes)),
  };
}

/** A Buffer over the same memory (no copy). */
function view(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
