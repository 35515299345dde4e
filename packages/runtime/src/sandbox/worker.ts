/**
 * Sandbox worker: runs code routines in fresh QuickJS VMs, off the host's event loop. This is
 * the thread's entry: it routes the pool's messages to the runs (vm-run.ts) they are for.
 * quickjs-wasi is imported by the absolute URL the host resolved, so the worker needs no module
 * resolution of its own; it starts from dist/ (worker-assets.ts), beside its sibling modules.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { FromWorker, Settlement, ToWorker, WorkerData } from './protocol.js';
import { describeHostError, failure } from './raw-result.js';
import { VmSource } from './vm-image.js';
import { Run, type Delivery, type Engine, type RunHost } from './vm-run.js';

const data = workerData as WorkerData;
const runs = new Map<number, Run>();
const engine: Promise<Engine> = import(data.quickjsUrl) as Promise<Engine>;
const vms = new VmSource(engine, data);
let JSException: Engine['JSException'] | undefined;
engine.then(
  (e) => (JSException = e.JSException),
  () => undefined,
);

if (parentPort === null) throw new Error('the sandbox worker must run in a worker thread');
const port = parentPort;

const host: RunHost = {
  engine,
  data,
  vms,
  watch: new BigInt64Array(data.watch),
  post: (message: FromWorker) => port.postMessage(message),
  ended: (id) => {
    runs.delete(id);
    if (runs.size === 0) vms.idle();
  },
  jsException: () => JSException,
};

port.on('message', (message: ToWorker) => {
  try {
    receive(message);
  } catch (e) {
    port.postMessage({ t: 'fatal', message: `sandbox worker failed: ${describeHostError(e)}` } satisfies FromWorker);
  }
});

function receive(message: ToWorker): void {
  switch (message.t) {
    case 'invoke': {
      const run = new Run(message, host);
      runs.set(message.id, run);
      run.start().catch((e: unknown) => run.finish(failure('internal', `the sandbox could not start: ${describeHostError(e)}`)));
      return;
    }
    case 'admit':
      runs.get(message.id)?.deliver({ kind: 'admit', seq: message.seq, ok: message.ok, payload: message.ok ? receiptText(message) : failureText(message) });
      return;
    case 'settle':
      runs.get(message.id)?.deliver(settled(message));
      return;
    case 'answer':
      runs.get(message.id)?.deliver({ ...settled(message), kind: 'answer', receipt: receiptText(message) });
      return;
    case 'cancel':
      runs.get(message.id)?.cancel();
      return;
  }
}

function receiptText(message: { callId: string; executionId: string | null }): string {
  return JSON.stringify({ callId: message.callId, executionId: message.executionId });
}

function failureText(message: { code: string; message: string }): string {
  return JSON.stringify({ code: message.code, message: message.message });
}

function settled(message: { seq: number } & Settlement): Delivery {
  return { kind: 'settle', seq: message.seq, ok: message.ok, payload: message.ok ? message.value : failureText(message) };
}
