// What a bundler adapter needs beyond the public API (packages/compiler/README.md, "For
// adapter authors"). A seam for berrypack's own packages: it may change in any release.
export {
  createBuildMemo,
  createBuildSlot,
  createCompilers,
  findPackageManifest,
  isBerryImport,
  isBerryManifest,
  manifestForImport,
  renderImportModule,
  renderPackageModule,
  renderRoutineModule,
  routineForFile,
  type BuildMemo,
  type BuildSlot,
  type Compilers,
  type ModuleOptions,
} from './package/importer-module.js';
export {
  filterWithoutPatterns,
  resolvePluginOptions,
  type FilterPattern,
  type IdFilter,
  type PluginOptions,
  type ResolvedPluginOptions,
} from './package/plugin-options.js';
export { subtreeWatchPaths } from './package/watch-paths.js';
export { readNormalized } from './source/read-normalized.js';
// For an adapter that imports the compiler's main entry only when a build starts: its messages
// are made by modules that load before it.
export { codeFrame } from './diagnostics/code-frame.js';
export { nodeHost } from './host.js';
export { LineIndex } from './diagnostics/line-index.js';
// Watch sessions of hosts that write the bundle themselves: the superseded bundle becomes the new one's file.
export { handOverBundle } from './bundle/hand-over.js';
// Watch sessions whose host does not say what changed: the changed files, from file events.
export { ChangeWatcher } from './package/change-watcher.js';
