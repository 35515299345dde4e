// What a bundler adapter needs beyond the public API (packages/compiler/README.md, "For
// adapter authors"). A seam for berrypack's own packages: it may change in any release.
export {
  createBuildMemo,
  findPackageManifest,
  isBerryImport,
  isBerryManifest,
  manifestForImport,
  renderImportModule,
  renderPackageModule,
  renderRoutineModule,
  routineForFile,
  type BuildMemo,
  type ModuleOptions,
} from './package/importer-module.js';
export { resolvePluginOptions, type FilterPattern, type PluginOptions, type ResolvedPluginOptions } from './package/plugin-options.js';
export { subtreeWatchPaths } from './package/watch-paths.js';
export { readNormalized } from './source/read-normalized.js';
