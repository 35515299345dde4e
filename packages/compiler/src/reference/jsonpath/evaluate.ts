import type { EvalResult, SingularPath } from './types.js';

/**
 * Follows `path` into `value`. A member missing from an object, an index outside an array,
 * or either applied to the wrong kind of value is "missing" (PATH-3); `null` is data.
 * Negative indices count from the end. `undefined` is not JSON, so it counts as missing.
 */
export function evaluatePath(path: SingularPath, value: unknown): EvalResult {
  let current = value;
  for (let at = 0; at < path.segments.length; at++) {
    const segment = path.segments[at]!;
    let next: unknown;
    if (segment.kind === 'name') {
      if (typeof current !== 'object' || current === null || Array.isArray(current)) return { found: false, at };
      // Own members only: `constructor` or `__proto__` must not reach the prototype.
      if (!Object.prototype.hasOwnProperty.call(current, segment.name)) return { found: false, at };
      next = (current as Record<string, unknown>)[segment.name];
    } else {
      if (!Array.isArray(current)) return { found: false, at };
      const index = segment.index < 0 ? current.length + segment.index : segment.index;
      if (index < 0 || index >= current.length || !(index in current)) return { found: false, at };
      next = current[index];
    }
    if (next === undefined) return { found: false, at };
    current = next;
  }
  return { found: true, value: current };
}
