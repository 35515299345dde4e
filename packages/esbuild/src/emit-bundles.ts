import path from 'node:path';
import type { BundleFile, writeBundle, writeBundleAsync } from '@berrypack/compiler';
import type { BuildOptions, BuildResult, OutputFile, PartialMessage } from 'esbuild';
import { PLUGIN_NAME } from './to-esbuild-message.js';

/** Where bundles go: `outdir`, else the directory of `outfile` (CONTRACTS.md). */
export function outputDirectory(options: BuildOptions): string | undefined {
  const cwd = options.absWorkingDir ?? process.cwd();
  if (options.outdir !== undefined) return path.resolve(cwd, options.outdir);
  if (options.outfile !== undefined) return path.dirname(path.resolve(cwd, options.outfile));
  return undefined;
}

/** The compiler's two writers (the plugin loads the compiler when a build starts). */
export interface BundleWriters {
  writeBundle: typeof writeBundle;
  writeBundleAsync: typeof writeBundleAsync;
}

/**
 * Writes the bundles of a successful build, the same bytes as `berrypack build`, or with
 * `write: false` adds them to `outputFiles`; either way they are listed in the metafile.
 * Returns the errors to report (nowhere to write, a failed write).
 */
export async function emitBundles(
  bundles: readonly BundleFile[],
  writers: BundleWriters,
  result: BuildResult,
  options: BuildOptions,
  durable = true,
  superseded?: Map<string, string>,
): Promise<PartialMessage[]> {
  if (bundles.length === 0) return [];
  const dir = outputDirectory(options);
  if (dir === undefined) {
    return [
      { pluginName: PLUGIN_NAME, text: 'Unexpected build without `outdir` or `outfile`, expected one: the bundle is written there (or pass `emit: false`)' },
    ];
  }
  // The bundle's bytes are joined from its parts only when esbuild is handed them (`write: false`).
  const files = new Map<string, () => Uint8Array>();
  const sizes = new Map<string, number>();
  for (const bundle of bundles) {
    for (const [hex, bytes] of bundle.blobs) {
      files.set(path.join(dir, 'blobs', 'sha256', hex), () => bytes);
      sizes.set(path.join(dir, 'blobs', 'sha256', hex), bytes.length);
    }
    files.set(path.join(dir, bundle.fileName), () => bundle.bytes);
    sizes.set(path.join(dir, bundle.fileName), bundle.parts?.reduce((sum, part) => sum + part.length, 0) ?? bundle.bytes.length);
  }
  if (options.write === false) {
    for (const [file, contents] of files) result.outputFiles?.push(outputFile(file, contents()));
  } else {
    try {
      for (const bundle of bundles) {
        // A rebuild (not durable) takes over the bundle it supersedes (same package, same out
        // dir), so a watch session leaves one bundle per package rather than one per edit.
        const key = `${dir}\0${packageOf(bundle.fileName)}`;
        // A durable write waits for the disk's fsyncs together, as `berrypack build`'s does.
        if (durable) await writers.writeBundleAsync(dir, bundle);
        else writers.writeBundle(dir, bundle, { durable, replaces: superseded?.get(key) });
        superseded?.set(key, bundle.fileName);
      }
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      return [{ pluginName: PLUGIN_NAME, text: `Unexpected ${reason} writing the bundle to ${dir}` }];
    }
  }
  if (result.metafile) {
    const cwd = options.absWorkingDir ?? process.cwd();
    for (const [file, bytes] of sizes) {
      const key = path.relative(cwd, file).split(path.sep).join('/');
      result.metafile.outputs[key] = { bytes, inputs: {}, imports: [], exports: [] };
    }
  }
  return [];
}

/** `<plugin-name>` of `<plugin-name>.<12 hex>.berry.json`. */
function packageOf(fileName: string): string {
  return fileName.replace(/\.[0-9a-f]{12}\.berry\.json$/, '');
}

function outputFile(file: string, contents: Uint8Array): OutputFile {
  // Bundle and blob names already carry their digest; its first 12 hex digits serve as the hash.
  const hash = path
    .basename(file)
    .replace(/\.berry\.json$/, '')
    .split('.')
    .pop()!
    .slice(0, 12);
  return {
    path: file,
    contents,
    hash,
    get text() {
      return new TextDecoder().decode(this.contents);
    },
  };
}
