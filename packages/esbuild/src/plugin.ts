import path from 'node:path';
import type * as CompilerApi from '@berrypack/compiler';
import type { BuildResult, BundleFile, Compiler, PackageSummary, PluginOptions as Options } from '@berrypack/compiler';
import {
  ChangeWatcher,
  createBuildMemo,
  filterWithoutPatterns,
  isBerryImport,
  manifestForImport,
  nodeHost,
  readNormalized,
  renderImportModule,
  resolvePluginOptions,
  type BuildMemo,
  type ModuleOptions,
} from '@berrypack/compiler/internal-adapter';
import type { BuildOptions, OnLoadResult, OnResolveArgs, Plugin, PluginBuild } from 'esbuild';
import { emitBundles, type BundleWriters } from './emit-bundles.js';
import { WatchLists } from './watch-lists.js';
import { PLUGIN_NAME, toEsbuildMessage } from './to-esbuild-message.js';

const SUFFIX = '?berrypack';
/** Imports worth a look: a plugin.json or a `.md`, bare or with our suffix; `?raw` and other queries are not ours. */
const CANDIDATE = /(?:^|[\\/])plugin\.json(?:\?berrypack)?$|\.md(?:\?berrypack)?$/;
const CANDIDATE_FILE = /(?:^|[\\/])plugin\.json$|\.md$/;
/** Marks our own `build.resolve` calls, so onResolve does not claim them a second time. */
const RESOLVING = Symbol('berrypack.resolving');
/**
 * Marks the files this plugin claimed. They stay in esbuild's `file` namespace, so its output
 * names them relative to the working directory, as it does every other module (a namespace of
 * our own would put the absolute path in a comment of the output).
 */
// Its value: the file's manifest, else `true` (the load then reports that there is none).
const CLAIMED = Symbol('berrypack.claimed');

interface Loaded {
  api: typeof CompilerApi;
  compiler: Compiler;
  filter: (id: string) => boolean;
}

/**
 * esbuild plugin: `import app from './plugin.json'` compiles the Berry package into a bundle
 * (written to `outdir`) and gives its descriptor; `import r from './notes/compose.md'` gives a
 * routine's descriptor in the context of the nearest Berry plugin.json above it.
 */
