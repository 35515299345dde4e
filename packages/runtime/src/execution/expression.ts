import { evaluatePath, formatPath, parseSingularPath, type SingularPath } from '@berrypack/compiler/jsonpath';
import type { ValueExpression } from '../bundle/content.js';
import type { PackageView } from '../bundle/routine-table.js';
import { failure } from '../errors.js';
import { isPlainObject } from '../json.js';
import { addressOf } from '../validate/address.js';

const parsed = new Map<string, SingularPath>();

/** Parses a path once per runtime process; bundles only hold paths the compiler accepted. */
export function pathOf(text: string): SingularPath {
  let path = parsed.get(text);
  if (path === undefined) {
    const result = parseSingularPath(text);
    if (!result.ok) throw failure('invalid-bundle', `Unexpected path ${text}: ${result.error.message}`);
    path = result.path;
    parsed.set(text, path);
  }
  return path;
}

/**
 * Reads a singular path (PATH-3): a missing value fails the position, naming the path and how
 * far it resolved; `null` is data.
 */
export function readPath(text: string, data: unknown, where: string): unknown {
  const path = pathOf(text);
  const result = evaluatePath(path, data);
  if (result.found) return result.value;
  const resolved = formatPath(path.segments.slice(0, result.at));
  throw failure(
    'missing-value',
    `Missing value at ${text} in ${where} (resolved up to ${resolved}), expected it present: a missing value fails the position (null is data)`,
  );
}

/**
 * Evaluates a `next.input` or `presentation.value` expression (NEXT-4) over its data. A
 * `select` whose value is not exactly one of its labels fails (RUN-9: there is no default case).
 */
export function evaluateExpression(expression: ValueExpression, data: unknown, pkg: PackageView, where: string): unknown {
  if ('object' in expression) {
    const object = expression.object;
    return Object.fromEntries(Object.keys(object).map((key) => [key, evaluateExpression(object[key]!, data, pkg, where)]));
  }
  if ('array' in expression) return expression.array.map((item) => evaluateExpression(item, data, pkg, where));
  if ('path' in expression) return readPath(expression.path, data, where);
  if ('literal' in expression) return expression.literal;
  if ('select' in expression) {
    const label = readPath(expression.select, data, where);
    const chosen = selectCase(expression.cases, label, expression.select, where);
    return evaluateExpression(chosen, data, pkg, where);
  }
  if (expression['!ref'] === null) throw failure('invalid-bundle', `Unexpected unresolved \`!ref\` in ${where}`);
  return addressOf(pkg, expression['!ref']);
}

/** The case of an exact string label; anything else (another string, a number, null) fails. */
export function selectCase<T>(cases: Record<string, T>, label: unknown, path: string, where: string): T {
  if (typeof label === 'string' && isPlainObject(cases) && Object.hasOwn(cases, label)) return cases[label]!;
  const labels = Object.keys(cases)
    .map((l) => JSON.stringify(l))
    .join(', ');
  const shown = typeof label === 'string' ? JSON.stringify(label) : `${label === null ? 'null' : typeof label} ${JSON.stringify(label)}`;
  throw failure('no-matching-case', `Unexpected ${shown} at ${path} in ${where}, expected one of the labels ${labels} (there is no default case)`);
}
