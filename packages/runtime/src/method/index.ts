// Method runs (docs/methods.md): MTH-18 on a CompiledMethod from the compiler's checkMethod.
export {
  runMethod,
  resumeMethod,
  confirmStep,
  methodStatus,
  readMethodRun,
  type RunMethodOptions,
  type ResumeMethodOptions,
  type ConfirmStepOptions,
} from './run-method.js';
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
} from './executor.js';
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