export function berrypack(options?: Options): Plugin {
  const settings = resolvePluginOptions(options);
  // The compiler's main entry and, with include/exclude patterns, the filter's picomatch are imported when
  // esbuild runs `setup`, after it has started its service, and awaited by the first hook that
  // needs them: they load on this thread while esbuild starts and reads the entry points on the
  // other core. One compiler per plugin instance: rebuilds in a context reuse its per-file caches.
  let loading: Promise<Loaded> | undefined;
  const load = () =>
    (loading ??= Promise.all([
      import('@berrypack/compiler'),
      // Ids reaching it are absolute file paths; it tests them with `/` separators.
      filterWithoutPatterns(settings.include, settings.exclude) ??
        import('@rollup/pluginutils').then(({ createFilter }) => createFilter(settings.include, settings.exclude)),
    ]).then(([api, filter]) => ({ api, compiler: api.createCompiler(settings.compiler), filter })));

  async function claims(file: string, explicit: boolean): Promise<boolean> {
    const { filter } = await load();
    // A missing file stays esbuild's to report ("Could not resolve").
    if (!filter(file) || nodeHost.stat(file)?.kind !== 'file') return false;
    // `?berrypack` or an explicit include claims a manifest without the extension, so the compiler says what is missing.
    return explicit || settings.include !== undefined || isBerryImport(file, nodeHost);
  }

  return {
    name: PLUGIN_NAME,
    setup(build) {
      // Started, not awaited (esbuild would wait for setup); a failure is reported by the hooks that await it.
      load().catch(() => undefined);
      const moduleOptions = (summary: PackageSummary): ModuleOptions => ({
        fileExpression: isEsm(build.initialOptions)
          ? `new URL(${JSON.stringify(`./${summary.fileName}`)}, import.meta.url).href`
          : JSON.stringify(summary.fileName),
        namedExports: settings.namedExports,
      });
      // Per build: a package imported through its manifest and a routine compiles once.
      let builds: BuildMemo | undefined;
      let writers: BundleWriters | undefined;
      const bundles = new Map<string, BundleFile>();
      // Rebuilds of a context (watch mode, `rebuild()`) write without fsync (the renames stay
      // atomic) and take over the bundle of the package they supersede.
      let started = 0;
      const superseded = new Map<string, string>();
      const prepared = new Map<string, Promise<void>>();
      const lists = new WatchLists();
      // From a context's third build on: what changed, from file events, so a rebuild's compile
      // stats only those files (a one-shot build never starts a watch).
      let changes: ChangeWatcher | undefined;
      build.onStart(() => {
        started++;
        // Only inotify reports a change before the write returns (see eventsAreComplete). The
        // watches start before the second build's compile reads, so that compile (which stats
        // every file: what changed since the first build went unseen) is the only one that must.
        if (started === 2 && process.platform === 'linux') {
          changes = new ChangeWatcher();
          for (const files of lists.latestFiles()) changes.watchFolders(files);
        }
        // The changes themselves are asked for by each compile (see ChangeWatcher).
        builds?.clear(changes === undefined ? undefined : []);
        bundles.clear();
        lists.start();
      });
      build.onDispose(() => changes?.close());

      // One memo per plugin instance (made when the compiler has loaded); cleared as each build starts.
      const memoOf = (loaded: Loaded): BuildMemo => (builds ??= createBuildMemo(loaded.compiler, () => changes?.take()));
      // The second thread only pays for a package's first build: a rebuild finds its sources checked.
      const prepareOnce = (memo: BuildMemo, manifest: string): Promise<void> => {
        let preparing = prepared.get(manifest);
        if (preparing === undefined) {
          preparing = memo.prepare(manifest).catch((error: unknown) => {
            prepared.delete(manifest);
            throw error;
          });
          prepared.set(manifest, preparing);
        }
        return preparing;
      };

      build.onResolve({ filter: CANDIDATE }, async (args) => {
        if ((args.pluginData as Record<symbol, unknown> | undefined)?.[RESOLVING]) return undefined;
        const explicit = args.path.endsWith(SUFFIX);
        const file = await resolvePath(build, explicit ? { ...args, path: args.path.slice(0, -SUFFIX.length) } : args);
        if (file === undefined || !(await claims(file, explicit))) return undefined;
        const manifest = manifestForImport(file, nodeHost);
        // The manifest found here rides along to the load, which would look it up again.
        const claimed = { path: file, namespace: 'file', pluginData: { [CLAIMED]: manifest ?? true } };
        if (manifest === undefined) return claimed;
        const loaded = await load();
        // esbuild reads every watch file a result returns before it asks for the load, even in a
        // one-shot build (about 55 ms for the 1,021 files at N = 1,000). Returned with this answer,
        // the package's paths are read there while this thread compiles the package; the load takes
        // the result and returns only what this list lacks.
        const early = lists.early(manifest, () => loaded.compiler.sourcePaths(manifest));
        if (early === undefined) return claimed;
        const memo = memoOf(loaded);
        const at = started;
        setImmediate(() => {
          if (started !== at) return;
          // A failed prepare is reported by the load, which awaits it again.
          prepareOnce(memo, manifest).then(
            () => started === at && memo.warm(manifest),
            () => undefined,
          );
        });
        return { ...claimed, ...early };
      });

      build.onLoad({ filter: CANDIDATE_FILE, namespace: 'file' }, async (args) => {
        const claimed = (args.pluginData as Record<symbol, unknown> | undefined)?.[CLAIMED];
        if (!claimed) return undefined;
        const file = args.path;
        let loaded: Loaded;
        try {
          loaded = await load();
        } catch (error) {
          return failure(file, `Unexpected internal error loading @berrypack/compiler: ${(error as Error).message}`);
        }
        writers = loaded.api;
        const memo = memoOf(loaded);
        const manifest = typeof claimed === 'string' ? claimed : manifestForImport(file, nodeHost);
        if (manifest === undefined) return failure(file, `Unexpected import of ${file}, expected a routine below a Berry plugin.json`);
        let result: BuildResult;
        let first: boolean;
        try {
          await prepareOnce(memo, manifest);
          ({ result, first } = memo.build(manifest));
        } catch (error) {
          return failure(manifest, `Unexpected internal error building ${manifest}: ${(error as Error).message}`);
        }
        // After this answer (esbuild works on it meanwhile), well before the next build's compile asks.
        const watcher = changes;
        if (first && watcher !== undefined) setImmediate(() => watcher.cover(manifest, result.files));
        const watch = lists.forLoad(manifest, result.files.includes(file) ? result.files : [...result.files, file], result.directories);
        // A package imported through its manifest and its routines reports its diagnostics once
        // per build; the other imports fail quietly (the build has failed already).
        const { errors, warnings } = first ? convert(result) : { errors: [], warnings: [] };
        const { summary, bundle } = result;
        const failed =
          !result.ok || !summary || !bundle || result.diagnostics.some((d) => d.severity === 'error' || (settings.strict && d.severity === 'warning'));
        if (failed) {
          if (errors.length > 0) return { errors, warnings, ...watch };
          if (first) return { ...failure(manifest, `Unexpected failed build of ${manifest} without an error diagnostic`), ...watch };
          return { contents: '', loader: 'js', ...watch };
        }
        const contents = renderImportModule(summary, manifest, file, moduleOptions(summary));
        if (contents === undefined) {
          return {
            ...failure(
              file,
              `Unexpected import of ${file}, expected a source of ${summary.name} (a .md file whose first line is \`---\`, in its sources folder)`,
            ),
            warnings,
            ...watch,
          };
        }
        if (settings.emit) bundles.set(bundle.fileName, bundle);
        return { contents, loader: 'js', resolveDir: path.dirname(file), warnings, ...watch };
      });

      build.onEnd((result) => {
        // Nothing is written for a failed build, whichever plugin or file failed it.
        // A bundle to write means a load has run, so the compiler is loaded.
        if (result.errors.length > 0 || writers === undefined) return undefined;
        return emitBundles([...bundles.values()], writers, result, build.initialOptions, started <= 1, superseded).then((errors) => ({ errors }));
      });
    },
  };

  function convert(result: BuildResult) {
    const texts = new Map<string, string | undefined>();
    const read = (file: string) => (texts.has(file) ? texts.get(file) : texts.set(file, readNormalized(file)).get(file));
    const errors = [];
    const warnings = [];
    for (const d of result.diagnostics) {
      if (d.severity === 'info') continue;
      const message = toEsbuildMessage(d, read(d.file), read);
      if (d.severity === 'error' || settings.strict) errors.push(message);
      else warnings.push(message);
    }
    return { errors, warnings };
  }
}

/** An ESM output keeps `import.meta.url`, so the module can point at the bundle beside it. */
function isEsm(options: BuildOptions): boolean {
  return options.format === 'esm' || (options.format === undefined && options.platform === 'neutral');
}

async function resolvePath(build: PluginBuild, args: OnResolveArgs): Promise<string | undefined> {
  if (path.isAbsolute(args.path)) return args.path;
  if (/^\.\.?[\\/]/.test(args.path) || args.kind === 'entry-point') {
    return path.resolve(args.resolveDir || build.initialOptions.absWorkingDir || process.cwd(), args.path);
  }
  // A package path (`some-plugin/plugin.json`): let esbuild find it, then decide.
  const resolved = await build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: { [RESOLVING]: true } });
  return resolved.errors.length === 0 && resolved.namespace === 'file' && resolved.path !== '' ? resolved.path : undefined;
}

function failure(file: string, text: string): OnLoadResult {
  return { errors: [{ pluginName: PLUGIN_NAME, text, location: { file, namespace: 'file' } }], watchFiles: [file] };
}
