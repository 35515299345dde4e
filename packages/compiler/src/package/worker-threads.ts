import type * as WorkerThreads from 'node:worker_threads';

/**
 * `node:worker_threads`, loaded when a thread is first needed. Importing it costs a fresh process
 * about 10 ms of CPU, which a cold one-thread build never needs (it starts no thread), so no
 * module of the compiler imports it at load time.
 */
export function workerThreads(): typeof WorkerThreads {
  return (loaded ??= process.getBuiltinModule('node:worker_threads'));
}

let loaded: typeof WorkerThreads | undefined;
