import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { nodeHost } from '../host.js';
import type { WorkerBatch, WorkerEntry, WorkerListing } from './check-worker-start.js';

/**
 * A second thread of a cold build (see check-pool.ts): takes the next file from the shared
 * counter, reads it with its stamp and checks it, and posts the results back in batches: the
 * bytes as they are, everything else as one JSON text (checked-wire.ts). Started on a manifest
 * (the CLI starts it before loading the compiler), it first lists the sources as a build does
 * and posts the listing; the main thread checks the same list from the same counter.
 */
const work = workerData as { counter: Int32Array; min: number } & ({ files: string[]; dir: string } | { manifest: string });
const { counter } = work;
const listed = 'files' in work ? work : await listSources(work.manifest);
// The checker loads only when there is something to check: a small package's worker only lists.
if (listed !== undefined && ('manifest' in work ? listed.files.length >= work.min : true)) await checkFiles(listed.files, listed.dir);
parentPort!.postMessage('done');

/** The sources a build of `manifest` checks (method documents aside), posted first; undefined without a readable manifest. */
async function listSources(given: string): Promise<{ files: string[]; dir: string } | undefined> {
  try {
    const [{ discoverSources }, { readManifest }, { isMethodFile }] = await Promise.all([
      import('../manifest/discover-sources.js'),
      import('../manifest/read-manifest.js'),
      import('../method/parse-document.js'),
    ]);
    const manifest = nodeHost.realpath(path.resolve(given));
    const read = nodeHost.readStamped!(manifest);
    if (read.stamp === '') return undefined;
    const info = readManifest(manifest, read.bytes).manifest;
    if (!info) return undefined;
    const files = discoverSources(info, nodeHost).sources.filter((f) => !isMethodFile(f));
    const listing: WorkerListing = { manifest, files };
    parentPort!.postMessage(listing);
    return { files, dir: info.dir };
  } catch {
    return undefined;
  }
}

/**
 * Checks each file it takes and analyzes a code routine's body and modules too (recording what
 * the analysis read, by digest), so the main thread's build finds both done (check-pool.ts).
 */
async function checkFiles(files: readonly string[], dir: string): Promise<void> {
  const [{ SourceCache }, { packChecked }, { codeInput }, { analyzeCodeRoutine, CodeCache }, { AnswerRecorder }] = await Promise.all([
    import('./cache/source-cache.js'),
    import('./checked-wire.js'),
    import('./steps/analyze-code.js'),
    import('../code/index.js'),
    import('./answer-recorder.js'),
  ]);
  const sources = new SourceCache();
  const modules = new CodeCache();
  const packageRoot = realDir(dir);
  let entries: WorkerEntry[] = [];
  let bytes: Uint8Array[] = [];
  const flush = (): void => {
    if (entries.length === 0) return;
    const batch: WorkerBatch = { json: JSON.stringify(entries), bytes };
    parentPort!.postMessage(batch);
    entries = [];
    bytes = [];
  };
  for (;;) {
    const i = Atomics.add(counter, 0, 1);
    if (i >= files.length) break;
    const file = files[i]!;
    try {
      const read = nodeHost.readStamped!(file);
      const checked = sources.check(file, read.bytes);
      const input = checked.routine && codeInput(checked.routine, dir);
      let code: WorkerEntry['code'];
      if (input !== undefined) {
        const recording = new AnswerRecorder(nodeHost);
        const result = analyzeCodeRoutine(input, { host: recording, packageRoot, cache: modules });
        code = { root: packageRoot, log: recording.stored(), result };
      }
      entries.push({ file, stamp: read.stamp, changedAt: read.changedAt, checked: packChecked(checked), ...(code ? { code } : {}) });
      bytes.push(read.bytes);
    } catch {
      // The build reads the file again and reports what is wrong with it.
    }
    if (entries.length === 64) flush();
  }
  flush();
}

function realDir(dir: string): string {
  try {
    return nodeHost.realpath(dir);
  } catch {
    return dir;
  }
}
