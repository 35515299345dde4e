/**
 * Messages between the pool (host thread) and a sandbox worker. Both sides are ours; guest
 * values only ever appear here as JSON text, never as structured-cloned objects, so what
 * the host sees is exactly what the guest serialized.
 */
import type { QuickJSOptions } from 'quickjs-wasi';
import type { MemoryLimits } from './imported-memory.js';
import type { SandboxErrorCode } from './types.js';

export interface WorkerData {
  /** file: URL of quickjs-wasi's entry, resolved by the host so the worker needs no module resolution of its own. */
  quickjsUrl: string;
  /** A compiled WebAssembly.Module (typed through quickjs-wasi: the project's libs declare no WebAssembly). */
  wasm: QuickJSOptions['wasm'];
  /** The limits of the memory `wasm` imports (imported-memory.ts); undefined when it defines its own (then every VM is created, vm-image.ts). */
  memoryLimits: MemoryLimits | undefined;
  runner: string;
  /** BigInt64Array view: [id of the invocation whose guest code is running (0 = none), epoch ms by which that slice must end]. */
  watch: SharedArrayBuffer;
}

export interface InvokeMessage {
  t: 'invoke';
  id: number;
  modules: { path: string; source: string }[];
  entry: string;
  /** JSON text; undefined when the host passed `undefined`. */
  input: string | undefined;
  tools: string[];
  catalog: boolean;
  /** context.outcome, for a routine with an async tool connection. */
  outcome: boolean;
  ports: { input: boolean; output: boolean };
  epochMs: number;
  seed: number;
  limits: { cpuMs: number; memoryBytes: number; timeoutMs: number; outputBytes: number };
  /** The memory budget this invocation shares with the others of the same number in this worker; 0 = its own. */
  budget: number;
}

/** How a request ended: its value as JSON text, or a failure's code and message. */
export type Settlement = { ok: true; value: string | undefined } | { ok: false; code: string; message: string };

export type ToWorker =
  | InvokeMessage
  | { t: 'admit'; id: number; seq: number; ok: true; callId: string; executionId: string | null }
  | { t: 'admit'; id: number; seq: number; ok: false; code: string; message: string }
  | ({ t: 'settle'; id: number; seq: number } & Settlement)
  // A tool call admitted and settled before the host's next turn: both in one message (one VM entry).
  | ({ t: 'answer'; id: number; seq: number; callId: string; executionId: string | null } & Settlement)
  | { t: 'cancel'; id: number };

export type GuestOp = 'catalog' | 'receive' | 'emit' | 'outcome';

export type RawResult =
  | { ok: true; output: string }
  | {
      ok: false;
      code: SandboxErrorCode;
      message: string;
      stack: string | undefined;
      name: string | undefined;
      guestCode: string | undefined;
      /** For a module that failed to resolve: where the import was written. */
      importer: string | undefined;
      specifier: string | undefined;
    };

export type FromWorker =
  | { t: 'call'; id: number; seq: number; name: string; input: string | undefined }
  | { t: 'op'; id: number; seq: number; op: GuestOp; value: string | undefined; kind: string | undefined; answers: string | undefined }
  | { t: 'done'; id: number; result: RawResult }
  | { t: 'fatal'; message: string };
