import type { ToolConnection } from '../bundle/content.js';
import { declaredTools } from '../bundle/declared-tools.js';
import { resolveTarget } from '../bundle/routine-table.js';
import { failure, toCallError, CallFailure } from '../errors.js';
import { isPlainObject } from '../json.js';
import { runChain } from './chain.js';
import type { CallState } from './call-state.js';
import { evaluateExpression } from './expression.js';
import { cancellable } from './cancel.js';
import { callExternal } from './external.js';
import { frameOf, isContextual, type Scope } from './scope.js';

export interface AdmittedCall {
  call: CallState;
  /** What the caller awaits: the called chain's output, or at once the receipt of an async call. */
  outcome: Promise<unknown>;
}

/** An admission receipt (RUN-7): admission is not completion. No child execution is created, so `executionId` is null. */
export interface Receipt {
  callId: string;
  executionId: null;
}

const PRESENTATION_KEYS = ['document', 'fallback', 'format', 'title'];

/**
 * A tool call from a routine (RUN-3, RUN-7, RUN-8, RUN-12). Only declared names are offered,
 * plus, with `catalog: true`, the optional external tools still selectable; anything else is
 * refused and recorded. The call is admitted and recorded before it waits for a concurrency
 * slot; a plain call resolves with the whole chain's output, an async one at once with its
 * receipt while the execution keeps its outcome. A failure rejects with `{code, message}`.
 */
export function callTool(scope: Scope, key: string, input: unknown): AdmittedCall {
  const { exec, routine } = scope;
  const declared = (routine.source.kind === 'model' ? declaredTools(routine) : (routine.source.tools ?? [])).find((t) => t.key === key);
  const discovered = declared === undefined && routine.source.catalog === true && scope.optional.has(key) && !isContextual(key);
  const connection: ToolConnection | undefined = declared ?? (discovered ? { key, target: { kind: 'external', name: key }, options: {} } : undefined);
  const resolved = connection === undefined ? undefined : resolveTarget(routine.pkg, connection.target);
  // `$.parent` of a called routine, frozen before this call is admitted; an external tool has none (and
  // each call of a long loop would copy every call before it).
  const frame = resolved?.kind === 'routine' ? frameOf(scope) : undefined;
  const async = connection?.options.async === true;
  const target = resolved?.kind === 'routine' ? resolved.routine : undefined;
  const name = target?.qualified ?? (resolved?.kind === 'external' ? resolved.name : key);
  const call = exec.admit(scope.call, 'tool', name, input, { async, ...(target ? { routine: target } : {}) });

  const run = async (): Promise<unknown> => {
    if (connection === undefined || resolved === undefined || resolved.kind === 'opaque') {
      throw failure(
        'not-offered',
        `Unexpected call to \`${key}\`, which \`${routine.qualified}\` does not declare in \`tools\`: only declared tools are offered (RUN-12)`,
      );
    }
    scope.allowance.takeCall(`\`${key}\` from \`${routine.qualified}\``);
    await scope.semaphore.acquire();
    try {
      const allowance = scope.allowance.child(connection.options.limits);
      present(scope, call, connection, 'accepted', input, undefined);
      if (resolved.kind === 'external') return await callExternal(exec, call, resolved.name, input, allowance);
      return await runChain({
        exec,
        head: call,
        routine: resolved.routine,
        input,
        allowance,
        optional: scope.optional,
        parentFrame: frame ?? frameOf(scope),
        output: connection.options.output === true ? scope.output : undefined,
      });
    } finally {
      scope.semaphore.release();
    }
  };
  const settled = cancellable(exec, call, undefined, run).then(
    (output) => {
      exec.settle(call, { output });
      if (connection) present(scope, call, connection, 'completed', input, output);
      return output;
    },
    (error: unknown) => {
      exec.settle(call, { error });
      const { code, message } = toCallError(error);
      throw error instanceof CallFailure ? error : failure(code, message);
    },
  );
  // Observed by the position (or the execution) in any case; a caller that ignores a
  // failure must not turn it into an unhandled rejection.
  settled.catch(() => undefined);
  if (async) {
    exec.background.add(settled);
    const receipt: Receipt = { callId: call.id, executionId: null };
    return { call, outcome: Promise.resolve(receipt) };
  }
  scope.pending.add(settled);
  return { call, outcome: settled };
}

/**
 * RUN-15: a declared presentation publishes through the caller's output port on admission
 * (`accepted`) or on the successful outcome (`completed`); rejected calls publish nothing. A
 * value that misses a field is refused and recorded, and the call itself is unaffected.
 */
function present(scope: Scope, call: CallState, connection: ToolConnection, when: 'accepted' | 'completed', input: unknown, output: unknown): void {
  const presentation = connection.options.presentation;
  if (presentation === undefined || presentation.when !== when) return;
  const data: Record<string, unknown> = { input, call: { id: call.id, executionId: null }, catalogs: {} };
  if (when === 'completed') data['output'] = output;
  try {
    const value = evaluateExpression(presentation.value, data, scope.routine.pkg, `the presentation of \`${connection.key}\``);
    const keys = isPlainObject(value) ? Object.keys(value).sort() : [];
    if (keys.join() !== PRESENTATION_KEYS.join()) {
      throw failure(
        'invalid-presentation',
        `Unexpected presentation value with ${keys.length === 0 ? 'no fields' : keys.join(', ')}, expected exactly document, fallback, format and title`,
      );
    }
    scope.exec.publish(scope.call, { source: 'presentation', value });
  } catch (error) {
    scope.exec.publish(scope.call, { source: 'presentation', value: undefined, status: 'refused', error: toCallError(error) });
  }
}
