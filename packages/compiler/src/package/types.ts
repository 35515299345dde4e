import type { BundleFile } from '../bundle/envelope.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { CompilerHost } from '../host.js';
import type { ManifestInfo } from '../manifest/types.js';
import type { PackageResolution } from '../reference/resolve-package.js';
import type { Catalog } from './catalog.js';
import type { CheckWorker } from './check-worker-start.js';

// The shapes the package build passes between its steps and to its callers. A leaf: it imports
// types from elsewhere, and nothing in package/ needs compile-package.ts for a type.

export interface CompilerOptions {
  /** File access; defaults to the real file system. */
  host?: CompilerHost;
  /** Model and tool catalog (CONTRACTS.md); without one, MDL-6 is deferred and external tools must be in `requires`. */
  catalog?: Catalog;
  /** Content store for `root` imports; default `node_modules/.cache/berrypack/store` under the current directory. */
  store?: string;
  /**
   * Whether `prepare` reads sources on a second thread (this one checks them): `true` for any package;
   * `false` or unset, never (on two cores the thread costs more than it saves since the
   * frontmatter fast path; docs/performance.md).
   */
  parallel?: boolean;
  /**
   * A worker started on the manifest before the compiler was loaded (`startCheckWorker` of
   * `@berrypack/compiler/internal-check-worker`; the CLI's `build`): the first `prepare` checks
   * the package's sources with it, whatever the package's size. Stopped by that `prepare`.
   */
  checkWorker?: CheckWorker;
  /**
   * This compiler builds once and is then dropped (the CLI's `build` without `--watch`): it keeps
   * nothing for a later build to compare with (no digest of each source, no sweeps of its caches).
   * A later `build` is still correct (it checks every source again). Default `false`.
   */
  oneShot?: boolean;
}

export interface BuildOptions {
  /** MAN-8: the expected `sha256-<hex>` of the plugin.json bytes. */
  version?: string;
  /**
   * `false`: check only. The same diagnostics, files and directories, but the bundle is not
   * assembled (`bundle` and `summary` stay undefined): what an editor needs on each keystroke.
   */
  bundle?: boolean;
  /**
   * What a watcher reported changed (created, modified, deleted) since this compiler's previous
   * build of the same manifest, when it reports every change to the files that build returned
   * (Rollup's `watchChange`, webpack's `modifiedFiles` and `removedFiles`): the files that build
   * read and that are not listed are taken as unchanged without a stat. Omitted: every file read
   * before is checked (its identity, size and times).
   */
  changedFiles?: Iterable<string>;
}

export interface BuildResult {
  ok: boolean;
  diagnostics: Diagnostic[];
  bundle: BundleFile | undefined;
  /** What the importer's module describes: name, agents, exports, routines, requirements. */
  summary: PackageSummary | undefined;
  /** Every file and directory the build read or probed: watch these to rebuild on any change. */
  files: string[];
  directories: string[];
  /** Those of `files` that did not exist when the build asked (a bundler watches them as missing files); sorted. */
  missing?: string[];
}

export interface CompilerStats {
  sourcesParsed: number;
  sourcesReused: number;
  fragmentsSerialized: number;
  fragmentsReused: number;
  modulesAnalyzed: number;
  modulesReused: number;
  codeRoutinesAnalyzed: number;
  codeRoutinesReused: number;
  /** Sources `prepare` had read on its worker thread. */
  sourcesFromWorker: number;
  routinesResolved: number;
  routinesReused: number;
  /** Files read in full, and files served from memory because their stamp was unchanged. */
  filesRead: number;
  filesUnchanged: number;
  /**
   * Bytes of bundle content hashed for ids, and bytes whose hash state a watch compiler took
   * from the package's previous bundle (the unchanged parts before the first change).
   */
  contentBytesHashed: number;
  contentBytesReused: number;
}

export interface Compiler {
  build(manifest: string, options?: BuildOptions): BuildResult;
  /**
   * Optional, before the first `build`: for a large package (see `parallel`), reads and checks
   * the package's sources on two threads at once and keeps the results for `build`, which then
   * only assembles. A no-op otherwise, for sources already cached, and for a custom host.
   */
  prepare(manifest: string): Promise<void>;
  /**
   * What a build of `manifest` reads that is known before it runs: plugin.json, the sources
   * discovery finds and the directories it walks (the build adds the code modules, resources and
   * paths it probes). For a host that takes watch paths before the compile's answer: esbuild
   * reads every watch file a plugin returns, even in a one-shot build, so the esbuild plugin hands
   * it these with the manifest's resolution and compiles meanwhile. Through the build's own caches:
   * the build that follows does not walk the tree again. Undefined when plugin.json cannot be read
   * as a manifest; it never throws.
   */
  sourcePaths(manifest: string): { files: string[]; directories: string[] } | undefined;
  readonly stats: CompilerStats;
}

/**
 * Where a routine's `next` may go: a local source by name, `null` for a case that ends the chain
 * with the routine's own output, `'other'` for an import or external tool (its output unknown
 * here). What a caller receives is the output at the end of the chain.
 */
export type NextStep = { source: string } | null | 'other';

/** What an importer's module and `berrypack types` describe about a package. */
export interface PackageSummary {
  id: string;
  fileName: string;
  name: string;
  agents: Record<string, { title: string; description: string; entry: string }>;
  exports: string[];
  routines: Record<string, { kind: string; path: string; digest: string; visibility: string; input?: unknown; output?: unknown; next?: NextStep[] }>;
  requirements: PackageResolution['requirements'];
}

export interface PackageBuild {
  diagnostics: Diagnostic[];
  manifest: ManifestInfo | undefined;
  /** `content` holds cached canonical fragments; `plain` is the same content as ordinary objects, for importers. */
  result: { bundle: BundleFile; summary: PackageSummary; content: unknown; plain: Record<string, unknown> } | undefined;
}
