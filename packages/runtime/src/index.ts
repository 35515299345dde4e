// @berrypack/runtime: verify, prepare, run, record, replay (docs/runtime.md).
export { loadBundle, type Bundle, type LoadBundleOptions } from './bundle/load-bundle.js';
export type { PackageContent, SourceEntry } from './bundle/content.js';
export { createRuntime, type ExecutionSnapshot, type Runtime, type RuntimeOptions, type StartOptions, type StartTarget } from './runtime.js';
export type { EnvValue, Preparation, PrepareOptions } from './prepare/prepare.js';
export type { ExecutionEvent, Outcome, Publication } from './execution/execution.js';
export { estimateTokens } from './execution/tokens.js';
export {
  createMemorySessionStore,
  createSessionStore,
  type SessionBacking,
  type SessionData,
  type SessionStore,
  type SessionThread,
  type SessionView,
  type StateValue,
} from './session/store.js';
export type { ExternalTool, ToolContext, ToolImplementation } from './execution/external-tool.js';
export { BundleLoadError, PreparationError, RuntimeError, type CallError } from './errors.js';
export { DEFAULT_LIMITS, type RuntimeLimits } from './limits.js';
export type {
  ClassificationRequest,
  ClassificationResponse,
  ContentPart,
  GenerationRequest,
  GenerationResponse,
  ModelBinding,
  ModelMessage,
  ModelProvider,
  ModelSession,
  Script,
  ScriptResponse,
  ToolCall,
  SessionProvider,
  SessionRequest,
  ToolDefinition,
  Usage,
} from './providers/provider.js';
export type { ConfiguredModels, ModelConfig } from './prepare/bind-models.js';
export { createScriptedProvider } from './providers/scripted.js';
export { createOpenAICompatibleProvider } from './providers/openai-compatible.js';
export { createFileJournal, createMemoryJournal, parseJournal, readJournal, type Journal, type MemoryJournal } from './journal/journal.js';
export { callRecords, type CallKind, type CallRecord, type JournalEntry } from './journal/entries.js';
export type { ReplayOptions, ReplayReport } from './replay/replay.js';
export type { Divergence, IncompleteRecording } from './replay/replayer.js';
export type { Sandbox, SandboxHost, SandboxInvocation, SandboxModule, SandboxResult } from './sandbox/types.js';
export { SchemaValidator, type Validation } from './validate/validator.js';
export { translateNativeSchema, NativeSchemaError } from './validate/native-schema.js';
export {
  confirmStep,
  createProviderExecutor,
  createProviderJudge,
  createRoutineExecutor,
  createStepTools,
  MethodError,
  methodStatus,
  readMethodRun,
  resumeMethod,
  runMethod,
  toolConnections,
  type ChangeRecord,
  type CheckRecord,
  type ConfirmStepOptions,
  type FileValue,
  type HumanRequest,
  type InvocationRecord,
  type ItemRecord,
  type JudgeRequest,
  type JudgeVerdict,
  type MethodExecutor,
  type MethodHostOptions,
  type MethodHuman,
  type MethodJudge,
  type MethodRun,
  type PendingEntry,
  type ProviderExecutorOptions,
  type ResumeMethodOptions,
  type RoutineExecutorOptions,
  type RunMethodOptions,
  type RunRecord,
  type RunStatus,
  type StepChange,
  type StepRecord,
  type StepRequest,
  type StepResult,
  type StepStatus,
  type StepTool,
  type ToolCallRecord,
  type ToolConnection,
  type CompiledMethod,
  type DataType as MethodDataType,
} from './method/index.js';
