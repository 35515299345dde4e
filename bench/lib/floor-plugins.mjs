// The do-nothing plugins of the watch floors: each host's own watcher with a plugin that
// registers the same files and directories the package has (what @berrypack/* registers) and
// turns `plugin.json` into a one-line module. A rebuild then costs what the host itself spends on
// an edit with that many watched paths; the berrypack plugins are compared against it.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Every file and directory under `dir` (the package root included), sorted. */
export function watchedPaths(dir) {
  const files = [];
  const directories = [dir];
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const full = path.join(entry.parentPath ?? entry.path, entry.name);
    (entry.isDirectory() ? directories : files).push(full);
  }
  return { files: files.sort(), directories: directories.sort() };
}

const SUFFIX = '?floor';
const MODULE = 'export default 1;\n';

/** Rollup and Vite (rolldown): resolve plugin.json to an id of ours, load it, register the paths. */
export function rollupFloor(paths) {
  return {
    name: 'floor',
    enforce: 'pre',
    async resolveId(source, importer, options) {
      if (!source.endsWith('plugin.json')) return null;
      const resolved = await this.resolve(source, importer, { ...options, skipSelf: true });
      return resolved ? resolved.id + SUFFIX : null;
    },
    load(id) {
      if (!id.endsWith(SUFFIX)) return null;
      for (const file of [...paths.files, ...paths.directories]) this.addWatchFile(file);
      return MODULE;
    },
  };
}

/** esbuild: claim plugin.json, give the module, hand back the same watch files as the plugin. */
export function esbuildFloor(paths) {
  return {
    name: 'floor',
    setup(build) {
      build.onLoad({ filter: /plugin\.json$/ }, () => ({ contents: MODULE, loader: 'js', watchFiles: paths.files, watchDirs: paths.directories }));
    },
  };
}

const LOADER = fileURLToPath(new URL('./floor-loader.cjs', import.meta.url));
const REGISTRY = Symbol.for('berrypack-bench-floor');

/** webpack and Rspack: a rule sending plugin.json through a loader that registers the paths. */
export function webpackFloor(paths) {
  return {
    name: 'floor',
    apply(compiler) {
      globalThis[REGISTRY] = paths;
      compiler.options.module.rules.push({ test: /plugin\.json$/, type: 'javascript/auto', use: [{ loader: LOADER }] });
    },
  };
}
