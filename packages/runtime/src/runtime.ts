import { randomUUID } from 'node:crypto';
import type { Bundle } from './bundle/load-bundle.js';
import { resolveTarget, type RoutineRef } from './bundle/routine-table.js';
import { createDefaultSandbox } from './sandbox/default-sandbox.js';
import type { Sandbox } from './sandbox/types.js';
import { failure, RuntimeError } from './errors.js';
import { sessionReaders } from './session/readers.js';
import type { SessionStore } from './session/store.js';
import { jsonText } from './json.js';
import { Execution, type ExecutionEvent, type Outcome, type Publication, type RuntimeServices } from './execution/execution.js';
import { toolOf, type ExternalTool, type ToolImplementation } from './execution/external-tool.js';
import { InputPort } from './execution/ports.js';
import { runExecution } from './execution/run.js';
import type { CallRecord, JournalEntry } from './journal/entries.js';
import type { Journal } from './journal/journal.js';
import { resolveLimits, type RuntimeLimits } from './limits.js';
import { prepareBundle, preparedState, type Preparation, type PrepareOptions } from './prepare/prepare.js';
import { createOpenAICompatibleProvider } from './providers/openai-compatible.js';
import type { ModelBinding, ModelProvider } from './providers/provider.js';
import { createScriptedProvider } from './providers/scripted.js';
import { continuationOf, type ContinueOptions } from './replay/continuation.js';
import { replayExecution, type ReplayOptions, type ReplayReport } from './replay/replay.js';
import { SchemaValidator } from './validate/validator.js';

export interface RuntimeOptions {
  /** Model providers by name, besides (or replacing) the built-in `scripted` and `openai-compatible`. */
  providers?: Readonly<Record<string, ModelProvider>>;
  /** External tools and runtime readers this host supplies; a preparation still has to grant each. */
  tools?: Readonly<Record<string, ToolImplementation>>;
  /** Receives every execution's entries, redacted, in order. Each execution's entries are also kept in memory. */
  journal?: Journal;
  limits?: Partial<RuntimeLimits>;
  /** The code sandbox; default: the one of src/sandbox/, created on first use. */
  sandbox?: Sandbox;
  /** The host's default model connection, used when a preparation names none. @default {provider: 'scripted'} */
  defaultModel?: ModelBinding;
  /** The host clock (epoch ms) for deadlines and journal timestamps. @default Date.now */
  clock?: () => number;
  /** Ask providers that can stream to stream: answers then arrive as `delta` events (`watch`). Journals keep final publications only. @default false */
  stream?: boolean;
  /**
   * The session store serving the built-in readers `runtime.session.read` and
   * `runtime.session.state.read` (a preparation still grants them). @default none: the host supplies the readers as tools
   */
  sessions?: SessionStore;
}

export type StartTarget = { agent: string } | { export: string };

export interface StartOptions {
  /** Host data recorded in the execution entry (the CLI records which bundle or manifest it ran). */
  meta?: Record<string, unknown>;
  /** The session this execution belongs to (with `createRuntime({sessions})`); default: a new one. */
  session?: string;
}

/** What `inspect` shows; reading it never starts or advances work (RUN-1). */
export interface ExecutionSnapshot {
  executionId: string;
  status: 'running' | 'completed' | 'failed';
  calls: CallRecord[];
  publications: Publication[];
}

export interface Runtime {
  /** Binds grants, model connections and env into an immutable preparation (RUN-1, RUN-11). Runs nothing. */
  prepare(bundle: Bundle, options?: PrepareOptions): Preparation;
  /** Starts an agent, or an export, and resolves at once with its execution id (RUN-1, RUN-13). */
  start(preparation: Preparation, target: StartTarget, input?: unknown, options?: StartOptions): Promise<{ executionId: string }>;
  /** The execution's outcome, when it has one. */
  result(executionId: string): Promise<Outcome>;
  inspect(executionId: string): ExecutionSnapshot;
  /** The execution's journal entries so far (redacted). */
  journal(executionId: string): readonly JournalEntry[];
  /** Delivers a JSON message to the input port of the execution's entry routine (RUN-14). */
  send(executionId: string, message: unknown): { id: string };
  /** Closes the input port: `context.receive()` answers null; unconsumed messages are not delivered again. */
  stop(executionId: string): void;
  /** Subscribes to the execution's events (`delta`, `publication`, `call`, `end`), those so far first; returns the unsubscribe function. */
  watch(executionId: string, listener: (event: ExecutionEvent) => void): () => void;
  /** Cancels an in-flight call (a model decision, a tool call and what it runs): it fails `cancelled`, its provider or tool gets an aborted signal. False when the call is not in flight. */
  cancel(executionId: string, callId: string): boolean;
  /**
   * Continues a stopped execution from its journal (RUN-14): a new execution of `preparation`
   * (same bundle) that replays the recorded calls and outcomes without dispatching them again,
   * then takes fresh input through `send`. Resolves with the new execution's id.
   */
  continue(preparation: Preparation, entries: readonly JournalEntry[], options?: ContinueOptions): Promise<{ executionId: string }>;
  /** Re-runs a recorded execution from its journal without dispatching effects again (RUN-5). */
  replay(bundle: Bundle, entries: readonly JournalEntry[], options?: ReplayOptions): Promise<ReplayReport>;
  /** Releases the sandbox (its workers); a code routine still running then fails. */
  close(): Promise<void>;
}

