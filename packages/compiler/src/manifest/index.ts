export { readManifest } from './read-manifest.js';
export { discoverSources, MAX_DISCOVERY_ENTRIES } from './discover-sources.js';
export { captureResources } from './capture-resources.js';
export { isInside, checkRelativePath } from './paths.js';
export { checkPackageName } from './package-name.js';
export {
  BERRY_EXTENSION,
  PLUGIN_SCHEMA,
  type AgentDecl,
  type CapturedResource,
  type DiscoveryResult,
  type ImportDecl,
  type ManifestInfo,
  type NameRef,
  type ReadManifestResult,
  type ResourceDecl,
} from './types.js';
