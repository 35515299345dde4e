import path from 'node:path';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { hasErrors, sortDiagnostics } from '../diagnostics/diagnostic.js';
import { LineIndex } from '../diagnostics/line-index.js';
import { Reporter } from '../diagnostics/reporter.js';
import { createBundle } from '../bundle/envelope.js';
import { CodeCache } from '../code/index.js';
import { nodeHost, ReadCache, TrackingHost, type CompilerHost } from '../host.js';
import { captureResources, readManifest } from '../manifest/index.js';
import type { RoutineSource } from '../routine/check-routine.js';
import { ResolutionMemo, resolvePackage } from '../reference/resolve-package.js';
import type { ImportAlias, NameTable } from '../reference/resolve-name.js';
import { assembleContent, FragmentCache } from './assemble-content.js';
import { analyzeCode, RoutineCodeCache } from './steps/analyze-code.js';
import { resolveImports, type CompiledImport } from './steps/resolve-imports.js';
import { checkRegularFile, refuseManifestFile } from './steps/regular-file.js';
import { checkInParallel, parallelAllowed, startOnFiles, worthAThread } from './check-pool.js';
import { AnswerRecorder } from './answer-recorder.js';
import { SourceCache } from './cache/source-cache.js';
import { DiscoveryCache } from './cache/discovery-cache.js';
import { ManifestCache } from './cache/manifest-cache.js';
import { HashChainCache } from './cache/hash-chain-cache.js';
import { NameCheckCache } from './cache/name-check-cache.js';
import { checkMethod, isMethodFile } from '../method/index.js';
import { relativePosix } from './steps/paths.js';
import { decodeSourceText } from '../source/normalize-text.js';
import { recoverName } from '../source/recover-name.js';
import type { CompiledMethodFile } from './assemble-content.js';
import type { CheckWorker } from './check-worker-start.js';
import type { BuildOptions, Compiler, CompilerOptions, PackageBuild } from './types.js';

/**
 * One compiler per host (a bundler plugin instance, a watch session, a CLI run). It keeps
 * per-file work keyed by content digest, so a rebuild redoes only what changed.
 */
