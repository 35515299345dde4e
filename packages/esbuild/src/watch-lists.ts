/** The files and directories one build of a package read: what esbuild is to watch for it. */
interface WatchList {
  readonly files: readonly string[];
  readonly directories: readonly string[];
  readonly fileSet: ReadonlySet<string>;
  readonly directorySet: ReadonlySet<string>;
}

/**
 * Where the esbuild plugin hands esbuild a package's watch files. esbuild reads every watch file
 * a result returns, on every build (a one-shot build too), in the goroutine that asked (1,021
 * files at N = 1,000), and watches the union of what the build's results returned. So the
 * package's list goes out already from onResolve, and esbuild reads those files while this
 * thread compiles: a rebuild returns its previous build's list, a first build plugin.json and the
 * sources discovery finds. The load then returns only what that list lacks (for a rebuild,
 * nothing unless files were added; for a first build, the code modules, resources and probed
 * paths). A file the package no longer reads stays watched for that one build, which at worst
 * starts one more rebuild.
 */
export class WatchLists {
  // Per manifest: the list of its latest build.
  readonly #latest = new Map<string, WatchList>();
  // This build: the lists returned early, by manifest.
  readonly #given = new Map<string, WatchList>();

  /** Per package, the files of its latest build. */
  *latestFiles(): IterableIterator<readonly string[]> {
    for (const list of this.#latest.values()) yield list.files;
  }

  /** A new build starts: nothing has been given to esbuild yet. */
  start(): void {
    this.#given.clear();
  }

  /**
   * What to return early for `manifest`, once per build: its previous build's list, or before
   * its first build the paths `expected` gives (undefined when it gives none).
   */
  early(
    manifest: string,
    expected: () => { files: readonly string[]; directories: readonly string[] } | undefined,
  ): { watchFiles: string[]; watchDirs: string[] } | undefined {
    if (this.#given.has(manifest)) return undefined;
    const list = this.#latest.get(manifest) ?? listOf(expected());
    if (list === undefined) return undefined;
    this.#given.set(manifest, list);
    return { watchFiles: [...list.files], watchDirs: [...list.directories] };
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

function listOf(paths: { files: readonly string[]; directories: readonly string[] } | undefined): WatchList | undefined {
  return paths === undefined ? undefined : watchList(paths.files, paths.directories);
}

function watchList(files: readonly string[], directories: readonly string[]): WatchList {
  return { files, directories, fileSet: new Set(files), directorySet: new Set(directories) };
}
