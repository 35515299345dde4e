import { parentPort, workerData } from 'node:worker_threads';
import { nodeHost } from '../host.js';
import { SourceCache } from './cache/source-cache.js';

/**
 * A second thread of a cold build (see check-pool.ts): takes the next file from the shared
 * counter, reads it with its stamp and checks it, and posts the result back in batches.
 */
const { files, counter } = workerData as { files: string[]; counter: Int32Array };
const sources = new SourceCache();
let batch: unknown[] = [];
for (;;) {
  const i = Atomics.add(counter, 0, 1);
  if (i >= files.length) break;
  const file = files[i]!;
  try {
    const read = nodeHost.readStamped!(file);
    batch.push({ file, bytes: read.bytes, stamp: read.stamp, changedAt: read.changedAt, checked: sources.check(file, read.bytes) });
  } catch {
    // The build reads the file again and reports what is wrong with it.
  }
  if (batch.length === 32) {
    parentPort!.postMessage(batch);
    batch = [];
  }
}
parentPort!.postMessage(batch);
parentPort!.postMessage('done');
