/**
 * The parts of a bundle's `content` the runtime reads (docs/bundle-format.md, "Content";
 * written by packages/compiler/src/package/assemble-content.ts). Everything here was
 * verified by `loadBundle` before it is used.
 */
import type { ValueExpression } from '@berrypack/compiler/bundle';

export type Target = { kind: 'source'; name: string } | { kind: 'import'; alias: string } | { kind: 'external'; name: string };

/** The tagged form of a `next.input` / `presentation.value` expression (NEXT-4), as the compiler writes it. */
export type { ValueExpression };

export type TemplateSegment = { text: string } | { path: string } | { env: string };

export interface ToolLimits {
  calls?: number;
  steps?: number;
  concurrency?: number;
  timeout?: number;
}

export interface ToolOptions {
  async?: boolean;
  output?: boolean;
  limits?: ToolLimits;
  presentation?: { when: 'accepted' | 'completed'; value: ValueExpression };
}

export interface ToolConnection {
  key: string;
  target: Target;
  options: ToolOptions;
}

export type NextEntry = ({ to: Target | null } | { select: string; cases: Record<string, Target | null> }) & {
  input?: ValueExpression;
  output?: boolean;
};

export interface PortDeclaration {
  input: boolean;
  output: boolean;
  limits: { bytes: number; messages: number; pending: number };
}

export interface SourceEntry {
  kind: 'model' | 'code' | 'instructions';
  path: string;
  digest: string;
  visibility: 'public' | 'private';
  description?: string;
  title?: string;
  input?: unknown;
  output?: unknown;
  model?: Record<string, unknown>;
  port?: PortDeclaration;
  permissions?: string[] | 'catalogs' | 'tools';
  catalog?: boolean;
  tools?: ToolConnection[];
  refs?: Target[];
  /** `[[name]]` dependency addresses of the body, included instructions counted. */
  dependencies?: Target[];
  next?: NextEntry;
  template?: TemplateSegment[];
  readers?: string[];
  env?: string[];
  code?: { body: string; imports: string[]; map?: unknown };
  /** Model conversation policies (docs/runtime.md, "Context management"). */
  compaction?: { max_tokens: number; keep_turns: number; summary?: Target };
  configure?: { fields: string[]; routine: Target };
  route?: { routine: Target };
}

export interface Requirements {
  tools: string[];
  readers: string[];
  models: ({ routine: string; select: Record<string, unknown> } | { routine: string; provider: string; id: string })[];
  env: string[];
  ui: boolean;
  calls: string[];
}

export interface ImportEntry {
  name: string;
  kind: 'manifest' | 'bundle' | 'root';
  id: string;
  export?: string;
  content: PackageContent;
}

export interface PublicEntry {
  name: string;
  target: Target;
  entry: boolean;
}

export interface AgentEntry {
  title: string;
  description: string;
  entry: string;
}

export interface FileEntry {
  path: string;
  mediaType: string;
  digest: string;
  size: number;
  text: string;
}

export interface PackageContent {
  agents: Record<string, AgentEntry>;
  exports: PublicEntry[];
  files: FileEntry[];
  imports: ImportEntry[];
  modules: Record<string, { imports: string[] }>;
  plugin: { name: string; version?: string };
  requirements: Requirements;
  requires?: string[];
  resources?: ResourceEntry[];
  sources: Record<string, SourceEntry>;
}

/** A resource the bundle captured (its bytes are a blob, by digest). */
export interface ResourceEntry {
  uri: string;
  path: string;
  mediaType: string;
  digest: string;
  size: number;
}
