/**
 * The code-routine sandbox: every invocation runs in a fresh QuickJS VM (quickjs-wasi) inside
 * a small pool of worker threads. Why this engine and this shape: docs/runtime-sandbox.md.
 */
import { availableParallelism } from 'node:os';
import { WorkerPool } from './pool.js';
import type { Sandbox, SandboxInvocation } from './types.js';

export type { Sandbox, SandboxAdmission, SandboxError, SandboxErrorCode, SandboxHost, SandboxInvocation, SandboxModule, SandboxResult } from './types.js';

/** CONTRACTS.md "Runtime limits" defaults, with the execution timeout applied to one invocation. */
export const DEFAULT_SANDBOX_LIMITS: Readonly<SandboxInvocation['limits']> = Object.freeze({
  cpuMs: 5_000,
  memoryBytes: 64 * 1024 * 1024,
  timeoutMs: 30_000,
  outputBytes: 16 * 1024 * 1024,
});

export function createSandbox(options?: { workers?: number /* default: min(2, cpus) */ }): Sandbox {
  return new WorkerPool(options?.workers ?? Math.min(2, availableParallelism()));
}
