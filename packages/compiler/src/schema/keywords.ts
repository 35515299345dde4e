import { closest } from '../hints/did-you-mean.js';

/** The native profile's types (SCH-3) and keyword inventory (SCH-4), in the spec's order. */
export const SCHEMA_TYPES = ['string', 'number', 'integer', 'boolean', 'null', 'array', 'object'] as const;
export type SchemaType = (typeof SCHEMA_TYPES)[number];

export function isSchemaType(value: string): value is SchemaType {
  return (SCHEMA_TYPES as readonly string[]).includes(value);
}

const COMMON = ['type', 'description', 'const', 'enum', 'oneOf'] as const;
const NUMERIC = ['minimum', 'maximum'] as const;
const ARRAY = ['items', 'minItems', 'maxItems'] as const;
const OBJECT = ['properties', 'required', 'additionalProperties', 'propertyNames', 'maxProperties'] as const;

export const KEYWORDS_BY_TYPE: Readonly<Record<SchemaType | 'untyped', readonly string[]>> = {
  untyped: COMMON,
  string: COMMON,
  number: [...COMMON, ...NUMERIC],
  integer: [...COMMON, ...NUMERIC],
  boolean: COMMON,
  null: COMMON,
  array: [...COMMON, ...ARRAY],
  object: [...COMMON, ...OBJECT],
};

export const ALL_KEYWORDS: readonly string[] = [...COMMON, ...NUMERIC, ...ARRAY, ...OBJECT];

/** For a type-specific keyword (SCH-5): the types it belongs to, as the hint names them. */
export function keywordOwner(keyword: string): string | undefined {
  if ((NUMERIC as readonly string[]).includes(keyword)) return '`type: number` or `type: integer`';
  if ((ARRAY as readonly string[]).includes(keyword)) return '`type: array`';
  if ((OBJECT as readonly string[]).includes(keyword)) return '`type: object`';
  return undefined;
}

const OUTSIDE = 'is not in the native profile; use an independent `document:` schema or check it in a code routine';

/** Hints for keywords people bring from JSON Schema or OpenAPI. */
const KNOWN_FOREIGN: Readonly<Record<string, string>> = {
  default: 'no defaults: a declared type validates exactly; implement defaults in a code routine',
  title: 'use `description` (an annotation)',
  examples: 'put examples in `description`',
  example: 'put examples in `description`',
  nullable: "write `oneOf` with a `type: 'null'` branch",
  $ref: 'native schemas have no references: write the schema out, or use an independent `document:` schema (its `$ref`s stay inside it)',
  $defs: 'native schemas have no references: write the schema out, or use an independent `document:` schema',
  definitions: 'native schemas have no references: write the schema out, or use an independent `document:` schema',
  $schema: 'native schemas name no dialect; an independent JSON Schema goes in `document:`',
  $id: 'native schemas have no identifiers; an independent JSON Schema goes in `document:`',
  allOf: 'use `oneOf` (exactly one branch matches), merge the constraints into one schema, or use an independent `document:` schema',
  anyOf: 'use `oneOf` (exactly one branch matches) or an independent `document:` schema',
  document: 'an independent `document:` schema is only allowed as the whole `input` or `output`',
  exclusiveMinimum: 'bounds are inclusive: use `minimum`',
  exclusiveMaximum: 'bounds are inclusive: use `maximum`',
  minProperties: `\`minProperties\` ${OUTSIDE}; list the names that must be present in \`required\``,
};

/** A hint for a keyword outside the inventory of `allowed`, or undefined. */
export function foreignKeywordHint(keyword: string, allowed: readonly string[]): string | undefined {
  const known = KNOWN_FOREIGN[keyword];
  if (known !== undefined) return known;
  const guess = closest(keyword, allowed) ?? closest(keyword, ALL_KEYWORDS);
  if (guess !== undefined) return `did you mean \`${guess}\`?`;
  return `\`${keyword}\` ${OUTSIDE}`;
}

/** Names people write for the native types. */
const TYPE_ALIASES: Readonly<Record<string, SchemaType>> = {
  str: 'string',
  text: 'string',
  int: 'integer',
  long: 'integer',
  float: 'number',
  double: 'number',
  decimal: 'number',
  bool: 'boolean',
  list: 'array',
  tuple: 'array',
  dict: 'object',
  map: 'object',
  record: 'object',
  none: 'null',
  nil: 'null',
};

export function typeNameHint(value: string): string | undefined {
  const guess = TYPE_ALIASES[value.toLowerCase()] ?? closest(value, SCHEMA_TYPES);
  if (guess === undefined) return undefined;
  return `did you mean \`type: ${guess === 'null' ? "'null'" : guess}\`?`;
}
