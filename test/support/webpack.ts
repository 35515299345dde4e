import { createRequire } from 'node:module';
import path from 'node:path';
import { rspack } from '@rspack/core';
import webpack from 'webpack';

/** Helpers shared by the tests that run @berrypack/webpack in real webpack 5 and real Rspack. */

/** What the tests read of a finished build, taken before the compiler is closed (Rspack frees its compilation then). */
export interface BuildOutcome {
  errors: TestError[];
  warnings: TestError[];
  /** Emitted asset names, sorted. */
  assets: string[];
}

/** The fields webpack and Rspack keep on an error (Rspack keeps no others). */
export interface TestError {
  message: string;
  file?: string;
  loc?: unknown;
  code?: string;
  rule?: string;
  hint?: string;
}

interface HostStats {
  compilation: { errors: TestError[]; warnings: TestError[] };
  toJson(options: object): { assets?: { name: string }[] };
}

interface HostCompiler {
  run(callback: (error: Error | null, stats?: HostStats) => void): void;
  watch(options: object, callback: (error: Error | null, stats?: HostStats) => void): { close(callback: () => void): void };
  close(callback: (error?: Error | null) => void): void;
  hooks: { watchRun: { tap(name: string, fn: () => void): void } };
}

export interface Host {
  name: 'webpack' | 'rspack';
  create(config: object): HostCompiler;
}

export const HOSTS: Host[] = [
  { name: 'webpack', create: (config) => webpack(config as webpack.Configuration) as unknown as HostCompiler },
  { name: 'rspack', create: (config) => rspack(config as Parameters<typeof rspack>[0]) as unknown as HostCompiler },
];

/**
 * A Node build of `<dir>/main.js` into `<dir>/out` (CommonJS, so `requireFresh` can run it):
 * unminified, no source maps, nothing printed. `extra` is spread over it.
 */
export function nodeConfig(dir: string, plugins: unknown[], extra: object = {}): object {
  return {
    mode: 'production',
    context: dir,
    entry: './main.js',
    target: 'node',
    devtool: false,
    output: { path: path.join(dir, 'out'), library: { type: 'commonjs2' } },
    optimization: { minimize: false },
    infrastructureLogging: { level: 'none' },
    plugins,
    ...extra,
  };
}

function outcomeOf(stats: HostStats): BuildOutcome {
  const assets = (stats.toJson({ all: false, assets: true }).assets ?? []).map((a) => a.name).sort();
  return { errors: [...stats.compilation.errors], warnings: [...stats.compilation.warnings], assets };
}

export async function build(host: Host, config: object): Promise<BuildOutcome> {
  const compiler = host.create(config);
  try {
    return await new Promise<BuildOutcome>((resolve, reject) => {
      compiler.run((error, stats) => (error || !stats ? reject(error ?? new Error('no stats')) : resolve(outcomeOf(stats))));
    });
  } finally {
    await new Promise<void>((resolve) => compiler.close(() => resolve()));
  }
}

/** A compiler in watch mode; `change` applies an edit and resolves with the build it causes. */
export interface WatchSession {
  first(): Promise<BuildOutcome>;
  /**
   * Applies `edit`, then resolves with the outcome of the next build that started after it. The
   * watcher may register new paths after a build ends, so `edit` is applied again every 2 s until
   * a build starts: it must be idempotent (write a file, not append).
   */
  change(edit: () => void): Promise<BuildOutcome>;
  close(): Promise<void>;
}

export function watch(host: Host, config: object): WatchSession {
  const compiler = host.create(config);
  let started = 0;
  const done: { run: number; outcome: BuildOutcome | Error }[] = [];
  const listeners = new Set<() => void>();
  compiler.hooks.watchRun.tap('test', () => {
    started++;
  });
  const watching = compiler.watch({ aggregateTimeout: 100 }, (error, stats) => {
    done.push({ run: started, outcome: error ?? (stats ? outcomeOf(stats) : new Error('no stats')) });
    for (const listener of [...listeners]) listener();
  });
  const after = (run: number) =>
    new Promise<BuildOutcome>((resolve, reject) => {
      const check = () => {
        const hit = done.find((d) => d.run > run);
        if (!hit) return;
        listeners.delete(check);
        if (hit.outcome instanceof Error) reject(hit.outcome);
        else resolve(hit.outcome);
      };
      listeners.add(check);
      check();
    });
  return {
    first: () => after(0),
    async change(edit) {
      const run = started;
      const timer = setInterval(() => {
        if (started === run) edit();
      }, 2000);
      try {
        edit();
        return await after(run);
      } finally {
        clearInterval(timer);
      }
    },
    close: () => new Promise<void>((resolve) => watching.close(() => compiler.close(() => resolve()))),
  };
}

/** Runs a CommonJS output file, fresh each time (a rebuilt file at the same path is not served from the cache). */
export function requireFresh<T>(file: string): T {
  const require = createRequire(file);
  delete require.cache[require.resolve(file)];
  return require(file) as T;
}

/** The bundle among the emitted assets. */
export function bundleAsset(outcome: BuildOutcome): string | undefined {
  return outcome.assets.find((name) => name.endsWith('.berry.json'));
}
