import { hash } from 'node:crypto';
import path from 'node:path';
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { nodeHost } from '../host.js';
import type { WorkerBatch, WorkerEntry, WorkerListing } from './check-worker-start.js';

/**
 * A second thread of a cold build (see check-pool.ts): takes the next file from the shared
 * counter, reads it with its stamp, analyzes it if it is a code routine, and posts the results
 * back in batches on its own port: the bytes in one transferred buffer, the rest as one JSON
 * text. Started on a manifest
 * (the CLI starts it before loading the compiler), it first lists the sources as a build does
 * and posts the listing; the main thread checks the same list from the same counter.
 */
const work = workerData as { counter: Int32Array; min: number; batches: MessagePort } & ({ files: string[]; dir: string } | { manifest: string });
const { counter, batches } = work;
// The port must not keep this thread alive once it has posted 'done'.
batches.unref();
/** Files per message: small enough that the main thread is seldom left waiting for the last one. */
const BATCH = 32;
const LANGUAGE = Buffer.from('language');
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
 * Reads each file it takes with its stamp and, for a code routine, checks it and analyzes its
 * body and modules (recording what the analysis read, by digest); posts the bytes and the
 * analyses. The main thread checks every file itself from the bytes: a checked tree costs it
 * more to receive (`JSON.parse` and reviving) than to build (docs/performance.md, round six).
 * Reading starts at once; the analyzer loads meanwhile (between batches), and a code routine
 * read before it is there is analyzed by the build instead.
 */
async function checkFiles(files: readonly string[], dir: string): Promise<void> {
  let analyze: Analyze | undefined;
  loadAnalyzer(dir).then(
    (loaded) => (analyze = loaded),
    () => {},
  );
  let entries: WorkerEntry[] = [];
  let bytes: Uint8Array[] = [];
  const flush = (): void => {
    if (entries.length === 0) return;
    const batch: WorkerBatch = { json: JSON.stringify(entries), ...joinBytes(bytes) };
    batches.postMessage(batch, [batch.data]);
    entries = [];
    bytes = [];
  };
  for (;;) {
    const i = Atomics.add(counter, 0, 1);
    if (i >= files.length) break;
    const file = files[i]!;
    try {
      const read = nodeHost.readStamped!(file);
      // Only a code routine (a `language` key) has an analysis to send; a file this test passes
      // by mistake is merely checked here for nothing, one it misses is analyzed by the build.
      const code = analyze !== undefined && mayBeCode(read.bytes) ? analyze(file, read.bytes) : undefined;
      // `sha256Hex`'s digest, taken here so the main thread does not hash the file again; from
      // node:crypto directly, because bundle/digest.ts sits in a chunk this thread would
      // otherwise load before its first read.
      entries.push({ file, digest: hash('sha256', read.bytes, 'hex'), stamp: read.stamp, changedAt: read.changedAt, ...(code ? { code } : {}) });
      bytes.push(read.bytes);
    } catch {
      // The build reads the file again and reports what is wrong with it.
    }
    if (entries.length === BATCH) {
      flush();
      // A turn of the event loop, so the analyzer's modules can load.
      if (analyze === undefined) await new Promise((resolve) => setImmediate(resolve));
    }
  }
  flush();
}

type Analyze = (file: string, bytes: Uint8Array) => WorkerEntry['code'];

async function loadAnalyzer(dir: string): Promise<Analyze> {
  const [{ SourceCache }, { codeInput }, { analyzeCodeRoutine, CodeCache }, { AnswerRecorder }] = await Promise.all([
    import('./cache/source-cache.js'),
    import('./steps/analyze-code.js'),
    import('../code/index.js'),
    import('./answer-recorder.js'),
  ]);
  const sources = new SourceCache();
  const modules = new CodeCache();
  const packageRoot = realDir(dir);
  return (file, bytes) => {
    const routine = sources.check(file, bytes).routine;
    const input = routine && codeInput(routine, dir);
    if (input === undefined) return undefined;
    const recording = new AnswerRecorder(nodeHost);
    const result = analyzeCodeRoutine(input, { host: recording, packageRoot, cache: modules });
    return { root: packageRoot, log: recording.stored(), result };
  };
}

function mayBeCode(bytes: Uint8Array): boolean {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).includes(LANGUAGE);
}

/** The files' bytes in one buffer of its own (never Node's shared pool: it is transferred), with where each ends. */
function joinBytes(bytes: readonly Uint8Array[]): Pick<WorkerBatch, 'data' | 'ends'> {
  let end = 0;
  const ends = bytes.map((b) => (end += b.byteLength));
  const joined = new Uint8Array(end);
  bytes.forEach((b, i) => joined.set(b, i === 0 ? 0 : ends[i - 1]));
  return { data: joined.buffer, ends };
}

function realDir(dir: string): string {
  try {
    return nodeHost.realpath(dir);
  } catch {
    return dir;
  }
}
