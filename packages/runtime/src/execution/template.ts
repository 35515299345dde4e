import { evaluatePath, formatPath, type SingularPath } from '@berrypack/compiler/jsonpath';
import { failure } from '../errors.js';
import { renderValue } from '../json.js';
import type { TemplatePart } from '../prepare/prepare.js';
import { callExternal } from './external.js';
import { READERS } from './external-tool.js';
import type { Scope } from './scope.js';

/** A group of template paths read together through one reader call. */
interface ReadGroup {
  reader: string;
  /** Extra input of the read (`key` for session state). */
  key?: string;
  paths: { text: string; parsed: SingularPath }[];
  /** Input and caller data are fixed for the invocation; own calls, state, runtime and user data are read again per decision. */
  fixed: boolean;
}

/**
 * Renders a model routine's runtime templates before a generation decision (RUN-6, TPL-3):
 * single pass, strings as exact text, other values as canonical JSON, never escaped. `$.input`
 * comes from the invocation; every other root is an ordinary recorded `read` call through its
 * granted reader, made before inference. Missing data refuses before inference.
 */
export async function renderTemplate(scope: Scope, parts: readonly TemplatePart[], fixedValues: Map<string, unknown>): Promise<string> {
  const values = new Map<string, unknown>(fixedValues);
  for (const part of parts) {
    if (!('path' in part) || values.has(part.path)) continue;
    if (rootOf(part.parsed) === 'input') values.set(part.path, select(part.path, part.parsed, { input: scope.input }));
  }
  for (const group of groups(parts, values)) {
    const read = await readGroup(scope, group);
    group.paths.forEach((p, i) => {
      values.set(p.text, read[i]);
      if (group.fixed) fixedValues.set(p.text, read[i]);
    });
  }
  return parts.map((part) => ('text' in part ? part.text : renderValue(values.get(part.path)))).join('');
}

function groups(parts: readonly TemplatePart[], known: ReadonlyMap<string, unknown>): ReadGroup[] {
  const byKey = new Map<string, ReadGroup>();
  for (const part of parts) {
    if (!('path' in part) || known.has(part.path)) continue;
    const segments = part.parsed.segments;
    const root = rootOf(part.parsed);
    let group: Omit<ReadGroup, 'paths'>;
    if (root === 'parent') group = { reader: READERS.context, fixed: true };
    else if (root === 'calls') group = { reader: READERS.context, fixed: false };
    else if (root === 'session' && segments[1]?.kind === 'name' && segments[1].name === 'state' && segments[2]?.kind === 'name') {
      group = { reader: READERS.state, key: segments[2].name, fixed: false };
    } else if (root === 'session') group = { reader: READERS.session, fixed: false };
    else if (root === 'runtime') group = { reader: READERS.runtime, fixed: false };
    else if (root === 'user') group = { reader: READERS.user, fixed: false };
    else throw failure('invalid-bundle', `Unexpected template root in ${part.path}, expected $.input, $.parent, $.calls, $.session, $.runtime or $.user`);
    const id = `${group.reader}\n${group.key ?? ''}\n${group.fixed}`;
    let existing = byKey.get(id);
    if (!existing) byKey.set(id, (existing = { ...group, paths: [] }));
    if (!existing.paths.some((p) => p.text === part.path)) existing.paths.push({ text: part.path, parsed: part.parsed });
  }
  return [...byKey.values()];
}

/** One recorded `read` call: its input names the paths, its output is their values in order. */
async function readGroup(scope: Scope, group: ReadGroup): Promise<unknown[]> {
  const { exec } = scope;
  const paths = group.paths.map((p) => p.text);
  // The reading call itself and later admissions are not part of `$.calls` (TPL-3).
  const ownCalls = scope.call.children.map((c) => c.view());
  const input = group.key === undefined ? { paths } : { key: group.key, paths };
  const call = exec.admit(scope.call, 'read', group.reader, input);
  try {
    scope.allowance.takeCall(`read ${group.reader}`);
    let values: unknown[];
    const served = exec.served(call);
    if (served !== undefined) {
      if ('error' in served) throw failure(served.error.code, served.error.message);
      values = served.output as unknown[];
    } else if (group.reader === READERS.context) {
      const data = { parent: scope.parentFrame ?? undefined, calls: ownCalls };
      values = group.paths.map((p) => select(p.text, p.parsed, data));
    } else {
      const root = await callExternal(exec, call, group.reader, input, scope.allowance);
      const data = group.reader === READERS.state ? { session: { state: { [group.key!]: root } } } : { [rootOf(group.paths[0]!.parsed)]: root };
      values = group.paths.map((p) => select(p.text, p.parsed, data));
    }
    exec.settle(call, { output: values });
    return values;
  } catch (error) {
    exec.settle(call, { error });
    throw error;
  }
}

function select(text: string, path: SingularPath, data: unknown): unknown {
  const result = evaluatePath(path, data);
  if (result.found) return result.value;
  throw failure(
    'missing-value',
    `Missing template data at ${text} (resolved up to ${formatPath(path.segments.slice(0, result.at))}), expected it present: missing data refuses before inference`,
  );
}

function rootOf(path: SingularPath): string {
  const first = path.segments[0];
  return first?.kind === 'name' ? first.name : '';
}
