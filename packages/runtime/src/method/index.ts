// Method runs (docs/methods.md): MTH-18 on a CompiledMethod from the compiler's checkMethod.
// Also `@berrypack/runtime/method`, with the run-store interface a database store implements.
export {
  runMethod,
  resumeMethod,
  confirmStep,
  methodStatus,
  readMethodRun,
  type RunMethodOptions,
  type ResumeMethodOptions,
  type ConfirmStepOptions,
} from './run-operations.js';
export type { RunStore, RunStores } from './run-store.js';
export { FileRunStore, checkRunId, fileRunStores } from './file-run-store.js';
export type { StateSnapshot } from './state-files.js';
export { sha256, writeAtomic } from './atomic-file.js';
export type { MethodHostOptions } from './run-context.js';
export {
  createProviderExecutor,
  createRoutineExecutor,
  createStepTools,
  type MethodExecutor,
  type ProviderExecutorOptions,
  type RoutineExecutorOptions,
  type StepChange,
  type StepRequest,
  type StepResult,
} from './step-executors.js';
export { createProviderJudge, type HumanRequest, type JudgeRequest, type JudgeVerdict, type MethodHuman, type MethodJudge } from './judge.js';
export { MethodError } from './method-error.js';
export type { CheckSpec, CompiledMethod, CompiledStep, ConnectionType, DataType, Reference } from '@berrypack/compiler/method-types';
export type {
  ChangeRecord,
  CheckRecord,
  FileValue,
  InvocationRecord,
  ItemRecord,
  MethodRun,
  PendingEntry,
  RunRecord,
  RunStatus,
  StepRecord,
  StepStatus,
} from './run-record.js';
export { toolConnections, type ToolConnection } from './environment.js';
export type { StepTool, ToolCallRecord } from './step-tools.js';
