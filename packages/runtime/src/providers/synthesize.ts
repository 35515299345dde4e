import { isPlainObject, own } from '../json.js';

/**
 * The first schema-valid value the scripted provider answers with when it has no script
 * (docs/runtime.md): the first `const`/`enum` value, the minimal object with its required
 * properties, `""`, `0` (or the nearest bound), `false`, `null`, and arrays of `minItems`
 * items. A distribution (propertyNames with constants, numeric additionalProperties) gives
 * every choice the same probability. `accepts` checks a candidate against the whole schema, so
 * `oneOf`/`anyOf` pick the first branch whose value is really valid.
 */
export function synthesize(schema: unknown, accepts: (value: unknown) => boolean): unknown {
  return value(schema, accepts, 0);
}

function value(schema: unknown, accepts: (value: unknown) => boolean, depth: number): unknown {
  if (depth > 64 || schema === true || schema === undefined || !isPlainObject(schema)) return null;
  if (Object.hasOwn(schema, 'const')) return schema['const'];
  const enumeration = own<unknown[]>(schema, 'enum');
  if (Array.isArray(enumeration) && enumeration.length > 0) return enumeration[0];
  for (const key of ['oneOf', 'anyOf'] as const) {
    const branches = own<unknown[]>(schema, key);
    if (!Array.isArray(branches)) continue;
    const { [key]: _, ...base } = schema;
    for (const branch of branches) {
      const candidate = value(isPlainObject(branch) ? { ...base, ...branch } : branch, accepts, depth + 1);
      if (accepts(candidate)) return candidate;
    }
  }
  const declared = own(schema, 'type');
  const type = Array.isArray(declared) ? declared[0] : declared;
  switch (type) {
    case 'string': {
      const min = own<number>(schema, 'minLength') ?? 0;
      return 'a'.repeat(min);
    }
    case 'number':
    case 'integer':
      return number(schema, type === 'integer');
    case 'boolean':
      return false;
    case 'null':
      return null;
    case 'array': {
      const count = own<number>(schema, 'minItems') ?? 0;
      return Array.from({ length: count }, () => value(own(schema, 'items') ?? {}, () => true, depth + 1));
    }
    case 'object':
      return object(schema, depth);
    default:
      return isPlainObject(own(schema, 'properties')) || Array.isArray(own(schema, 'required')) ? object(schema, depth) : null;
  }
}

function number(schema: Record<string, unknown>, integer: boolean): number {
  const minimum = own<number>(schema, 'minimum');
  const maximum = own<number>(schema, 'maximum');
  let n = 0;
  if (minimum !== undefined && n < minimum) n = integer ? Math.ceil(minimum) : minimum;
  if (maximum !== undefined && n > maximum) n = integer ? Math.floor(maximum) : maximum;
  return n;
}

function object(schema: Record<string, unknown>, depth: number): Record<string, unknown> {
  const labels = choices(own(schema, 'propertyNames'));
  const extra = own(schema, 'additionalProperties');
  if (labels.length > 0 && isPlainObject(extra) && (extra['type'] === 'number' || extra['type'] === 'integer')) {
    return Object.fromEntries(labels.map((label) => [label, 1 / labels.length]));
  }
  const properties = own<Record<string, unknown>>(schema, 'properties') ?? {};
  const required = own<unknown[]>(schema, 'required') ?? [];
  const entries: [string, unknown][] = [];
  for (const name of required) {
    if (typeof name !== 'string') continue;
    const property = Object.hasOwn(properties, name) ? properties[name] : isPlainObject(extra) ? extra : {};
    entries.push([name, value(property, () => true, depth + 1)]);
  }
  return Object.fromEntries(entries);
}

function choices(names: unknown): string[] {
  if (!isPlainObject(names)) return [];
  const enumeration = own<unknown[]>(names, 'enum');
  if (Array.isArray(enumeration)) return enumeration.filter((v): v is string => typeof v === 'string');
  const oneOf = own<unknown[]>(names, 'oneOf');
  if (Array.isArray(oneOf)) return oneOf.flatMap((b) => (isPlainObject(b) && typeof b['const'] === 'string' ? [b['const']] : []));
  return [];
}
