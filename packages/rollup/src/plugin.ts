import { readFileSync } from 'node:fs';
import path from 'node:path';
import type * as CompilerApi from '@berrypack/compiler';
import type { BundleFile, Diagnostic, PackageSummary, PluginOptions as Options } from '@berrypack/compiler';
import {
  type BuildMemo,
  createBuildSlot,
  createCompilers,
  handOverBundle,
  isBerryImport,
  manifestForImport,
  nodeHost,
  readNormalized,
  renderImportModule,
  resolvePluginOptions,
  subtreeWatchPaths,
} from '@berrypack/compiler/internal-adapter';
import type { Plugin, PluginContext } from 'rollup';
import type { Plugin as VitePlugin } from 'vite';
import type { DevServing } from './dev-server.js';
import { idFilter } from './filter.js';
import { toRollupLog } from './to-rollup-log.js';

const SUFFIX = '?berrypack';
/** Imports worth a look: a plugin.json or a `.md`, bare or with our suffix; `?raw`, `?url` and other queries are not ours. */
const CANDIDATE = /(?:^|[\\/])plugin\.json(?:\?berrypack)?$|\.md(?:\?berrypack)?$/;
/** Ids this plugin resolved. Vite's JSON handling passes over `.json?…` ids it does not know. */
const OURS = /\?berrypack$/;

type ResolveOptions = Parameters<PluginContext['resolve']>[2];
type Hooks = Plugin & Pick<VitePlugin, 'enforce' | 'configResolved' | 'configureServer' | 'hotUpdate'>;

/**
 * The plugin object, typed without Rollup's or Vite's types (both optional peers, so either may
 * be missing): it is assignable to Rollup's `Plugin`, Vite's `PluginOption` and rolldown's plugin.
 */
export interface BerrypackPlugin {
  name: 'berrypack';
  [hook: string]: unknown;
}

/**
 * Rollup, Vite and rolldown plugin: `import app from './my-plugin/plugin.json'` compiles the
 * package, emits its bundle and resource blobs, and gives a module describing it;
 * `import route from './my-plugin/route.md'` gives one of its routines.
 */
