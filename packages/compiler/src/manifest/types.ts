import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { LineIndex } from '../diagnostics/line-index.js';
import type { Span } from '../diagnostics/reporter.js';
import type { YMap } from '../source/yaml-tree.js';

export const PLUGIN_SCHEMA = 'https://agent-plugins.org/schemas/1.0.0/plugin.schema.json';
export const BERRY_EXTENSION = 'ai.strawberry.berry';

export interface ManifestInfo {
  /** Absolute. */
  file: string;
  /** Absolute: the package directory. */
  dir: string;
  /** Normalized text (BOM dropped, LF line ends). */
  text: string;
  lines: LineIndex;
  tree: YMap;
  /** `sha256-<hex>` of the raw bytes (the MAN-8 version). */
  digest: string;
  /** True when `extensions["ai.strawberry.berry"]` is present: bundlers leave other plugin.json files alone. */
  isBerry: boolean;
  /** Undefined when missing or invalid. */
  name: string | undefined;
  version: string | undefined;
  /** Absolute; the manifest directory unless `sources` names another (valid) one. */
  sourcesDir: string;
  /** The `sources` value in plugin.json, for diagnostics about the directory; undefined when omitted. */
  sourcesSpan: Span | undefined;
  agents: AgentDecl[];
  exports: NameRef[];
  imports: ImportDecl[];
  resources: ResourceDecl[];
  requires: NameRef[];
  interfaces: unknown[];
  runtime: unknown | undefined;
  /** Standard (non-Berry) manifest metadata to carry into the bundle: every top-level key except `extensions`, as JSON. */
  metadata: Record<string, unknown>;
}

export interface NameRef {
  name: string;
  span: Span;
}

export interface AgentDecl {
  id: string;
  idSpan: Span;
  title: string;
  description: string;
  entry: string;
  entrySpan: Span;
  welcome?: unknown;
  icons?: unknown;
  presentation?: unknown;
}

export interface ImportDecl {
  name: string;
  nameSpan: Span;
  kind: 'manifest' | 'bundle' | 'root';
  /** Absolute path for manifest/bundle; the digest string for root. */
  target: string;
  targetSpan: Span;
  export?: NameRef;
  span: Span;
}

export interface ResourceDecl {
  uri: string;
  mimeType: string;
  /** Absolute. */
  path: string;
  /** POSIX, relative to the manifest directory. */
  relPath: string;
  span: Span;
  pathSpan: Span;
}

export interface ReadManifestResult {
  manifest: ManifestInfo | undefined;
  diagnostics: Diagnostic[];
}

export interface DiscoveryResult {
  /** Absolute `.md` and method-document (`*.method.yaml|yml|json`) paths, sorted. */
  sources: string[];
  /** Every directory listed, for watchers. */
  directories: string[];
  diagnostics: Diagnostic[];
}

export interface CapturedResource {
  uri: string;
  /** POSIX, relative to the manifest directory. */
  path: string;
  mediaType: string;
  digest: string;
  size: number;
  bytes: Uint8Array;
}
