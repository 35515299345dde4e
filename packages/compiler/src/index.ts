// The public API. What the adapters and the CLI need beyond it goes through named subpaths
// (`@berrypack/compiler/internal-adapter`, `/internal-cli`), as mdx's `internal-*` exports do:
// no stability promise there, and this list stays what a user builds on.
export type { Diagnostic, RelatedLocation, Severity } from './diagnostics/diagnostic.js';
export { hasErrors, sortDiagnostics } from './diagnostics/diagnostic.js';
export { CODES, type Code, type CodeInfo } from './diagnostics/codes.js';
export { codeFrame } from './diagnostics/code-frame.js';
export { LineIndex, type Position } from './diagnostics/line-index.js';
export { checkSource, type CheckSourceResult, type RoutineSource } from './routine/check-routine.js';
export type { SourceKind } from './routine/context.js';
export { checkDirectory, type CheckDirectoryResult } from './check-directory.js';
export { createCompiler, type BuildOptions, type BuildResult, type Compiler, type CompilerOptions, type CompilerStats } from './package/compile-package.js';
export type { PackageSummary } from './package/assemble-content.js';
export { parseCatalog, type Catalog, type CatalogTool } from './package/catalog.js';
export { canonicalJson, RawJson } from './bundle/canonical-json.js';
export { BUNDLE_FORMAT, bundleFileName, createBundle, type BundleFile } from './bundle/envelope.js';
export { BUNDLE_FORMATS, type BundleFormat } from './bundle/content-view.js';
export { readBundle, type BundleError, type LoadedBundle, type ReadBundleResult } from './bundle/read-bundle.js';
export { loadBundleFile, writeBundle, writeBundleAsync } from './bundle/write-bundle.js';
export { nodeHost, type CompilerHost } from './host.js';
export type { FilterPattern, PluginOptions } from './package/plugin-options.js';
export {
  checkMethod,
  isMethodFile,
  METHOD_FORMAT,
  findPlaceholders,
  elementType,
  type CompiledMethod,
  type CompiledStep,
  type CheckSpec,
  type DataType,
  type Reference as MethodReference,
} from './method/index.js';
