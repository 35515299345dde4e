import { AsyncLocalStorage } from 'node:async_hooks';
import { canonicalJson } from '@berrypack/compiler/bundle';
import { failure, toCallError } from '../errors.js';
import type { ExternalTool } from '../execution/external-tool.js';
import { isPlainObject } from '../json.js';
import type { Preparation } from '../prepare/prepare.js';
import type { ModelBinding, ModelMessage, ModelProvider, Script, ToolDefinition } from '../providers/provider.js';
import { createScriptedProvider } from '../providers/scripted.js';
import type { Runtime, StartTarget } from '../runtime.js';
import { jsonSchemaOf, recordSchema } from './data-values.js';
import type { CompiledMethod, DataType } from '@berrypack/compiler/method-types';
import type { StepTool } from './step-tools.js';

/** What a `do` step's executor receives: its resolved inputs and output definitions, nothing else. */
export interface StepRequest {
  runId: string;
  step: string;
  title?: string;
  /** `each` steps: the item this invocation handles. */
  item?: { index: number; value: unknown };
  /** `do` with `{{alias}}` substituted once. */
  instructions: string;
  /** The `in` aliases and the `each` alias, resolved. A connection is `{connection, type}`; a file `{path, sha256, size, format?}`. */
  inputs: Record<string, unknown>;
  /** The declared `out`: return exactly these names. */
  outputs: Record<string, DataType>;
  /** The declared `changes`: a state with its type and current value (return a complete replacement), or a connection. */
  changes: StepChange[];
  /** The configuration of each connection the step uses (`in` or `changes`), as the host supplied it. */
  environment: Record<string, unknown>;
  /** The step's n-th executor invocation in this run, from 0 (items in list order; re-runs continue counting). */
  sequence: number;
  /**
   * The tools of the connections the step uses (runtime.yaml `environment`): reading tools, and
   * a connection's writing tools only when the step's `changes` lists it. Empty without tool
   * connections.
   */
  tools: StepTool[];
  /** Calls one of `tools` through the runner, which checks, records (as evidence) and refuses what is not offered. */
  callTool(name: string, input: unknown): Promise<unknown>;
  /** The step's next generation decision number in the run, from 0 (a scripted provider answers decision n with response n). */
  decide(): number;
  /** The data folder; file paths in inputs are relative to it. */
  dataDir: string;
}

export type StepChange = { target: string; kind: 'state'; type: DataType; before: unknown } | { target: string; kind: 'environment'; connection: string };

/**
 * `output`: every declared output, no others (a `file` as its text or `{"base64": …}`).
 * `changes`: `{"state.NAME": complete replacement}` for every state the step changes, and
 * optionally `{"environment.NAME": observed evidence}`.
 */
export interface StepResult {
  output?: Record<string, unknown>;
  changes?: Record<string, unknown>;
}

export interface MethodExecutor {
  run(request: StepRequest): Promise<StepResult> | StepResult;
  /**
   * Whether a connection's configuration gives the declared access; a message saying what is
   * missing when not. Without it, any object configures a connection.
   */
  checkAccess?(name: string, connection: CompiledMethod['environment'][string], configuration: unknown): string | undefined;
}

export interface ProviderExecutorOptions {
  /** Default: the embedded scripted provider. */
  provider?: ModelProvider;
  /** Default: `{provider: 'scripted', script}`. */
  binding?: ModelBinding;
  /** Scripted responses by step key: `{"collect": [{"output": {"person_work": …}}, …]}`. */
  script?: Script;
}

/** Generation decisions of one invocation: tool rounds end in the outputs, or the step fails. */
const MAX_DECISIONS = 32;

/**
 * Steps done by a model provider (RUN-6's adapters): an agent loop per invocation. Each
 * generation decision gets the step key as the routine name and the step's next decision
 * number (`decide()`), the instructions, the inputs as the user message (canonical JSON), the
 * step's tools (those of its connections, see StepRequest.tools) and the declared outputs (and
 * `state.NAME` replacements) as the structured output. Tool calls go through the runner
 * (`callTool`), their results (or errors) back to the model, until it answers with the
 * outputs. So the scripted provider answers decision n of step `collect` with
 * `script.collect[n]`: one decision per invocation for a step without tools.
 */
