import { hash } from 'node:crypto';
import path from 'node:path';
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { nodeHost } from '../host.js';
import type { WorkerBatch, WorkerEntry, WorkerListing } from './check-worker-start.js';

/**
 * A second thread of a cold build (see check-pool.ts): takes the next file from the shared
 * counter, reads it with its stamp (and its digest, unless the build is one-shot), and posts the
 * results back in batches on its own port: the bytes in one transferred buffer, the rest as one
 * JSON text. It checks and analyzes nothing: this thread's isolate would compile the checker and
 * the code analyzer again, and on two cores those compiles took the core that V8's optimizing
 * compiler and collector already use for the main thread (docs/performance.md, round nine,
 * wt-par). Started on a manifest (the CLI starts it before loading the compiler), it first lists
 * the sources as a build does and posts the listing; the main thread checks the same list from
 * the same counter.
 */
const work = workerData as { counter: Int32Array; min: number; digest: boolean; batches: MessagePort } & ({ files: string[] } | { manifest: string });
const { counter, batches } = work;
// The port must not keep this thread alive once it has posted 'done'.
batches.unref();
/** Files per message: small enough that the main thread is seldom left waiting for the last one. */
const BATCH = 32;
const listed = 'files' in work ? work.files : await listSources(work.manifest);
// A small package's worker only lists.
if (listed !== undefined && ('manifest' in work ? listed.length >= work.min : true)) readFiles(listed);
parentPort!.postMessage('done');

/** The sources a build of `manifest` checks (method documents aside), posted first; undefined without a readable manifest. */
async function listSources(given: string): Promise<string[] | undefined> {
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
    return files;
  } catch {
    return undefined;
  }
}

/** Reads each file it takes with its stamp; posts the bytes (and digests) in batches. */
function readFiles(files: readonly string[]): void {
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
      // `sha256Hex`'s digest, taken here so the main thread does not hash the file again (a
      // one-shot build takes none); from node:crypto directly, because bundle/digest.ts sits in a
      // chunk this thread would otherwise load.
      const digest = work.digest ? { digest: hash('sha256', read.bytes, 'hex') } : {};
      entries.push({ file, ...digest, stamp: read.stamp, changedAt: read.changedAt });
      bytes.push(read.bytes);
    } catch {
      // The build reads the file again and reports what is wrong with it.
    }
    if (entries.length === BATCH) flush();
  }
  flush();
}

/** The files' bytes in one buffer of its own (never Node's shared pool: it is transferred), with where each ends. */
function joinBytes(bytes: readonly Uint8Array[]): Pick<WorkerBatch, 'data' | 'ends'> {
  let end = 0;
  const ends = bytes.map((b) => (end += b.byteLength));
  const joined = new Uint8Array(end);
  bytes.forEach((b, i) => joined.set(b, i === 0 ? 0 : ends[i - 1]));
  return { data: joined.buffer, ends };
}
