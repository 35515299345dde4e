import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { BuildResult, BundleFile, Diagnostic, PluginOptions as Options } from '@berrypack/compiler';
import {
  createBuildSlot,
  createCompilers,
  filterWithoutPatterns,
  isBerryImport,
  manifestForImport,
  nodeHost,
  readNormalized,
  renderImportModule,
  resolvePluginOptions,
} from '@berrypack/compiler/internal-adapter';
import type * as PluginUtils from '@rollup/pluginutils';
import { createAssetSources } from './asset-sources.js';
import { createHandOver } from './hand-over.js';
import type { HostCompilation, HostCompiler, HostLoaderContext } from './host.js';
import { displayPath, toWebpackError } from './to-webpack-error.js';

const NAME = 'berrypack';
const SUFFIX = '?berrypack';
/** Imports worth a look without our suffix: a plugin.json or a `.md`. */
const CANDIDATE = /(?:^|[\\/])plugin\.json$|\.md$/;
/** The same file from src/ and dist/: the package's loader.cjs. */
const LOADER = fileURLToPath(new URL('../loader.cjs', import.meta.url));
/**
 * Where the loader finds the plugin instance its options name. A global symbol, not a module
 * variable: the host loads the loader file by itself, possibly as another copy of this module.
 */
const REGISTRY = Symbol.for('@berrypack/webpack');
let applied = 0;

/** What webpack and Rspack take in `plugins`. */
export interface WebpackPlugin {
  name: string;
  apply(compiler: HostCompiler): void;
}

/** What the loader calls (loader.cjs). */
interface LoaderTarget {
  load(context: HostLoaderContext): Promise<string>;
}

/**
 * webpack 5 and Rspack plugin: `import app from './my-plugin/plugin.json'` compiles the package,
 * emits its bundle and resource blobs as assets, and gives a module describing it;
 * `import route from './my-plugin/triage/route.md'` gives one of its routines.
 */
