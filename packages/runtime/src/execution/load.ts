import { failure } from '../errors.js';
import { isPlainObject } from '../json.js';
import { declaredTools } from '../bundle/declared-tools.js';
import { retainedAddresses, retainedContent } from '../prepare/retained-content.js';
import type { ToolDefinition } from '../providers/provider.js';
import type { Scope } from './scope.js';

/** The name a model calls to read a retained address (spec: "load reads a granted retained address"). */
export const LOAD = 'load';

/**
 * The `load` definition a model routine is offered when its body retains `[[name]]` addresses
 * (or `!ref`s), unless it declares a tool of that name itself. Its input names exactly those
 * addresses: a routine can read what it retains and nothing else.
 */
export function loadDefinition(scope: Scope): ToolDefinition | undefined {
  const names = [...retainedAddresses(scope.routine).keys()].sort();
  if (names.length === 0 || declaredTools(scope.routine).some((t) => t.key === LOAD)) return undefined;
  return {
    name: LOAD,
    description: `Reads the retained content at one of these addresses (a source's captured text, or an import's captured files): ${names.join(', ')}. Reading runs nothing.`,
    input: { type: 'object', properties: { address: { enum: names } }, required: ['address'], additionalProperties: false },
  };
}

/**
 * A model's `load` call: a recorded `read` call named `load` under the caller's allowance,
 * answering the retained content; loading never invokes a routine or widens permissions. A
 * replay serves the recorded outcome.
 */
export async function loadCall(scope: Scope, input: unknown): Promise<unknown> {
  const { exec, routine } = scope;
  const call = exec.admit(scope.call, 'read', LOAD, input, {});
  try {
    const served = exec.served(call);
    let output: unknown;
    if (served !== undefined) {
      if ('error' in served) throw failure(served.error.code, served.error.message);
      output = served.output;
    } else {
      scope.allowance.takeCall(`\`${LOAD}\` from \`${routine.qualified}\``);
      const retained = retainedAddresses(routine);
      const name = isPlainObject(input) && typeof input['address'] === 'string' ? input['address'] : undefined;
      // The body shows the name as written (`[[style]]` for a sibling): a unique final segment matches too.
      const bySegment = [...retained].filter(([n]) => n.split('.').pop() === name);
      const target = name === undefined ? undefined : (retained.get(name) ?? (bySegment.length === 1 ? bySegment[0]![1] : undefined));
      if (target === undefined)
        throw failure(
          'not-granted',
          `Unexpected \`${LOAD}\` of ${name === undefined ? 'no address' : `\`${name}\``}, expected one of the addresses \`${routine.qualified}\` retains: ${[...retained.keys()].sort().join(', ')}`,
        );
      output = retainedContent(routine.pkg, target);
    }
    exec.settle(call, { output });
    return output;
  } catch (error) {
    exec.settle(call, { error });
    throw error;
  }
}
