import type { Reporter, Span } from '../diagnostics/reporter.js';

export const NAME_PATTERN = /^[a-z][a-z0-9_]*$/;
export const MAX_NAME_LENGTH = 80;
export const RESERVED_NAMES: readonly string[] = ['inputs', 'state', 'environment', 'run'];

/** `table[key]` only for own keys: a document key such as `constructor` must not reach the prototype. */
export function lookup<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

export function isMethodName(name: string): boolean {
  return name.length <= MAX_NAME_LENGTH && NAME_PATTERN.test(name);
}

/**
 * MTH-2 for one name. `reserved` is false for the method's own name and record fields,
 * which never stand where a reference root could. Returns true when the name is usable.
 */
export function checkName(r: Reporter, name: string, span: Span, what: string, reserved = true): boolean {
  if (!isMethodName(name)) {
    const suggestion = suggestName(name);
    r.report(
      'BP6010',
      span,
      `Unexpected ${what} \`${name}\`, expected lowercase letters, digits and underscores, starting with a letter, at most ${MAX_NAME_LENGTH} characters`,
      {
        hint: suggestion !== undefined && suggestion !== name ? `write \`${suggestion}\`` : undefined,
      },
    );
    return false;
  }
  if (reserved && RESERVED_NAMES.includes(name)) {
    r.report('BP6011', span, `Unexpected ${what} \`${name}\`, expected a name other than ${RESERVED_NAMES.map((n) => `\`${n}\``).join(', ')}`, {
      hint: 'these names are reference roots (`inputs.X`, `state.X`, `environment.X`, `run.started_at`); choose another name',
    });
    return false;
  }
  return true;
}

function suggestName(name: string): string | undefined {
  const s = name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/^[^a-z]+/, '')
    .replace(/_+$/, '')
    .slice(0, MAX_NAME_LENGTH);
  return isMethodName(s) ? s : undefined;
}