export function berrypack(options?: Options): WebpackPlugin {
  const settings = resolvePluginOptions(options);
  // The rules test resources synchronously, so with patterns `@rollup/pluginutils` is required at
  // once; without them it is not loaded at all (about 30 ms of start-up).
  const filter =
    filterWithoutPatterns(settings.include, settings.exclude) ??
    (createRequire(import.meta.url)('@rollup/pluginutils') as typeof PluginUtils).createFilter(settings.include, settings.exclude);
  // The compiler's main entry is imported here and awaited by the first build, so it loads while
  // the host starts (Rspack's native side) instead of before the host is even imported.
  const loading = import('@berrypack/compiler');
  // One compiler for the watch sessions and one for single runs, whichever compilers of the host this plugin object is applied to.
  const compilers = createCompilers(settings.compiler);
  // A failed import is reported by the build that awaits it.
  loading.catch(() => undefined);
  const fatal = (d: Diagnostic) => d.severity === 'error' || (settings.strict && d.severity === 'warning');

  /** The file a module's `resource` (path and query) is ours to build from, if it is. */
  function claimed(resource: string): string | undefined {
    if (resource.endsWith(SUFFIX)) {
      const file = resource.slice(0, -SUFFIX.length);
      return filter(file) ? file : undefined;
    }
    return CANDIDATE.test(resource) && filter(resource) && isBerryImport(resource, nodeHost) ? resource : undefined;
  }

  return {
    name: NAME,
    apply(host) {
      const instance = `${process.pid}:${++applied}`;
      // The compiler is chosen as each compilation starts: one for a watch session's life, so a
      // rebuild redoes only the files that changed, and a one-shot compiler for `run`. Its memo
      // is per compilation, so a package imported by several modules is compiled and reported once.
      const slot = createBuildSlot(compilers);
      const sources = createAssetSources(host);
      const handOver = createHandOver(host);
      const context = host.options.context ?? process.cwd();

      async function build(manifest: string): Promise<BuildResult> {
        try {
          // Awaited before the memo is taken: two modules of one package building at once share one.
          const memo = slot.memo((await loading).createCompiler);
          await memo.prepare(manifest);
          return memo.build(manifest).result;
        } catch (error) {
          // The compiler reports bad input as diagnostics; this is a fault of ours, said in one line.
          throw loaderError(`Unexpected internal error building ${displayPath(manifest, context)}: ${(error as Error).message}`);
        }
      }

      const target: LoaderTarget = {
        async load(loader) {
          const file = loader.resourcePath;
          const manifest = manifestForImport(file, nodeHost);
          if (manifest === undefined) {
            throw loaderError(
              `Unexpected import of ${file}, expected a routine inside a Berry package: no plugin.json with the \`ai.strawberry.berry\` extension in its directory or above`,
            );
          }
          const result = await build(manifest);
          // Without a cache the host would snapshot every file of the package for nothing: in
          // production mode by reading and hashing each one (1,021 files at N = 1,000). The host
          // still watches what the module registers below.
          if (host.options.cache === false) loader.cacheable(false);
          // Before any error: the host watches what a failed module registered, so a fix recovers.
          // The compiler says which of the files it asked about were missing (no stat of each here).
          const missing = new Set(result.missing ?? result.files.filter((read) => nodeHost.stat(read) === undefined));
          for (const read of new Set([...result.files, file])) {
            if (missing.has(read)) loader.addMissingDependency(read);
            else loader.addDependency(read);
          }
          for (const directory of result.directories) loader.addContextDependency(directory);
          const failed = result.diagnostics.filter(fatal).length;
          if (failed > 0 || !result.bundle || !result.summary) {
            // The diagnostics themselves are reported by `finishModules`, once, with their positions.
            const why =
              failed === 0
                ? 'no bundle and no error diagnostic'
                : failed === 1
                  ? '1 error, reported with its position'
                  : `${failed} errors, reported with their positions`;
            throw loaderError(`Unexpected failed build of ${displayPath(manifest, context)}: ${why}`);
          }
          const name = JSON.stringify(result.bundle.fileName);
          const fileExpression = settings.emit ? `__webpack_public_path__ + ${name}` : name;
          const code = renderImportModule(result.summary, manifest, file, { fileExpression, namedExports: settings.namedExports });
          if (code === undefined) {
            throw loaderError(
              `Unexpected import of ${displayPath(file, context)}, expected a routine source of package ${result.summary.name}: it is not under the package's \`sources\` directory (or lies in a dot-directory or node_modules)`,
            );
          }
          return code;
        },
      };
      registry().set(instance, target);
      host.hooks.shutdown.tap(NAME, () => registry().delete(instance));

      const effect = { enforce: 'post', type: 'javascript/auto', use: [{ loader: LOADER, options: { instance } }] };
      host.options.module.rules.push(
        { resourceQuery: (query: string) => query === SUFFIX, resource: (file: string) => claimed(file + SUFFIX) !== undefined, ...effect },
        { resourceQuery: (query: string) => query === '', resource: (file: string) => claimed(file) !== undefined, ...effect },
      );

      host.hooks.emit.tap(NAME, (compilation) => handOver.emitting(compilation));
      host.hooks.afterEmit?.tap(NAME, (compilation) => sources.emitted(compilation));

      host.hooks.thisCompilation.tap(NAME, (compilation) => {
        // A watch run after the first knows what changed: the compiler then checks only those files.
        const { modifiedFiles, removedFiles } = host;
        const changed = modifiedFiles === undefined ? undefined : [...modifiedFiles, ...(removedFiles ?? [])];
        slot.start(host.watchMode === true, changed);
        /** Bundle file name -> the bundle and the manifest it is built from. */
        const bundles = new Map<string, { bundle: BundleFile; manifest: string }>();
        // Every module of ours, built now or kept from the host's cache, reports its package's diagnostics.
        compilation.hooks.finishModules.tapPromise(NAME, async (modules) => {
          const manifests = new Set<string>();
          for (const module of modules) {
            const file = typeof module.resource === 'string' ? claimed(module.resource) : undefined;
            const manifest = file === undefined ? undefined : manifestForImport(file, nodeHost);
            if (manifest !== undefined) manifests.add(manifest);
          }
          for (const manifest of [...manifests].sort()) {
            let result: BuildResult;
            try {
              result = await build(manifest);
            } catch (error) {
              compilation.errors.push(Object.assign(new host.webpack.WebpackError((error as Error).message), { hideStack: true }));
              continue;
            }
            report(compilation, result.diagnostics);
            if (settings.emit && result.bundle && !result.diagnostics.some(fatal)) bundles.set(result.bundle.fileName, { bundle: result.bundle, manifest });
          }
        });
        compilation.hooks.processAssets.tap({ name: NAME, stage: host.webpack.Compilation.PROCESS_ASSETS_STAGE_ADDITIONAL }, () => {
          // Nothing is emitted for a failed build, whichever plugin or module failed it.
          if (compilation.errors.length > 0) return;
          const emit = (name: string, source: () => unknown, immutable = true) => {
            // Names carry their content's digest: a name already emitted has these bytes.
            if (!compilation.getAsset(name)) compilation.emitAsset(name, source() as never, { immutable });
          };
          for (const { bundle, manifest } of bundles.values()) {
            for (const [hex, blob] of bundle.blobs) emit(`blobs/sha256/${hex}`, () => sources.blob(blob));
            emit(bundle.fileName, () => sources.bundle(bundle, manifest, compilation), handOver.immutable(compilation, manifest, bundle.fileName));
          }
        });
      });

      function report(compilation: HostCompilation, diagnostics: readonly Diagnostic[]): void {
        const texts = new Map<string, string | undefined>();
        const textOf = (file: string) => (texts.has(file) ? texts.get(file) : texts.set(file, readNormalized(file)).get(file));
        for (const d of diagnostics) {
          if (d.severity === 'info') {
            compilation.getLogger(NAME).info(`${displayPath(d.file, context)}:${d.line}:${d.column}: ${d.code} ${d.message}`);
            continue;
          }
          const error = toWebpackError(host.webpack.WebpackError, d, textOf(d.file), context);
          (fatal(d) ? compilation.errors : compilation.warnings).push(error);
        }
      }
    },
  };
}

function registry(): Map<string, LoaderTarget> {
  const global = globalThis as { [REGISTRY]?: Map<string, LoaderTarget> };
  return (global[REGISTRY] ??= new Map());
}

function loaderError(message: string): Error {
  // A message for the user, not a fault of ours. webpack and Rspack show a loader error's stack
  // unless it is empty (with `hideStack` they show it as details instead).
  return Object.assign(new Error(message), { stack: '' });
}