interface Running {
  exec: Execution;
  outcome: Promise<Outcome>;
}

/**
 * A runtime for verified bundles (docs/runtime.md). It works from bytes alone: nothing here
 * reads files, and the sandbox starts only when a code routine first runs.
 */
export function createRuntime(options: RuntimeOptions = {}): Runtime {
  const providers = new Map<string, ModelProvider>([
    ['scripted', createScriptedProvider()],
    ['openai-compatible', createOpenAICompatibleProvider()],
    ...Object.entries(options.providers ?? {}),
  ]);
  const tools = new Map<string, ExternalTool>([
    ...(options.sessions ? sessionReaders(options.sessions) : []),
    ...Object.entries(options.tools ?? {}).map(([name, tool]): [string, ExternalTool] => [name, toolOf(tool)]),
  ]);
  const limits = resolveLimits(options.limits);
  const now = options.clock ?? Date.now;
  let sandbox: Promise<Sandbox> | undefined;
  const services: RuntimeServices = {
    validator: new SchemaValidator(),
    providers,
    tools,
    limits,
    now,
    journal: options.journal,
    stream: options.stream === true,
    sessions: options.sessions,
    sandbox: () => (sandbox ??= options.sandbox ? Promise.resolve(options.sandbox) : createDefaultSandbox()),
  };
  const defaultModel = options.defaultModel ?? { provider: 'scripted' };
  const executions = new Map<string, Running>();
  const running = (executionId: string): Running => {
    const found = executions.get(executionId);
    if (!found) throw new RuntimeError('unknown-execution', `Unexpected execution id ${executionId}, expected one started by this runtime`);
    return found;
  };

  return {
    prepare(bundle, prepareOptions = {}) {
      return prepareBundle(bundle, prepareOptions, { providers, tools, defaultModel });
    },

    async start(preparation, target, input, startOptions = {}) {
      const state = preparedState(preparation);
      const routine = startRoutine(state.root, target);
      // A copy: the caller may reuse its object; what was recorded is what ran.
      const given = input === undefined ? undefined : jsonInput(input);
      const exec = new Execution(`exec-${randomUUID()}`, state, services, now(), undefined);
      options.sessions?.attach(exec.id, startOptions.session ?? `session-${randomUUID()}`, target);
      const port = routine.source.port;
      if (port?.input === true) exec.input = new InputPort(port.limits, routine.source.kind === 'model');
      const outcome = runExecution(exec, { routine, target, input: given, ...(startOptions.meta ? { meta: startOptions.meta } : {}) });
      executions.set(exec.id, { exec, outcome });
      return { executionId: exec.id };
    },

    result(executionId) {
      try {
        return running(executionId).outcome;
      } catch (error) {
        return Promise.reject(error);
      }
    },

    inspect(executionId) {
      const { exec } = running(executionId);
      return { executionId, status: exec.status, calls: exec.records(), publications: exec.redactor.redact([...exec.publications]) };
    },

    journal(executionId) {
      return [...running(executionId).exec.entries];
    },

    send(executionId, message) {
      const { exec } = running(executionId);
      if (!exec.input)
        throw new RuntimeError('no-input-port', `Unexpected message for execution ${executionId}, whose entry routine has no input port`, 'RUN-14');
      if (exec.status !== 'running') throw new RuntimeError('port-closed', `Unexpected message for execution ${executionId}, which has ended`, 'RUN-14');
      const accepted = exec.input.accept(message);
      exec.append({ type: 'message', executionId, id: accepted.id, value: accepted.value, at: exec.at() });
      return { id: accepted.id };
    },

    stop(executionId) {
      running(executionId).exec.input?.stop();
    },

    watch(executionId, listener) {
      return running(executionId).exec.watch(listener);
    },

    cancel(executionId, callId) {
      // The call and everything it runs: its descendants' ids start with its own.
      const targets = [...running(executionId).exec.cancellable].filter(([id]) => id === callId || id.startsWith(`${callId}.`));
      for (const [id, controller] of targets)
        controller.abort(failure('cancelled', `Call ${id} was cancelled by the host${id === callId ? '' : ` (with ${callId})`}`));
      return targets.length > 0;
    },

    async continue(preparation, entries, continueOptions = {}) {
      const state = preparedState(preparation);
      const { header, replayer, messages } = continuationOf(entries, continueOptions, state.bundle.id);
      const routine = startRoutine(state.root, header.target);
      const exec = new Execution(`exec-${randomUUID()}`, state, services, now(), replayer);
      const port = routine.source.port;
      if (port?.input === true) {
        exec.input = new InputPort(port.limits, routine.source.kind === 'model');
        exec.input.continueAfter(messages);
      }
      const previous = options.sessions?.sessionOf(header.executionId);
      options.sessions?.attach(exec.id, previous ?? `session-${randomUUID()}`, header.target);
      const meta = continueOptions.meta ?? header.meta;
      const outcome = runExecution(exec, { routine, target: header.target, input: header.input, continues: header.executionId, ...(meta ? { meta } : {}) });
      executions.set(exec.id, { exec, outcome });
      return { executionId: exec.id };
    },

    replay(bundle, entries, replayOptions = {}) {
      return replayExecution(bundle, entries, replayOptions, { services, defaultModel, startRoutine });
    },

    async close() {
      const pending = sandbox;
      sandbox = undefined;
      if (pending) await (await pending).close();
    },
  };
}

