// The sandbox contract (src/sandbox/, docs/runtime-sandbox.md), re-exported so the execution
// engine names one place; a host may pass any implementation as `createRuntime({sandbox})`.
export type { Sandbox, SandboxError, SandboxHost, SandboxInvocation, SandboxModule, SandboxResult } from '../sandbox/index.js';
