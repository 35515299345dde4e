/** The files and directories one build of a package read: what esbuild is to watch for it. */
interface WatchList {
  readonly files: readonly string[];
  readonly directories: readonly string[];
  readonly fileSet: ReadonlySet<string>;
  readonly directorySet: ReadonlySet<string>;
}

/**
 * Where the esbuild plugin hands esbuild a package's watch files. esbuild stats every watch file
 * a result returns, on every build, in the goroutine that asked (1,021 files at N = 1,000), and
 * watches the union of what the build's results returned. So a rebuild returns the package's
 * list from its previous build already from onResolve, and esbuild takes those stamps while this
 * thread compiles; the load then returns only what that list lacks (nothing, unless files were
 * added). A file the package no longer reads stays watched for that one build, which at worst
 * starts one more rebuild.
 */
export class WatchLists {
  // Per manifest: the list of its latest build.
  readonly #latest = new Map<string, WatchList>();
  // This build: the lists returned early, by manifest.
  readonly #given = new Map<string, WatchList>();

  get empty(): boolean {
    return this.#latest.size === 0;
  }

  /** Per package, the files of its latest build. */
  *latestFiles(): IterableIterator<readonly string[]> {
    for (const list of this.#latest.values()) yield list.files;
  }

  /** A new build starts: nothing has been given to esbuild yet. */
  start(): void {
    this.#given.clear();
  }

  /** The previous build's list of `manifest`, to return early; once per build, undefined when there is none. */
  early(manifest: string): { watchFiles: string[]; watchDirs: string[] } | undefined {
    const latest = this.#latest.get(manifest);
    if (latest === undefined || this.#given.has(manifest)) return undefined;
    this.#given.set(manifest, latest);
    return { watchFiles: [...latest.files], watchDirs: [...latest.directories] };
  }

  /** What a load of `manifest`'s build returns: the build's files and directories this build has not given esbuild yet. */
  forLoad(manifest: string, files: readonly string[], directories: readonly string[]): { watchFiles: string[]; watchDirs: string[] } {
    const given = this.#given.get(manifest);
    if (given === undefined) {
      const list = watchList(files, directories);
      this.#latest.set(manifest, list);
      this.#given.set(manifest, list);
      return { watchFiles: [...files], watchDirs: [...directories] };
    }
    const watchFiles = files.filter((file) => !given.fileSet.has(file));
    const watchDirs = directories.filter((dir) => !given.directorySet.has(dir));
    // The same paths as the list given (nothing new, none gone) keep that list for the next build.
    const same = watchFiles.length === 0 && watchDirs.length === 0 && files.length === given.files.length && directories.length === given.directories.length;
    if (!same) {
      const list = watchList(files, directories);
      this.#latest.set(manifest, list);
      // Later loads of the same package in this build return what neither list held.
      this.#given.set(manifest, watchList([...given.files, ...watchFiles], [...given.directories, ...watchDirs]));
    }
    return { watchFiles, watchDirs };
  }
}

function watchList(files: readonly string[], directories: readonly string[]): WatchList {
  return { files, directories, fileSet: new Set(files), directorySet: new Set(directories) };
}