/** RUN-13: an export that several agents share as their entry must be started by agent id. */
export function startRoutine(root: ReturnType<typeof preparedState>['root'], target: StartTarget): RoutineRef {
  const { content } = root;
  let name: string;
  if ('agent' in target) {
    const agent = Object.hasOwn(content.agents, target.agent) ? content.agents[target.agent] : undefined;
    if (!agent) throw new RuntimeError('unknown-agent', `Unexpected agent \`${target.agent}\`, expected one of ${list(Object.keys(content.agents))}`, 'RUN-13');
    name = agent.entry;
  } else if ('export' in target) {
    const entry = content.exports.find((e) => e.name === target.export);
    if (!entry)
      throw new RuntimeError('unknown-export', `Unexpected export \`${target.export}\`, expected one of ${list(content.exports.map((e) => e.name))}`, 'RUN-13');
    const sharing = Object.entries(content.agents)
      .filter(([, a]) => entry.entry && a.entry === entry.name)
      .map(([id]) => id);
    if (sharing.length > 1) {
      throw new RuntimeError(
        'ambiguous-entry',
        `Unexpected start of \`${target.export}\`, which agents ${list(sharing)} share as their entry, expected {agent} naming one of them`,
        'RUN-13',
      );
    }
    const resolved = resolveTarget(root, entry.target);
    if (resolved?.kind !== 'routine') throw new RuntimeError('not-callable', `Unexpected export \`${target.export}\`, expected a model or code routine`);
    return checkCallable(resolved.routine);
  } else {
    throw new RuntimeError('unknown-target', 'Unexpected start target, expected {agent} or {export}');
  }
  const resolved = resolveTarget(root, { kind: 'source', name });
  if (resolved?.kind !== 'routine') throw new RuntimeError('not-callable', `Unexpected entry \`${name}\`, expected a model or code routine`);
  return checkCallable(resolved.routine);
}

function jsonInput(input: unknown): unknown {
  try {
    return JSON.parse(jsonText(input, 'the input')) as unknown;
  } catch (error) {
    throw new RuntimeError('not-json', error instanceof Error ? error.message : String(error), 'RUN-14');
  }
}

function checkCallable(routine: RoutineRef): RoutineRef {
  if (routine.source.kind === 'instructions')
    throw new RuntimeError('not-callable', `Unexpected instructions \`${routine.qualified}\` as a start target, expected a model or code routine`);
  return routine;
}

function list(names: string[]): string {
  return names.length === 0 ? '(none)' : names.map((n) => `\`${n}\``).join(', ');
}
