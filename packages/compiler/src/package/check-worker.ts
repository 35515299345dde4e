import { parentPort, workerData } from 'node:worker_threads';
import { nodeHost } from '../host.js';
import { SourceCache } from './cache/source-cache.js';
import { packChecked } from './checked-wire.js';
import type { WorkerBatch } from './check-pool.js';

/**
 * A second thread of a cold build (see check-pool.ts): takes the next file from the shared
 * counter, reads it with its stamp and checks it, and posts the results back in batches: the
 * bytes as they are, everything else as one JSON text (checked-wire.ts).
 */
const { files, counter } = workerData as { files: string[]; counter: Int32Array };
const sources = new SourceCache();
let entries: NonNullable<WorkerBatch['entries']> = [];
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
    entries.push({ file, stamp: read.stamp, changedAt: read.changedAt, checked: packChecked(sources.check(file, read.bytes)) });
    bytes.push(read.bytes);
  } catch {
    // The build reads the file again and reports what is wrong with it.
  }
  if (entries.length === 64) flush();
}
flush();
parentPort!.postMessage('done');
