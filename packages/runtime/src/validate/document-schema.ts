import { isPlainObject } from '../json.js';

/** Keywords whose value is one schema, a list of schemas, or a mapping of schemas (JSON Schema 2020-12 and older drafts). */
const ONE = [
  'items',
  'additionalProperties',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'unevaluatedItems',
  'unevaluatedProperties',
  'additionalItems',
  'contentSchema',
];
const LIST = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const MAP = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
const PROTO = '__proto__';
const PROTO_PATTERN = '^__proto__$';

/** The JSON Schema of an independent document (SCH-2), ready for ajv. */
export function documentSchema(document: string): unknown {
  return ajvSafe(JSON.parse(document) as unknown);
}

/**
 * Rewrites the two things ajv gets wrong into equivalent JSON Schema:
 *
 * - an empty `enum` is valid and matches nothing, but ajv refuses to compile it: it becomes
 *   `allOf: [false]` beside the rest of its schema (its `$id`, `$defs` and annotations stay);
 * - ajv silently drops a property schema named `__proto__`: it becomes the pattern property
 *   `^__proto__$`, which applies to exactly that name and counts for `additionalProperties`
 *   and `unevaluatedProperties` the same way.
 */
export function ajvSafe(schema: unknown, depth = 0): unknown {
  if (!isPlainObject(schema) || depth > 256) return schema;
  const out: Record<string, unknown> = Object.fromEntries(Object.keys(schema).map((k) => [k, schema[k]]));
  for (const key of ONE) if (Object.hasOwn(out, key)) out[key] = ajvSafe(out[key], depth + 1);
  for (const key of LIST) if (Array.isArray(out[key])) out[key] = (out[key] as unknown[]).map((s) => ajvSafe(s, depth + 1));
  for (const key of MAP) {
    const map = out[key];
    if (isPlainObject(map)) out[key] = Object.fromEntries(Object.keys(map).map((k) => [k, ajvSafe(map[k], depth + 1)]));
  }
  if (Array.isArray(out['enum']) && out['enum'].length === 0) {
    delete out['enum'];
    out['allOf'] = [...(Array.isArray(out['allOf']) ? out['allOf'] : []), false];
  }
  const properties = out['properties'];
  if (isPlainObject(properties) && Object.hasOwn(properties, PROTO)) {
    const proto = properties[PROTO];
    out['properties'] = Object.fromEntries(
      Object.keys(properties)
        .filter((k) => k !== PROTO)
        .map((k) => [k, properties[k]]),
    );
    const patterns = isPlainObject(out['patternProperties']) ? { ...out['patternProperties'] } : {};
    const existing = patterns[PROTO_PATTERN];
    patterns[PROTO_PATTERN] = existing === undefined ? proto : { allOf: [existing, proto] };
    out['patternProperties'] = patterns;
  }
  return out;
}
