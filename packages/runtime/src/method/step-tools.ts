import { failure, toCallError, type CallError } from '../errors.js';
import type { ExternalTool } from '../execution/external-tool.js';
import { formatErrors, SchemaValidator } from '../validate/validator.js';
import { connectionsOf } from './access.js';
import { list } from './data-values.js';
import { isToolConnection } from './environment.js';
import type { CompiledStep } from '@berrypack/compiler/method-types';
import type { RunContext } from './run-context.js';
import type { InvocationRecord } from './run-record.js';

/** A tool a step's agent is offered: one of the tools of a connection the step uses. */
export interface StepTool {
  name: string;
  connection: string;
  /** Whether it writes; offered only when the step's `changes` lists its connection. */
  writes: boolean;
  description?: string;
  /** JSON Schema of its input, checked before the call. */
  input?: unknown;
}

/** One tool call of an invocation, as the runner observed it. */
export interface ToolCallRecord {
  tool: string;
  /** Absent for a name no connection of the step has. */
  connection?: string;
  write: boolean;
  input: unknown;
  /**
   * `running` (in flight); `ok`; `failed` (a read that failed, an invalid input: nothing happened); `refused` (not
   * offered to this step, or blocked); `uncertain` (a write that failed or timed out: it may
   * or may not have happened, so it is never retried blindly).
   */
  status: 'running' | 'ok' | 'failed' | 'refused' | 'uncertain';
  output?: unknown;
  error?: CallError;
}

export interface StepToolbox {
  tools: StepTool[];
  /** The one door to the tools: offered ones only, inputs checked, every call recorded. */
  call(name: string, input: unknown): Promise<unknown>;
  /** The first write whose outcome is unknown, if any. */
  uncertain(): ToolCallRecord | undefined;
}

const validator = new SchemaValidator();

/**
 * The tools of the connections a step uses (runtime.yaml `environment`): every reading tool,
 * and the writing tools of a connection only when the step's `changes` lists it. After an
 * uncertain write, further writes to that connection in the invocation are refused.
 */
export function stepToolbox(context: RunContext, step: CompiledStep, target: InvocationRecord, callPrefix: string): StepToolbox {
  const offered = new Map<string, StepTool>();
  const implementations = new Map<string, ExternalTool>();
  const withheld = new Map<string, string>();
  for (const connection of connectionsOf(step)) {
    const configuration = context.environment[connection];
    if (!isToolConnection(configuration)) continue;
    const changes = step.changes.some((c) => c.root === 'environment' && c.name === connection);
    for (const [name, tool] of Object.entries(configuration.tools)) {
      const writes = (configuration.writes ?? []).includes(name);
      if (writes && !changes) {
        withheld.set(name, connection);
        continue;
      }
      // The access check ran before any step: every tool here is bound.
      implementations.set(name, tool!);
      offered.set(name, {
        name,
        connection,
        writes,
        ...(tool?.description === undefined ? {} : { description: tool.description }),
        ...(tool?.input === undefined ? {} : { input: tool.input }),
      });
    }
  }
  const calls = (): ToolCallRecord[] => (target.calls ??= []);
  // Recorded in the order the calls start (concurrent calls of one decision finish in any order).
  const record = (call: ToolCallRecord): ToolCallRecord => {
    calls().push(call);
    context.persist();
    return call;
  };
  const settle = (call: ToolCallRecord, outcome: Pick<ToolCallRecord, 'status' | 'output' | 'error'>): void => {
    Object.assign(call, outcome);
    context.persist();
  };
  const controller = new AbortController();
  return {
    tools: [...offered.values()],
    uncertain: () => calls().find((c) => c.status === 'uncertain'),
    async call(name, input) {
      const tool = offered.get(name);
      if (!tool) {
        const connection = withheld.get(name);
        const error = connection
          ? failure(
              'tool-refused',
              `Unexpected call of \`${name}\`, which writes to connection \`${connection}\`: step \`${step.key}\` does not list \`environment.${connection}\` in its changes`,
            )
          : failure('unknown-tool', `Unexpected call of \`${name}\`, expected one of ${list([...offered.keys()])}`);
        record({
          tool: name,
          ...(connection === undefined ? {} : { connection }),
          write: connection !== undefined,
          input,
          status: 'refused',
          error: toCallError(error),
        });
        throw error;
      }
      const base = { tool: name, connection: tool.connection, write: tool.writes, input };
      const blocked = tool.writes ? calls().find((c) => c.status === 'uncertain' && c.connection === tool.connection) : undefined;
      if (blocked) {
        const error = failure(
          'write-blocked',
          `Unexpected write \`${name}\` to connection \`${tool.connection}\` after the uncertain write \`${blocked.tool}\`: it may or may not have happened, and writes are never retried blindly`,
        );
        record({ ...base, status: 'refused', error: toCallError(error) });
        throw error;
      }
      const implementation = implementations.get(name)!;
      if (tool.input !== undefined) {
        const check = validator.validate({ document: JSON.stringify(tool.input) }, input);
        if (!check.ok) {
          const error = failure('invalid-input', `Unexpected input for tool \`${name}\`: ${formatErrors(check.errors)}`);
          record({ ...base, status: 'failed', error: toCallError(error) });
          throw error;
        }
      }
      const call = record({ ...base, status: 'running' });
      try {
        const output = await implementation.invoke(input, {
          executionId: context.record.runId,
          callId: `${callPrefix}:${calls().length}`,
          signal: controller.signal,
        });
        if (implementation.output !== undefined) {
          const check = validator.validate({ document: JSON.stringify(implementation.output) }, output);
          if (!check.ok) throw failure('invalid-output', `Unexpected output from tool \`${name}\`: ${formatErrors(check.errors)}`);
        }
        settle(call, { status: 'ok', output: output ?? null });
        return output;
      } catch (error) {
        // A write that failed may have happened anyway (a timeout, a lost answer): uncertain.
        const recorded = toCallError(error);
        settle(call, {
          status: tool.writes ? 'uncertain' : 'failed',
          error: recorded.code === 'internal' ? { code: 'tool-failed', message: recorded.message } : recorded,
        });
        throw error;
      }
    },
  };
}
