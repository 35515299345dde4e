import { parentPort, workerData } from 'node:worker_threads';
import { createCompiler } from './compile-package.js';
import type { OffloadReply, OffloadRequest, WireBundle } from './offload.js';
import type { CompilerOptions } from './types.js';

/**
 * The thread of an offloaded one-shot build (offload.ts): compiles each manifest it is sent on
 * one one-shot compiler, as the host's thread would, and posts the result back with the bundle's
 * bytes in a transferred buffer. Builds run one after another, in the order they were asked for.
 */
const compiler = createCompiler({ ...(workerData as { options: CompilerOptions }).options, oneShot: true });
let queue = Promise.resolve();

parentPort!.on('message', (request: OffloadRequest) => {
  queue = queue.then(() => build(request.manifest));
});

async function build(manifest: string): Promise<void> {
  let reply: OffloadReply;
  const transfer: ArrayBuffer[] = [];
  try {
    await compiler.prepare(manifest);
    const { bundle, ...rest } = compiler.build(manifest);
    reply = { manifest, result: { ...rest, bundle: bundle && wireBundle(bundle, transfer) } };
  } catch (error) {
    // The host's thread compiles again and reports the error as it would have.
    reply = { manifest, failed: String((error as Error)?.message ?? error) };
  }
  parentPort!.postMessage(reply, transfer);
}

function wireBundle(bundle: NonNullable<ReturnType<typeof compiler.build>['bundle']>, transfer: ArrayBuffer[]): WireBundle {
  const bytes = bundle.bytes;
  // The joined file owns its buffer: it moves to the host's thread without a copy.
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer) transfer.push(bytes.buffer);
  return { id: bundle.id, fileName: bundle.fileName, bytes, blobs: new Map(bundle.blobs) };
}
