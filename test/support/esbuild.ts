import type { BuildResult, OutputFile, Plugin } from 'esbuild';

/** The bundle among esbuild's output files (`write: false`). */
export function bundleOutput(files: readonly OutputFile[] | undefined): OutputFile | undefined {
  return files?.find((f) => f.path.endsWith('.berry.json'));
}

export function bundleId(file: OutputFile | undefined): string | undefined {
  return file === undefined ? undefined : (JSON.parse(file.text) as { id: string }).id;
}

/**
 * A plugin that hands every build's end to `waitFor`, for driving `context.watch()`:
 * `waitFor(predicate)` resolves with the first result (past or future) that satisfies it.
 */
export function recordEnds(): { plugin: Plugin; waitFor(predicate: (result: BuildResult) => boolean, timeoutMs: number): Promise<BuildResult> } {
  const results: BuildResult[] = [];
  const waiting: { predicate: (r: BuildResult) => boolean; resolve: (r: BuildResult) => void }[] = [];
  return {
    plugin: {
      name: 'record-ends',
      setup(build) {
        build.onEnd((result) => {
          results.push(result);
          for (const w of [...waiting]) {
            if (w.predicate(result)) {
              waiting.splice(waiting.indexOf(w), 1);
              w.resolve(result);
            }
          }
        });
      },
    },
    waitFor(predicate, timeoutMs) {
      const done = results.find(predicate);
      if (done) return Promise.resolve(done);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no matching build within ${timeoutMs} ms (${results.length} builds seen)`)), timeoutMs);
        waiting.push({ predicate, resolve: (r) => (clearTimeout(timer), resolve(r)) });
      });
    },
  };
}