export function createCompiler(options: CompilerOptions = {}): Compiler {
  const oneShot = options.oneShot === true;
  const sources = new SourceCache(oneShot);
  const code = new CodeCache();
  const fragments = new FragmentCache();
  const reads = new ReadCache(options.host ?? nodeHost);
  const codeRoutines = new RoutineCodeCache();
  const resolutions = new ResolutionMemo(!oneShot);
  const discoveries = new DiscoveryCache();
  const manifests = new ManifestCache();
  const names = new NameCheckCache();
  const hashes = new HashChainCache(oneShot);
  const store = options.store ?? path.resolve('node_modules/.cache/berrypack/store');

  function buildPackage(
    manifestFile: string,
    host: TrackingHost,
    stack: readonly string[],
    buildOptions: BuildOptions,
    session: Map<string, PackageBuild>,
  ): PackageBuild {
    const diagnostics: Diagnostic[] = [];
    const refused = refuseManifestFile(host, manifestFile);
    if (refused) return { diagnostics: refused, manifest: undefined, result: undefined };
    let bytes: Uint8Array;
    try {
      bytes = host.readFile(manifestFile);
    } catch (error) {
      const r = new Reporter(manifestFile, new LineIndex(''));
      r.report('BP9001', { start: 0, end: 0 }, `Unexpected error reading plugin.json: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
      return { diagnostics: r.diagnostics, manifest: undefined, result: undefined };
    }
    const read = manifests.read(manifestFile, bytes, buildOptions.version === undefined ? {} : { version: buildOptions.version });
    diagnostics.push(...read.diagnostics);
    const manifest = read.manifest;
    if (!manifest) return { diagnostics, manifest: undefined, result: undefined };

    const discovery = discoveries.discover(manifest, bytes, host);
    diagnostics.push(...discovery.diagnostics);
    const routines: RoutineSource[] = [];
    /** Names of sources that failed to parse, recovered from their text, and their files. */
    const unparsed = new Map<string, string>();
    const methods: CompiledMethodFile[] = [];
    for (const file of discovery.sources) {
      let source: Uint8Array;
      try {
        source = host.readFile(file);
      } catch (error) {
        // A file that vanished between listing and reading: report it, never crash.
        const r = new Reporter(file, new LineIndex(''));
        r.report('BP9001', { start: 0, end: 0 }, `Unexpected error reading the file: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
        diagnostics.push(...r.diagnostics);
        continue;
      }
      if (isMethodFile(file)) {
        const checked = checkMethod(file, source);
        diagnostics.push(...checked.diagnostics);
        if (checked.method) {
          const text = decodeSourceText(source);
          methods.push({ path: relativePosix(manifest.dir, file), method: checked.method, text: text.ok ? text.text : '' });
        }
        continue;
      }
      const checked = sources.check(file, source);
      diagnostics.push(...checked.diagnostics);
      if (checked.routine) routines.push(checked.routine);
      else if (hasErrors(checked.diagnostics)) {
        const text = decodeSourceText(source);
        const name = text.ok ? recoverName(text.text) : undefined;
        if (name !== undefined) unparsed.set(name, file);
      }
    }
    const named = names.check(manifestFile, routines);
    diagnostics.push(...named.diagnostics);
    const unique = named.unique;

    const imports = resolveImports(manifest, {
      host,
      store,
      stack: [...stack, manifestFile],
      // One build compiles each imported package once, however many imports name it.
      compileManifest: (file) => {
        const known = session.get(file);
        if (known) return { ...known, diagnostics: [] };
        const built = buildPackage(file, host, [...stack, manifestFile], {}, session);
        session.set(file, built);
        return built;
      },
    });
    diagnostics.push(...imports.diagnostics);

    const table: NameTable = {
      sources: named.byName,
      imports: new Map(imports.imports.map((i): [string, ImportAlias] => [i.alias.alias, i.alias])),
      externals: new Set([...manifest.requires.map((r) => r.name), ...(options.catalog?.tools ?? []).map((t) => t.name)]),
      unparsed,
    };
    const resolution = resolvePackage(
      {
        routines: unique,
        table,
        agents: manifest.agents.map((a) => ({ id: a.id, entry: a.entry, entrySpan: a.entrySpan })),
        exports: manifest.exports,
        manifest: { file: manifest.file, lines: manifest.lines },
        catalogGiven: options.catalog !== undefined,
      },
      resolutions,
    );
    diagnostics.push(...resolution.diagnostics);

    const analysis = analyzeCode(unique, manifest, { host, packageRoot: realDir(host, manifest.dir), cache: code }, codeRoutines);
    diagnostics.push(...analysis.diagnostics);

    const captured = captureResources(manifest, host);
    diagnostics.push(...captured.diagnostics);

    if (hasErrors(diagnostics) || buildOptions.bundle === false) return { diagnostics, manifest, result: undefined };
    const assembled = assembleContent(
      { manifest, manifestBytes: bytes, routines: unique, methods, resolution, code: analysis, resources: captured.resources, imports },
      fragments,
    );
    const blobs = new Map(captured.resources.map((r) => [r.digest.slice('sha256-'.length), r.bytes]));
    for (const imported of imports.imports) for (const [hex, blob] of imported.blobs) blobs.set(hex, blob);
    const bundle = createBundle(manifest.name ?? 'plugin', assembled.content, blobs, hashes.chainFor(manifest.file));
    return {
      diagnostics,
      manifest,
      result: { bundle, summary: { ...assembled.summary, id: bundle.id, fileName: bundle.fileName }, content: assembled.content, plain: assembled.plain },
    };
  }

  const preparing = new Map<string, Promise<void>>();
  let sourcesFromWorker = 0;
  // A worker the caller started on the manifest before loading the compiler: the first prepare takes it.
  let early = options.checkWorker;
  async function prepare(manifest: string): Promise<void> {
    const worker = early;
    early = undefined;
    try {
      await prepareWith(manifest, worker);
    } finally {
      worker?.stop();
    }
  }
  async function prepareWith(manifest: string, early: CheckWorker | undefined): Promise<void> {
    // The worker reads with Node's fs: only a compiler on the real file system may use it. Decided
    // before anything is read, so a build that will not use it pays nothing here.
    const onNodeFiles = options.host === undefined || options.host === nodeHost || options.host instanceof AnswerRecorder;
    if (!reads.enabled || !onNodeFiles || !parallelAllowed(options.parallel, early !== undefined)) return;
    const host = new TrackingHost(options.host ?? nodeHost, reads);
    const file = realPath(host, path.resolve(manifest));
    if (checkRegularFile(host, file).status !== 'file') return;
    let read: ReturnType<typeof readManifest>;
    let bytes: Uint8Array;
    try {
      bytes = host.readFile(file);
      read = manifests.read(file, bytes);
    } catch {
      return;
    }
    if (!read.manifest) return;
    // Through the discovery cache: the build that follows finds the listing there.
    const todo = discoveries.discover(read.manifest, bytes, host).sources.filter((f) => !isMethodFile(f) && !sources.has(f));
    // An early worker has listed the same sources and is reading them from the start of the
    // shared counter; should its list differ, a file either thread skipped is checked by the build.
    const wanted = worthAThread(todo.length, options.parallel);
    const worker = early ?? (wanted ? startOnFiles(todo, oneShot) : undefined);
    if (worker === undefined) return;
    // A recording host (the CLI's persistent cache) must see every read of the build itself: the
    // worker's bytes then only prime the source cache, whose digest check serves them.
    const primeReads = !(options.host instanceof AnswerRecorder);
    const analysis = { manifestDir: read.manifest.dir, ctx: { host, packageRoot: realDir(host, read.manifest.dir), cache: code }, cache: codeRoutines };
    sourcesFromWorker += await checkInParallel(worker, todo, host, primeReads ? reads : undefined, sources, analysis);
  }

  const compiler: Compiler = {
    prepare(manifest) {
      const key = path.resolve(manifest);
      let pending = preparing.get(key);
      if (pending === undefined) {
        pending = prepare(key).finally(() => preparing.delete(key));
        preparing.set(key, pending);
      }
      return pending;
    },
    sourcePaths(manifest) {
      const host = new TrackingHost(options.host ?? nodeHost, reads);
      const file = realPath(host, path.resolve(manifest));
      try {
        const bytes = host.readFile(file);
        const read = manifests.read(file, bytes);
        if (!read.manifest) return undefined;
        const { sources } = discoveries.discover(read.manifest, bytes, host);
        return { files: [...new Set([...host.files, ...sources])].sort(), directories: [...host.directories].sort() };
      } catch {
        // The build reports what is wrong with the manifest or its directory.
        return undefined;
      }
    },
    build(manifest, buildOptions = {}) {
      const host = new TrackingHost(options.host ?? nodeHost, reads);
      // Work on real paths: a package reached through a symbolic link (macOS /tmp is one)
      // must give the same bundle, and cycles must be seen whatever links lead to them.
      const file = realPath(host, path.resolve(manifest));
      reads.assumeUnchanged(file, buildOptions.changedFiles);
      if (buildOptions.changedFiles === undefined) reads.prefetchStamps(file);
      let built: PackageBuild;
      try {
        built = buildPackage(file, host, [], buildOptions, new Map());
      } finally {
        reads.assumeUnchanged(file, undefined);
      }
      // What this build did not use is dropped: a long watch session stays bounded. A one-shot
      // compiler sweeps only the reads (which also ends the trust in prepare's reads).
      for (const cache of oneShot ? [reads] : [reads, sources, codeRoutines, fragments, discoveries, manifests, names, hashes]) cache.sweep(file);
      const diagnostics = sortDiagnostics(built.diagnostics);
      const ok = (built.result !== undefined || (buildOptions.bundle === false && built.manifest !== undefined)) && !hasErrors(diagnostics);
      return {
        ok,
        diagnostics,
        bundle: ok ? built.result?.bundle : undefined,
        summary: ok ? built.result?.summary : undefined,
        files: [...host.files].sort(),
        directories: [...host.directories].sort(),
        missing: host.missing(),
      };
    },
    get stats() {
      return {
        sourcesParsed: sources.parsed,
        sourcesReused: sources.reused,
        fragmentsSerialized: fragments.serialized,
        fragmentsReused: fragments.reused,
        modulesAnalyzed: code.misses,
        modulesReused: code.hits,
        codeRoutinesAnalyzed: codeRoutines.analyzed,
        codeRoutinesReused: codeRoutines.reused,
        sourcesFromWorker,
        routinesResolved: resolutions.resolved,
        routinesReused: resolutions.reused,
        filesRead: reads.misses,
        filesUnchanged: reads.hits,
        contentBytesHashed: hashes.hashed,
        contentBytesReused: hashes.reused,
      };
    },
  };
  return compiler;
}

export type { CompiledImport };
export type { BuildOptions, BuildResult, Compiler, CompilerOptions, CompilerStats, PackageBuild } from './types.js';

function realPath(host: CompilerHost, file: string): string {
  try {
    return host.realpath(file);
  } catch {
    return file;
  }
}

function realDir(host: CompilerHost, dir: string): string {
  try {
    return host.realpath(dir);
  } catch {
    return dir;
  }
}
