import { failure } from './raw-result.js';
import type { RawResult } from './protocol.js';

/** POSIX join of a relative specifier onto its importer's directory; undefined when it is not relative or leaves the root. */
export function resolveRelative(importer: string, specifier: string): string | undefined {
  if (!(specifier.startsWith('./') || specifier.startsWith('../'))) return undefined;
  const parts = importer.split('/');
  parts.pop();
  for (const part of specifier.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (parts.length === 0) return undefined;
      parts.pop();
    } else {
      parts.push(part);
    }
  }
  return parts.join('/');
}

/**
 * The VM's module loader: the routine's own modules, by relative path, while the entry module
 * links; nothing else (bare names, node:, URLs) and nothing later (import()).
 */
export class ModuleLoader {
  private readonly sources = new Map<string, string>();
  private linking = false;
  private failedImport: { importer: string; specifier: string } | undefined;

  constructor(modules: readonly { path: string; source: string }[]) {
    for (const m of modules) this.sources.set(m.path, m.source);
  }

  source(path: string): string | undefined {
    return this.sources.get(path);
  }

  /** Runs `evaluate` (the entry module's evaluation) with static imports allowed. */
  link<T>(evaluate: () => T): T {
    this.linking = true;
    try {
      return evaluate();
    } finally {
      this.linking = false;
    }
  }

  normalize(importer: string, specifier: string): string {
    // Static imports resolve while the entry module links; anything later is import().
    if (!this.linking) throw `import() is not available in code routines: '${specifier}' was not loaded`;
    const path = resolveRelative(importer, specifier);
    if (path === undefined || !this.sources.has(path)) {
      this.failedImport ??= { importer, specifier };
      throw path === undefined
        ? `cannot import '${specifier}' from '${importer}': only relative paths to the routine's own modules can be imported`
        : `cannot import '${specifier}' from '${importer}': '${path}' is not one of the routine's modules`;
    }
    return path;
  }

  load(path: string): string {
    const source = this.linking ? this.sources.get(path) : undefined;
    if (source === undefined) throw `module '${path}' is not part of the routine`;
    return source;
  }

  /** Why the entry module did not load: the import that failed to resolve, or what it threw. */
  failure(e: unknown): RawResult {
    const failed = this.failedImport;
    if (failed !== undefined) {
      const message = e instanceof Error ? e.message : String(e);
      return failure('load', message, { importer: failed.importer, specifier: failed.specifier });
    }
    if (e instanceof Error) return failure('load', `${e.name}: ${e.message}`, { stack: e.stack, name: e.name });
    return failure('load', String(e));
  }
}