export function createProviderExecutor(options: ProviderExecutorOptions = {}): MethodExecutor {
  const provider = options.provider ?? createScriptedProvider(options.script ? { script: options.script } : {});
  const binding: ModelBinding = options.binding ?? { provider: 'scripted', ...(options.script ? { script: options.script } : {}) };
  return {
    async run(request) {
      const tools: ToolDefinition[] = request.tools.map((t) => ({
        name: t.name,
        ...(t.description === undefined ? {} : { description: t.description }),
        ...(t.input === undefined ? {} : { input: t.input }),
      }));
      const messages: ModelMessage[] = [{ role: 'user', content: canonicalJson({ inputs: request.inputs, ...(request.item ? { item: request.item } : {}) }) }];
      const signal = new AbortController().signal;
      for (let decision = 0; decision < MAX_DECISIONS; decision++) {
        const response = await provider.generate(
          {
            routine: request.step,
            sequence: request.decide(),
            connection: binding,
            instructions: request.instructions,
            settings: {},
            output: outputSchema(request),
            messages: [...messages],
            tools,
          },
          signal,
        );
        if (response.finish === 'length')
          throw failure('incomplete-output', `Unexpected incomplete response for step \`${request.step}\`: the output limit was reached`);
        if (!('toolCalls' in response)) return splitResult(answerOf(response, request.step), request.step);
        if (tools.length === 0)
          throw failure('provider-failed', `Unexpected tool calls for step \`${request.step}\`, expected its outputs (the step uses no connection with tools)`);
        messages.push({ role: 'assistant', ...(response.text === undefined ? {} : { content: response.text }), toolCalls: response.toolCalls });
        for (const call of response.toolCalls) {
          let content: string;
          try {
            content = canonicalJson((await request.callTool(call.name, call.input)) ?? null);
          } catch (error) {
            content = canonicalJson({ error: toCallError(error) });
          }
          messages.push({ role: 'tool', callId: call.id, name: call.name, content });
        }
      }
      throw failure(
        'too-many-decisions',
        `Unexpected ${MAX_DECISIONS} decisions for step \`${request.step}\` without its outputs, expected the agent to finish`,
      );
    },
  };
}

function answerOf(response: { text: string } | { output: unknown }, step: string): unknown {
  if ('output' in response) return response.output;
  try {
    return JSON.parse(response.text) as unknown;
  } catch {
    throw failure('invalid-output', `Unexpected text for step \`${step}\`, expected a JSON object of its outputs`);
  }
}

export interface RoutineExecutorOptions {
  runtime: Runtime;
  preparation: Preparation;
  /** The export or agent to start, for every step or chosen per step. */
  target: StartTarget | ((request: StepRequest) => StartTarget);
}

/** The step whose routine is running, for the tools of createStepTools (async context, so concurrent steps stay apart). */
const currentStep = new AsyncLocalStorage<StepRequest>();

/**
 * External tools for `createRuntime({tools})` that serve a routine executor's steps (a Berry
 * agent from a bundle doing `do` steps): each call goes to the calling step's `callTool`, so
 * the runner offers, refuses, checks and records it exactly as for a provider's agent. Name
 * the tools of the method's connections (runtime.yaml `environment`), and grant them at
 * preparation; outside a step they refuse.
 */
export function createStepTools(names: readonly string[]): Record<string, ExternalTool> {
  return Object.fromEntries(
    names.map((name) => [
      name,
      {
        invoke: (input: unknown) => {
          const request = currentStep.getStore();
          if (!request) throw failure('tool-refused', `Unexpected call of \`${name}\` outside a method step`);
          return request.callTool(name, input);
        },
      },
    ]),
  );
}

/**
 * Steps done by a routine of a prepared bundle: started with `{step, instructions, inputs,
 * item?, outputs, tools}` (tools: the names the step is offered, see createStepTools); its
 * output is the object of outputs (and `state.NAME` replacements), as for a provider.
 */
export function createRoutineExecutor(options: RoutineExecutorOptions): MethodExecutor {
  return {
    async run(request) {
      const target = typeof options.target === 'function' ? options.target(request) : options.target;
      const input = {
        step: request.step,
        instructions: request.instructions,
        inputs: request.inputs,
        ...(request.item ? { item: request.item } : {}),
        outputs: request.outputs,
        tools: request.tools.map((t) => t.name),
      };
      const { executionId, outcome } = await currentStep.run(request, async () => {
        const started = await options.runtime.start(options.preparation, target, input);
        return { executionId: started.executionId, outcome: await options.runtime.result(started.executionId) };
      });
      if (outcome.status === 'failed') throw failure(outcome.error.code, `Step \`${request.step}\` (execution ${executionId}): ${outcome.error.message}`);
      return splitResult(outcome.output, request.step);
    },
  };
}

/** One object with output names and dotted `state.NAME`/`environment.NAME` keys (names never contain dots). */
export function splitResult(value: unknown, step: string): StepResult {
  if (!isPlainObject(value))
    throw failure(
      'invalid-output',
      `Unexpected ${value === null ? 'null' : Array.isArray(value) ? 'list' : typeof value} for step \`${step}\`, expected an object of its outputs`,
    );
  const output: Record<string, unknown> = {};
  const changes: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (key.includes('.')) changes[key] = v;
    else output[key] = v;
  }
  return { output, changes };
}

function outputSchema(request: StepRequest): unknown {
  const extra: Record<string, unknown> = {};
  const required: string[] = [];
  for (const change of request.changes) {
    if (change.kind === 'state') {
      extra[change.target] = jsonSchemaOf(change.type);
      required.push(change.target);
    } else extra[change.target] = { description: 'Observed evidence of the change (optional)' };
  }
  const schema = recordSchema(request.outputs, extra);
  return { ...schema, required: [...(schema['required'] as string[]), ...required] };
}
