// The bundle seam the runtime loads without the rest of the compiler (no YAML, no acorn).
export { canonicalJson, RawJson } from './canonical-json.js';
export { digestOf, isDigest, sha256Hex } from './digest.js';
export { BUNDLE_FORMAT, bundleFileName, createBundle, type BundleFile } from './envelope.js';
export { BUNDLE_FORMATS, type BundleFormat } from './content-view.js';
export {
  readBundle,
  verifyBlob,
  type BundleContent,
  type BundleError,
  type BundleFileEntry,
  type BundleResource,
  type LoadedBundle,
  type ReadBundleResult,
} from './read-bundle.js';
export { loadBundleFile, writeBundle, writeBundleAsync } from './write-bundle.js';
// The content's `next.input` / `presentation.value` expressions, as the runtime reads them (type only).
export type { ValueExpression } from '../reference/resolve-expression.js';
