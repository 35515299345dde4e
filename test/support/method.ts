import { checkMethod } from '../../packages/compiler/src/index.js';
import type { CompiledMethod } from '../../packages/runtime/src/index.js';

/** A method/2 document named `test` with `doc`'s members, compiled; its diagnostics are thrown. */
export function compileMethod(doc: Record<string, unknown>, goal = 'Exercise the runner.'): CompiledMethod {
  const checked = checkMethod('/m/test.method.json', JSON.stringify({ format: 'method/2', name: 'test', goal, ...doc }));
  if (!checked.method) throw new Error(checked.diagnostics.map((d) => `${d.code} ${d.message}`).join('\n'));
  return checked.method;
}
