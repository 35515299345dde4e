import { parseArgs } from 'node:util';
import { startCheckWorker, type CheckWorker } from '@berrypack/compiler/internal-check-worker';
import { resolveManifestArg } from './manifest-arg.js';
import { BUILD_OPTIONS, COMMON_OPTIONS } from './option-specs.js';

// `berrypack build --parallel` starts its second thread here, before this thread loads the
// compiler (about 170 modules): the worker lists the package's sources and reads them while this
// thread is still loading, and the build's `prepare` joins it (docs/performance.md).

let started: { manifest: string; worker: CheckWorker } | undefined;

/**
 * Best effort, and only with `--parallel`: for arguments the build command will refuse, nothing
 * starts.
 */
export function startEarlyBuild(args: string[], cwd = process.cwd()): void {
  try {
    const { values, positionals } = parseArgs({ args, options: { ...COMMON_OPTIONS, ...BUILD_OPTIONS }, allowPositionals: true, strict: true });
    if (values.help === true || values.parallel !== true || values['no-parallel'] === true || positionals.length !== 1) return;
    const manifest = resolveManifestArg(cwd, positionals[0]!);
    // Without --watch the build is one-shot (commands/build.ts), so the worker takes no digests.
    const worker = startCheckWorker(manifest, values.watch !== true);
    if (worker) started = { manifest, worker };
  } catch {
    // The build command reports what is wrong with its arguments.
  }
}

/** The worker started for `manifest`, once; a worker started for another is stopped. */
export function takeEarlyWorker(manifest: string): CheckWorker | undefined {
  const early = started;
  started = undefined;
  if (early === undefined || early.manifest === manifest) return early?.worker;
  early.worker.stop();
  return undefined;
}
