import { isPlainObject, own } from '../json.js';

/**
 * The native schema profile (SCH-3..SCH-10) translated to JSON Schema 2020-12 for ajv. The
 * translation is strict: anything outside the profile throws, because a bundle built by
 * berrypack never holds such a schema and silently widening one would validate less than the
 * author declared. `integer` means a safe integer (SCH-9), so its bounds are narrowed to
 * ±(2^53 − 1); everything else maps keyword for keyword.
 */
export class NativeSchemaError extends Error {
  override name = 'NativeSchemaError';
}

const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'null', 'array', 'object']);
const COMMON = ['type', 'description', 'const', 'enum', 'oneOf'];
const KEYWORDS: Record<string, ReadonlySet<string>> = {
  untyped: new Set(COMMON),
  string: new Set(COMMON),
  boolean: new Set(COMMON),
  null: new Set(COMMON),
  number: new Set([...COMMON, 'minimum', 'maximum']),
  integer: new Set([...COMMON, 'minimum', 'maximum']),
  array: new Set([...COMMON, 'items', 'minItems', 'maxItems']),
  object: new Set([...COMMON, 'properties', 'required', 'additionalProperties', 'propertyNames', 'maxProperties']),
};
const MAX_DEPTH = 64;
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** Replaces `{"!ref": name}` in const/enum with the address value the name captures. */
export type RefValue = (name: string) => unknown;

export function translateNativeSchema(schema: unknown, refValue: RefValue = noRefs): Record<string, unknown> {
  return translate(schema, '$', 1, refValue);
}

function noRefs(name: string): never {
  throw new NativeSchemaError(`Unexpected \`!ref ${name}\`, expected a schema of a package that captures it`);
}

function translate(schema: unknown, at: string, depth: number, refValue: RefValue): Record<string, unknown> {
  if (depth > MAX_DEPTH) throw new NativeSchemaError(`Unexpected schema nesting deeper than ${MAX_DEPTH} levels at ${at}`);
  if (!isPlainObject(schema)) throw new NativeSchemaError(`Unexpected ${describe(schema)} at ${at}, expected a schema object`);
  const type = own(schema, 'type');
  if (type !== undefined && (typeof type !== 'string' || !TYPES.has(type))) {
    throw new NativeSchemaError(`Unexpected type ${JSON.stringify(type)} at ${at}, expected one of ${[...TYPES].join(', ')}`);
  }
  const allowed = KEYWORDS[type ?? 'untyped']!;
  const out: [string, unknown][] = [];
  for (const key of Object.keys(schema)) {
    if (!allowed.has(key))
      throw new NativeSchemaError(
        `Unexpected \`${key}\` at ${at}, expected one of ${[...allowed].join(', ')}${type === undefined ? ' (type-specific keywords need an explicit type)' : ''}`,
      );
    const value = schema[key];
    out.push([key, keyword(key, value, `${at}.${key}`, depth, refValue, type)]);
  }
  if (type === 'array' && !Object.hasOwn(schema, 'items')) throw new NativeSchemaError(`Missing \`items\` at ${at}, expected one schema for the array's items`);
  const minItems = own<number>(schema, 'minItems');
  const maxItems = own<number>(schema, 'maxItems');
  if (minItems !== undefined && maxItems !== undefined && minItems > maxItems) {
    throw new NativeSchemaError(`Unexpected minItems ${minItems} above maxItems ${maxItems} at ${at}`);
  }
  if (type === 'integer') {
    const minimum = own<number>(schema, 'minimum');
    const maximum = own<number>(schema, 'maximum');
    const bounds = new Map(out);
    bounds.set('minimum', Math.max(minimum ?? -MAX_SAFE, -MAX_SAFE));
    bounds.set('maximum', Math.min(maximum ?? MAX_SAFE, MAX_SAFE));
    return Object.fromEntries(bounds);
  }
  return Object.fromEntries(out);
}

function keyword(key: string, value: unknown, at: string, depth: number, refValue: RefValue, type: string | undefined): unknown {
  switch (key) {
    case 'type':
      return value;
    case 'description':
      if (typeof value !== 'string') throw new NativeSchemaError(`Unexpected ${describe(value)} at ${at}, expected a string`);
      return value;
    case 'const':
      return withRefs(value, refValue);
    case 'enum': {
      if (!Array.isArray(value) || value.length === 0) throw new NativeSchemaError(`Unexpected ${describe(value)} at ${at}, expected a nonempty list`);
      const values = value.map((v) => withRefs(v, refValue));
      const seen = new Set(values.map((v) => JSON.stringify(sortKeys(v))));
      if (seen.size !== values.length) throw new NativeSchemaError(`Unexpected repeated value in enum at ${at}, expected distinct values`);
      return values;
    }
    case 'oneOf':
      if (!Array.isArray(value) || value.length === 0)
        throw new NativeSchemaError(`Unexpected ${describe(value)} at ${at}, expected a nonempty list of schemas`);
      return value.map((branch, i) => translate(branch, `${at}[${i}]`, depth + 1, refValue));
    case 'minimum':
    case 'maximum':
      if (typeof value !== 'number' || !Number.isFinite(value)) throw new NativeSchemaError(`Unexpected ${describe(value)} at ${at}, expected a number`);
      if (type === 'integer' && !Number.isSafeInteger(value))
        throw new NativeSchemaError(`Unexpected ${value} at ${at}, expected a safe integer bound for an integer`);
      return value;
    case 'minItems':
    case 'maxItems':
    case 'maxProperties':
      if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
        throw new NativeSchemaError(`Unexpected ${describe(value)} at ${at}, expected a nonnegative safe integer`);
      return value;
    case 'items':
    case 'propertyNames':
      return translate(value, at, depth + 1, refValue);
    case 'additionalProperties':
      return typeof value === 'boolean' ? value : translate(value, at, depth + 1, refValue);
    case 'properties':
      if (!isPlainObject(value)) throw new NativeSchemaError(`Unexpected ${describe(value)} at ${at}, expected a mapping of property schemas`);
      return Object.fromEntries(Object.keys(value).map((name) => [name, translate(value[name], `${at}[${JSON.stringify(name)}]`, depth + 1, refValue)]));
    case 'required': {
      if (!Array.isArray(value) || value.some((v) => typeof v !== 'string'))
        throw new NativeSchemaError(`Unexpected ${describe(value)} at ${at}, expected a list of property names`);
      if (new Set(value).size !== value.length) throw new NativeSchemaError(`Unexpected repeated name in required at ${at}, expected distinct names`);
      return value;
    }
    default:
      throw new NativeSchemaError(`Unexpected \`${key}\` at ${at}`);
  }
}

/** `{"!ref": name}` (the compiler's marker for a YAML `!ref`) becomes the captured address value. */
function withRefs(value: unknown, refValue: RefValue): unknown {
  if (Array.isArray(value)) return value.map((v) => withRefs(v, refValue));
  if (!isPlainObject(value)) return value;
  const keys = Object.keys(value);
  if (keys.length === 1 && keys[0] === '!ref' && typeof value['!ref'] === 'string') return refValue(value['!ref']);
  return Object.fromEntries(keys.map((k) => [k, withRefs(value[k], refValue)]));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sortKeys(value[k])]),
  );
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return JSON.stringify(value);
  return String(value);
}
