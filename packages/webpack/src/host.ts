/**
 * What the plugin uses of webpack 5's and Rspack's compiler, compilation and loader context. Both
 * hosts satisfy these shapes (test/types checks a webpack and an Rspack configuration), so the
 * package's types need neither host installed.
 */
export interface HostCompiler {
  /** `cache` is `false` (production's default) or the cache's options once the host applied its defaults. */
  options: { context?: string | undefined; cache?: unknown; module: { rules: unknown[] }; output?: { clean?: unknown } };
  /** Set by watch runs after the first: what the watcher saw change since the previous run. */
  modifiedFiles?: ReadonlySet<string> | undefined;
  removedFiles?: ReadonlySet<string> | undefined;
  /** Where the host writes its output, and its cache files (webpack: both Node's graceful-fs by default). */
  outputFileSystem?: unknown;
  intermediateFileSystem?: unknown;
  /** `output.path`, possibly a template (`compilation.getPath` fills it in). */
  outputPath?: string;
  /** Set while the compiler runs in watch mode. */
  watchMode?: boolean;
  webpack: {
    WebpackError: new (message?: string) => Error;
    sources: {
      RawSource: new (source: Buffer) => unknown;
      ConcatSource?: new (...children: never[]) => unknown;
      /** What webpack puts in place of an asset it wrote. */
      SizeOnlySource?: abstract new (...args: never[]) => unknown;
    };
    /** Set by Rspack only. */
    rspackVersion?: string;
    Compilation: { PROCESS_ASSETS_STAGE_ADDITIONAL: number };
  };
  hooks: {
    thisCompilation: { tap(name: string, fn: (compilation: HostCompilation) => void): void };
    shutdown: { tap(name: string, fn: () => void): void };
    /** webpack's: whoever listens is handed each written asset's buffer. */
    assetEmitted?: { isUsed(): boolean };
    afterEmit?: { tap(name: string, fn: (compilation: HostCompilation) => void): void };
    /** Before the host writes the assets. */
    emit: { tap(name: string, fn: (compilation: HostCompilation) => void): void };
  };
}

export interface HostCompilation {
  errors: Error[];
  warnings: Error[];
  hooks: {
    finishModules: { tapPromise(name: string, fn: (modules: Iterable<HostModule>) => Promise<void>): void };
    processAssets: { tap(options: { name: string; stage: number }, fn: () => void): void };
  };
  emitAsset(file: string, source: never, info?: { immutable?: boolean }): void;
  getAsset(file: string): unknown;
  getLogger(name: string): { info(...args: unknown[]): void };
  getPath(filename: string, data: object): string;
}

/** A module of the compilation; a normal module has the `resource` it was loaded from. */
export interface HostModule {
  identifier(): string;
  readonly resource?: unknown;
}

export interface HostLoaderContext {
  resourcePath: string;
  cacheable(flag?: boolean): void;
  addDependency(file: string): void;
  addContextDependency(directory: string): void;
  addMissingDependency(file: string): void;
}
