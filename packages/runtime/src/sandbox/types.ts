/**
 * The sandbox contract: what the execution engine hands a sandbox and what it gets back. A leaf
 * (it imports nothing), so the pool, the worker protocol and the source maps take their types
 * from here rather than from the barrel that starts the pool; a host may pass any implementation
 * of `Sandbox` as `createRuntime({sandbox})`. docs/runtime-sandbox.md describes the one in this folder.
 */
export interface SandboxModule {
  /** POSIX, relative to the package root, e.g. 'routines/search/rank.md' for a routine body, 'routines/lib/score.js' for a module. */
  path: string;
  source: string;
  /**
   * Body → `.md` source map (magic-string); absent for plain modules. Its `sources` are
   * package-relative paths, as @berrypack/compiler writes them.
   */
  map?: { version: 3; sources: string[]; mappings: string; names?: string[]; sourcesContent?: (string | null)[] };
}

export interface SandboxInvocation {
  /**
   * The routine body and every supporting module it may import; specifiers resolve relative
   * to the importer's path (POSIX join/normalize) and must name one of these paths exactly;
   * anything else (bare, node:, URLs, missing) fails the load.
   */
  modules: SandboxModule[];
  /** Path of the module whose default export is called as fn(input, tools, context). */
  entry: string;
  /** JSON value. */
  input: unknown;
  /** The exact keys of the guest `tools` object (literal declared names, e.g. 'notes.compose'); each is an async function (input) => output. */
  tools: string[];
  /** `outcome`: offer context.outcome(callId) (a routine with an async tool connection). */
  context: { catalog: boolean; outcome?: boolean; ports: { input: boolean; output: boolean } };
  /** What Date.now(), new Date() and performance.now() (relative 0) see: fixed per invocation. */
  clock: { epochMs: number };
  /** Seed of Math.random and crypto.getRandomValues: same seed → same sequence. */
  seed: number;
  limits: { cpuMs: number; memoryBytes: number; timeoutMs: number; outputBytes: number };
  /**
   * The key of a memory budget (the runtime passes the execution id). Invocations with the same
   * key run in one worker, and while any of them is alive they share `limits.memoryBytes`: a
   * running VM may allocate only what the other live VMs of the key leave (each counted by its
   * whole WASM linear memory), and a new VM does not start when no fresh one fits. Without a
   * key, an invocation is a budget of its own. See docs/runtime-sandbox.md, "Limits".
   */
  memoryBudget?: string;
}

/** A tool call's admission by the host: its ids and its outcome to come. */
export interface SandboxAdmission {
  callId: string;
  executionId: string | null;
  outcome: Promise<unknown>;
}

export interface SandboxHost {
  /**
   * Admission then outcome: returns (or resolves with) the admission (the guest's
   * context.receipt(p) then yields {callId, executionId}); `outcome` settles with the tool's
   * JSON output or rejects with {code, message} (a failed tool call rejects in the guest
   * with an Error carrying that message and code). A host that admits synchronously may
   * return the admission itself: it saves a turn of the host's microtask queue per call.
   */
  callTool(name: string, input: unknown): SandboxAdmission | Promise<SandboxAdmission>;
  /** context.catalog(), only when context.catalog is true. */
  catalog?(): Promise<unknown>;
  /** context.outcome(callId): the later outcome of an async call the routine made (RUN-7). */
  outcome?(callId: string): Promise<unknown>;
  /** context.receive(), only with ports.input. */
  receive?(): Promise<unknown>;
  /** context.emit(...), only with ports.output. */
  emit?(value: unknown, kind?: string, answers?: string): Promise<void>;
}

export type SandboxErrorCode = 'timeout' | 'cpu' | 'memory' | 'thrown' | 'load' | 'not-json' | 'output-too-large' | 'internal';

export interface SandboxError {
  code: SandboxErrorCode;
  message: string;
  /** Mapped through the module's source map to the `.md` file line the author edits. */
  location?: { file: string; line: number; column: number };
  /** The guest's stack frames in the routine's own files, mapped like `location`. */
  stack?: string;
  /** The string `code` of the value the routine threw, e.g. the code of a failed tool call it did not catch. */
  thrownCode?: string;
}

export type SandboxResult = { ok: true; output: unknown } | { ok: false; error: SandboxError };

export interface Sandbox {
  invoke(invocation: SandboxInvocation, host: SandboxHost): Promise<SandboxResult>;
  close(): Promise<void>;
}
