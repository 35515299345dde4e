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
  /** Quiet time after the last change before rebuilding (editors write in bursts). */
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
    let watched = options.fallback;

    const rebuild = () => {
      timer = undefined;
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
      timer = setTimeout(rebuild, options.debounceMs ?? 50);
    }
    const stop = () => {
      for (const signal of SIGNALS) process.off(signal, stop);
      if (timer !== undefined) clearTimeout(timer);
      watcher?.close();
      resolve(0);
    };
    for (const signal of SIGNALS) process.on(signal, stop);
    rebuild();
  });
}
