import { CallFailure, failure } from '../errors.js';
import { cancellable } from './cancel.js';
import { jsonText } from '../json.js';
import { ExternalSchemas, formatErrors } from '../validate/external-schema.js';
import { withinDeadline, type Allowance } from './allowance.js';
import type { CallState } from './call-state.js';
import type { Execution } from './execution.js';

/** A tool's own schemas, each read by its `$schema` (MCP servers use draft-07 and 2020-12). */
const schemas = new ExternalSchemas();

/**
 * Dispatches an admitted call to an external tool the preparation granted. In a replay the
 * recorded outcome is returned instead: an external effect never happens twice (RUN-5).
 */
export async function callExternal(exec: Execution, call: CallState, name: string, input: unknown, allowance: Allowance): Promise<unknown> {
  const served = exec.served(call);
  if (served !== undefined) {
    if ('error' in served) throw failure(served.error.code, served.error.message);
    return served.output;
  }
  if (!exec.state.grants.has(name)) throw failure('not-granted', `Unexpected call to external tool \`${name}\`, which the preparation does not grant`);
  const tool = exec.services.tools.get(name);
  if (tool === undefined) throw failure('not-granted', `Unexpected call to external tool \`${name}\`, which this runtime does not supply`);
  if (tool.input !== undefined) {
    const check = schemas.validate(tool.input, input);
    if (!check.ok) throw failure('invalid-input', `Unexpected input for tool \`${name}\`: ${formatErrors(check.errors)}`);
  }
  const returned = await withinDeadline(allowance, `tool \`${name}\``, (deadline) =>
    cancellable(exec, call, deadline, async (abort) => {
      try {
        // The signal is made only if the tool reads it (lazy-abort.ts).
        return await tool.invoke(input, {
          executionId: exec.id,
          callId: call.id,
          get signal() {
            return abort.signal;
          },
        });
      } catch (error) {
        if (abort.aborted && abort.reason instanceof CallFailure) throw abort.reason;
        if (error instanceof Error && 'code' in error && typeof error.code === 'string') throw failure(error.code, error.message);
        throw failure('tool-failed', `Tool \`${name}\` failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }),
  );
  // A tool that returns nothing answered with no value: null, since a call's outcome is JSON.
  const output = returned === undefined ? null : returned;
  jsonText(output, `the output of tool \`${name}\``);
  if (tool.output !== undefined) {
    const check = schemas.validate(tool.output, output);
    if (!check.ok) throw failure('invalid-output', `Unexpected output of tool \`${name}\`: ${formatErrors(check.errors)}`);
  }
  return output;
}
