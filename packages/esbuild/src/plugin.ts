import path from 'node:path';
import { createCompiler, nodeHost, type BuildResult, type BundleFile, type PackageSummary, type PluginOptions as Options } from '@berrypack/compiler';
import { createBuildMemo, isBerryImport, manifestForImport, readNormalized, renderImportModule, resolvePluginOptions, type ModuleOptions } from '@berrypack/compiler/internal-adapter';
import { createFilter } from '@rollup/pluginutils';
import type { BuildOptions, OnLoadResult, OnResolveArgs, Plugin, PluginBuild } from 'esbuild';
import { emitBundles } from './emit-bundles.js';
import { PLUGIN_NAME, toEsbuildMessage } from './to-esbuild-message.js';

const NAMESPACE = 'berrypack';
const CANDIDATE = /(?:^|[\\/])plugin\.json$|\.md$/;
/** Marks our own `build.resolve` calls, so onResolve does not claim them a second time. */
const RESOLVING = Symbol('berrypack.resolving');

/**
 * esbuild plugin: `import app from './plugin.json'` compiles the Berry package into a bundle
 * (written to `outdir`) and gives its descriptor; `import r from './notes/compose.md'` gives a
 * routine's descriptor in the context of the nearest Berry plugin.json above it.
 */
export function berrypack(options?: Options): Plugin {
  const settings = resolvePluginOptions(options);
  // Ids reaching it are absolute file paths; it tests them with `/` separators.
  const filter = createFilter(settings.include, settings.exclude);
  // One compiler per plugin instance: rebuilds in a context reuse its per-file caches.
  const compiler = createCompiler(settings.compiler);

  function claims(file: string): boolean {
    // A missing file stays esbuild's to report ("Could not resolve").
    if (!filter(file) || nodeHost.stat(file)?.kind !== 'file') return false;
    // An explicit include claims a manifest without the extension, so the compiler says what is missing.
    return settings.include !== undefined || isBerryImport(file, nodeHost);
  }

  return {
    name: PLUGIN_NAME,
    setup(build) {
      const moduleOptions = (summary: PackageSummary): ModuleOptions => ({
        fileExpression: isEsm(build.initialOptions)
          ? `new URL(${JSON.stringify(`./${summary.fileName}`)}, import.meta.url).href`
          : JSON.stringify(summary.fileName),
        namedExports: settings.namedExports,
      });
      // Per build: a package imported through its manifest and a routine compiles once.
      const builds = createBuildMemo(compiler);
      const bundles = new Map<string, BundleFile>();
      // Rebuilds of a context (watch mode, `rebuild()`) write without fsync (the renames stay
      // atomic) and take over the bundle of the package they supersede.
      let started = 0;
      const superseded = new Map<string, string>();
      build.onStart(() => {
        started++;
        builds.clear();
        bundles.clear();
      });

      build.onResolve({ filter: CANDIDATE }, async (args) => {
        if ((args.pluginData as Record<symbol, unknown> | undefined)?.[RESOLVING]) return undefined;
        const file = await resolvePath(build, args);
        if (file === undefined || !claims(file)) return undefined;
        return { path: file, namespace: NAMESPACE };
      });

      build.onLoad({ filter: /.*/, namespace: NAMESPACE }, async (args) => {
        const file = args.path;
        const manifest = manifestForImport(file, nodeHost);
        if (manifest === undefined) return failure(file, `Unexpected import of ${file}, expected a routine below a Berry plugin.json`);
        let result: BuildResult;
        try {
          await builds.prepare(manifest);
          result = builds.build(manifest).result;
        } catch (error) {
          return failure(manifest, `Unexpected internal error building ${manifest}: ${(error as Error).message}`);
        }
        const watch = { watchFiles: [...new Set([...result.files, file])], watchDirs: result.directories };
        const { errors, warnings } = convert(result);
        if (!result.ok || !result.summary || !result.bundle || errors.length > 0) return { errors, warnings, ...watch };
        const contents = renderImportModule(result.summary, manifest, file, moduleOptions(result.summary));
        if (contents === undefined) {
          return { ...failure(file, `Unexpected import of ${file}, expected a source of ${result.summary.name} (a .md file whose first line is \`---\`, in its sources folder)`), warnings, ...watch };
        }
        if (settings.emit) bundles.set(result.bundle.fileName, result.bundle);
        return { contents, loader: 'js', resolveDir: path.dirname(file), warnings, ...watch };
      });

      build.onEnd((result) => {
        // Nothing is written for a failed build, whichever plugin or file failed it.
        if (result.errors.length > 0) return undefined;
        return { errors: emitBundles([...bundles.values()], result, build.initialOptions, started <= 1, superseded) };
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