export function berrypack(options?: Options): BerrypackPlugin {
  const settings = resolvePluginOptions(options);
  const filtering = idFilter(settings.include, settings.exclude);
  const filter = async (id: string) => (typeof filtering === 'function' ? filtering : await filtering)(id);
  // The compiler's main entry (about 150 modules) is imported here and awaited by the first hook
  // that needs it, so it loads while the host sets up (Vite resolves its config, rolldown starts
  // its threads) instead of before the host is even imported. The compiler itself is chosen when
  // a build starts (createBuildSlot): one for a watch session's life, so a rebuild redoes only
  // the files that changed, and a one-shot compiler for a build that is not watched.
  const loading = import('@berrypack/compiler');
  // A failed import is reported by the hooks that await it.
  loading.catch(() => undefined);
  const slot = createBuildSlot(createCompilers(settings.compiler));
  // Vite's dev server (`serve`) rebuilds modules on request: never one-shot.
  let serving = false;
  // Per build, like `builds`, so a package imported by several modules is emitted once.
  const emitted = new Map<string, string>();
  /** Per build: manifest -> the file name and length of the bundle emitted for it. */
  const bundles = new Map<string, { fileName: string; length: number }>();
  /** Output directory and manifest -> the bundle this instance's last write of a watch session left there. */
  const written = new Map<string, string>();
  // What the watcher reported since the current build started (`watchChange`), for the next one.
  let changes = new Set<string>();
  let dev: DevServing | undefined;
  const isFatal = (d: Diagnostic) => d.severity === 'error' || (settings.strict && d.severity === 'warning');

  function compile(context: PluginContext, builds: BuildMemo, id: string, manifest: string): { bundle: BundleFile; summary: PackageSummary } | undefined {
    const { result, first } = builds.build(manifest);
    // Before any error: Rollup keeps watching what a failed build registered, so a fix recovers.
    if (dev) dev.track(id, result.files, result.directories);
    // Rollup's watcher (chokidar) and rolldown's (Vite's build watch; test/vite.test.ts) cover a
    // directory's subtree, edits and new files alike: the files in it need no entry of their own.
    else for (const file of subtreeWatchPaths(result.files, result.directories)) context.addWatchFile(file);
    // In a build, a package imported through its manifest and its routines fails once: the
    // first load reports (rolldown would print each load's error), the others load nothing.
    // The dev server loads modules one request at a time, so each reports.
    if (!first && !dev && result.diagnostics.some((d) => isFatal(d))) return undefined;
    report(context, result.diagnostics, first);
    if (!result.bundle || !result.summary) return context.error({ message: `Unexpected failed build of ${manifest} without an error diagnostic` });
    return { bundle: result.bundle, summary: result.summary };
  }

  function report(context: PluginContext, diagnostics: readonly Diagnostic[], first: boolean): void {
    const fatal = diagnostics.filter(isFatal);
    const texts = new Map<string, string | undefined>();
    const textOf = (file: string) => (texts.has(file) ? texts.get(file) : texts.set(file, readNormalized(file)).get(file));
    // Vite prints only the message of a warning: it carries the place and the frame there.
    const vite = (context.meta as { viteVersion?: string }).viteVersion !== undefined;
    const log = (d: Diagnostic) => toRollupLog(d, textOf(d.file), vite && !fatal.includes(d));
    if (first) {
      for (const d of diagnostics) {
        if (fatal.includes(d)) continue;
        if (d.severity === 'warning') context.warn(log(d));
        else if (typeof context.info === 'function') context.info(log(d));
      }
      // Rollup stops at one error; the others go out as warnings first so one run shows them all.
      for (const d of fatal.slice(1)) context.warn(log(d));
    }
    if (fatal[0]) context.error(log(fatal[0]));
  }

  function locate(context: PluginContext, manifest: string, bundle: BundleFile): string {
    if (!settings.emit) return JSON.stringify(bundle.fileName);
    if (dev) return JSON.stringify(dev.serve(manifest, bundle));
    const emit = (fileName: string, source: Uint8Array) => {
      let ref = emitted.get(fileName);
      if (ref === undefined) emitted.set(fileName, (ref = context.emitFile({ type: 'asset', fileName, source })));
      return ref;
    };
    for (const [hex, blob] of bundle.blobs) emit(`blobs/sha256/${hex}`, blob);
    bundles.set(manifest, { fileName: bundle.fileName, length: bundle.bytes.length });
    return `import.meta.ROLLUP_FILE_URL_${emit(bundle.fileName, bundle.bytes)}`;
  }

  function notASource(context: PluginContext, api: typeof CompilerApi, file: string, manifest: string, packageName: string): never {
    let bytes: Uint8Array | undefined;
    try {
      bytes = readFileSync(file);
    } catch {
      // The message below says enough; the compiler already reported unreadable sources.
    }
    // A file without frontmatter gets the compiler's own diagnostic (BP1002) with its frame.
    if (bytes)
      report(
        context,
        api.checkSource(file, bytes, { requireSource: true }).diagnostics.filter((d) => d.severity === 'error'),
        true,
      );
    const relative = path.relative(path.dirname(manifest), file).split(path.sep).join('/');
    return context.error({
      message: `Unexpected import of ${relative}, expected a routine source of package ${packageName}: it is not under the package's \`sources\` directory (or lies in a dot-directory or node_modules)`,
    });
  }

  const plugin: Hooks & { name: 'berrypack' } = {
    name: 'berrypack',
    enforce: 'pre',

    buildStart() {
      // In watch mode every change to what the builds registered comes through `watchChange`
      // (the dev server loads modules on its own schedule: there the compiler checks each file).
      const watching = this.meta.watchMode || serving || dev !== undefined;
      slot.start(watching, this.meta.watchMode && !dev ? changes : undefined);
      changes = new Set();
      emitted.clear();
      bundles.clear();
    },

    resolveId: {
      order: 'pre',
      filter: { id: CANDIDATE },
      async handler(source, importer, resolveOptions) {
        if (!CANDIDATE.test(source)) return null;
        const explicit = source.endsWith(SUFFIX);
        const bare = explicit ? source.slice(0, -SUFFIX.length) : source;
        // Spread, so what a host adds (Vite's `kind`, rolldown's extras) reaches the other resolvers too.
        const resolved = await this.resolve(bare, importer, { ...resolveOptions, skipSelf: true } as ResolveOptions);
        if (!resolved || resolved.external || /[?\0]/.test(resolved.id) || !(await filter(resolved.id))) return null;
        if (!explicit && !isBerryImport(resolved.id, nodeHost)) return null;
        return resolved.id + SUFFIX;
      },
    },

    load: {
      order: 'pre',
      filter: { id: OURS },
      async handler(id) {
        if (!OURS.test(id)) return null;
        const file = id.slice(0, -SUFFIX.length);
        if (!(await filter(file))) return null;
        const api = await loading;
        const builds = slot.memo(api.createCompiler);
        const manifest = manifestForImport(file, nodeHost);
        if (!manifest) {
          return this.error({
            message: `Unexpected import of ${file}, expected a routine inside a Berry package: no plugin.json with the \`ai.strawberry.berry\` extension in its directory or above`,
          });
        }
        await builds.prepare(manifest);
        const compiled = compile(this, builds, id, manifest);
        if (compiled === undefined) return 'export default undefined;\n';
        const { bundle, summary } = compiled;
        const moduleOptions = { fileExpression: locate(this, manifest, bundle), namedExports: settings.namedExports };
        return renderImportModule(summary, manifest, file, moduleOptions) ?? notASource(this, api, file, manifest, summary.name);
      },
    },

    generateBundle(outputOptions, output, isWrite) {
      // In a watch session, the bundle an edit supersedes becomes the new bundle's file just
      // before the host writes it (handOverBundle): the host overwrites it in place, and the
      // session leaves one bundle per package. A single build leaves older files alone.
      if (!isWrite || !this.meta.watchMode || dev) return;
      const target = outputOptions.dir ?? (outputOptions.file === undefined ? undefined : path.dirname(outputOptions.file));
      if (target === undefined) return;
      const dir = path.resolve(target);
      for (const [manifest, { fileName, length }] of bundles) {
        // Another plugin may have dropped or renamed the asset. Its `source` is not read: rolldown
        // would copy the 2.6 MB (N = 1,000) from Rust to JavaScript for it.
        if (output[fileName]?.type !== 'asset') continue;
        const key = `${dir}\0${manifest}`;
        const previous = written.get(key);
        // Rollup and rolldown write without comparing: only an old file of the same length is emptied (handOverBundle).
        if (previous !== undefined) handOverBundle(dir, previous, fileName, length);
        written.set(key, fileName);
      }
    },

    watchChange(file) {
      changes.add(file);
      // A build starts with `buildStart`; the dev server has no next build, so it forgets here.
      if (dev) slot.start(true);
      // A build reloads every module by itself; the dev server only reloads what it is told.
      dev?.invalidate(file);
    },

    configResolved(config) {
      serving = config.command === 'serve';
    },

    // Vite awaits this hook; the dev server's module (and its `@rollup/pluginutils`) is not needed by a build.
    async configureServer(server) {
      dev = (await import('./dev-server.js')).createDevServing(server);
    },

    hotUpdate({ file, modules }) {
      const ours = dev?.modulesFor(file, this.environment.moduleGraph) ?? [];
      if (ours.length > 0) return [...modules, ...ours];
      return undefined;
    },
  };
  // The hooks are typed against Rollup and Vite here; the declared type keeps those types out of the published ones.
  return plugin as unknown as BerrypackPlugin;
}
