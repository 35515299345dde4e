import { watchPaths, type WatchPathsOptions } from './watch-paths.js';

export interface WatchedPaths {
  files: readonly string[];
  directories: readonly string[];
}

export interface WatchBuildOptions {
  /** Runs one build and prints its outcome; returns what it read, to watch next. */
  build(): WatchedPaths;
  /** What to watch when a build throws before saying what it read. */
  fallback: WatchedPaths;
  /** Called when `build` throws; the session goes on. */
  onError(error: unknown): void;
  ignore?: WatchPathsOptions['ignore'];
  /**
   * Quiet time after the last change before rebuilding (editors and tools write in bursts).
   * Default 20 ms, webpack's `aggregateTimeout`; most of a rebuild's wait at N = 1,000 was the
   * 50 ms used before (docs/performance.md, round thirteen).
   */
  debounceMs?: number;
}

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/**
 * Builds, then rebuilds after every change to what the last build read, until SIGINT or
 * SIGTERM; resolves to exit code 0 then. The watched set is replaced after each build, since
 * a rebuild can read different files (a new routine, a removed import).
 */
export function watchBuild(options: WatchBuildOptions): Promise<number> {
  return new Promise((resolve) => {
    let watcher: { close(): void } | undefined;
    let timer: NodeJS.Timeout | undefined;
    let immediate: NodeJS.Immediate | undefined;
    let watched = options.fallback;

    const rebuild = () => {
      timer = undefined;
      immediate = undefined;
      try {
        watched = options.build();
      } catch (error) {
        options.onError(error);
      }
      // Registered before the old watchers close, so a change during the build is not lost.
      const next = watchPaths(watched.files, watched.directories, { onChange: schedule, ...(options.ignore ? { ignore: options.ignore } : {}) });
      watcher?.close();
      watcher = next;
    };
    function schedule(): void {
      if (timer !== undefined) clearTimeout(timer);
      // The build starts after one more poll of the event loop: a change made before it is then
      // among the file events a build is told of (changed-builds.ts).
      timer = setTimeout(() => (immediate = setImmediate(rebuild)), options.debounceMs ?? 20);
    }
    const stop = () => {
      for (const signal of SIGNALS) process.off(signal, stop);
      if (timer !== undefined) clearTimeout(timer);
      if (immediate !== undefined) clearImmediate(immediate);
      watcher?.close();
      resolve(0);
    };
    for (const signal of SIGNALS) process.on(signal, stop);
    rebuild();
  });
}
