import type { IncomingMessage, ServerResponse } from 'node:http';
import type { BundleFile } from '@berrypack/compiler';
import { normalizePath } from '@rollup/pluginutils';
import type { EnvironmentModuleGraph, EnvironmentModuleNode, ViteDevServer } from 'vite';

/**
 * What the plugin does inside Vite's dev server, where assets cannot be emitted: it serves each
 * package's latest bundle and blobs at the URL path a build would give them, and reloads the
 * modules whose package changed.
 */
export interface DevServing {
  /** Serves the bundle of `manifest` (replacing its previous one); returns the bundle's URL path. */
  serve(manifest: string, bundle: BundleFile): string;
  /**
   * Records what module `id` was built from, so a change there reloads it, and has Vite's watcher
   * watch it. (`this.addWatchFile` would not do: Vite turns each watched path into an import of
   * the module, and a directory or a missing file cannot be imported.)
   */
  track(id: string, files: readonly string[], directories: readonly string[]): void;
  /** Invalidates, in every environment, the modules built from `file`. */
  invalidate(file: string): void;
  /** The modules of `graph` built from `file`, for Vite's `hotUpdate`. */
  modulesFor(file: string, graph: EnvironmentModuleGraph): EnvironmentModuleNode[];
}

export function createDevServing(server: ViteDevServer): DevServing {
  // `config.base` is already a path in dev: Vite turns `./` into `/` and a URL into its path.
  const base = server.config.base;
  const served = new Map<string, Map<string, Uint8Array>>();
  const dependencies = new Map<string, { files: Set<string>; directories: string[] }>();
  const root = normalizePath(server.config.root) + '/';
  const watched = new Set<string>();

  server.middlewares.use((req: IncomingMessage, res: ServerResponse, next: () => void) => {
    const pathname = req.url?.split('?')[0] ?? '';
    const bytes = req.method === 'GET' || req.method === 'HEAD' ? find(pathname) : undefined;
    if (!bytes) return next();
    res.setHeader('Content-Type', pathname.endsWith('.berry.json') ? 'application/json' : 'application/octet-stream');
    res.setHeader('Content-Length', bytes.byteLength);
    res.end(req.method === 'HEAD' ? undefined : bytes);
  });

  function find(pathname: string): Uint8Array | undefined {
    for (const files of served.values()) {
      const bytes = files.get(pathname);
      if (bytes) return bytes;
    }
    return undefined;
  }

  // Vite reports changed files with `/` separators; the compiler lists them in the platform's form.
  function affected(changed: string): string[] {
    const file = normalizePath(changed);
    const ids: string[] = [];
    for (const [id, from] of dependencies) {
      if (from.files.has(file) || from.directories.some((dir) => file === dir || file.startsWith(dir + '/'))) ids.push(id);
    }
    return ids;
  }

  return {
    serve(manifest, bundle) {
      const files = new Map<string, Uint8Array>([[base + bundle.fileName, bundle.bytes]]);
      for (const [hex, blob] of bundle.blobs) files.set(`${base}blobs/sha256/${hex}`, blob);
      served.set(manifest, files);
      return base + bundle.fileName;
    },
    track(id, files, directories) {
      const from = { files: new Set(files.map(normalizePath)), directories: directories.map(normalizePath) };
      dependencies.set(id, from);
      // Vite watches its root already; an imported package may lie outside it.
      for (const file of [...from.files, ...from.directories]) {
        if (file.startsWith(root) || watched.has(file)) continue;
        watched.add(file);
        server.watcher.add(file);
      }
    },
    invalidate(file) {
      for (const id of affected(file)) {
        for (const environment of Object.values(server.environments)) {
          const module = environment.moduleGraph.getModuleById(id);
          if (module) environment.moduleGraph.invalidateModule(module);
        }
      }
    },
    modulesFor(file, graph) {
      return affected(file).flatMap((id) => graph.getModuleById(id) ?? []);
    },
  };
}
