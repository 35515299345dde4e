import { AGENT_FIELDS, EXTENSION_FIELDS } from '../manifest/check-extension.js';
import { DIGEST, IMPORT_FIELDS, TARGETS } from '../manifest/check-imports.js';
import { MEDIA_TYPE, RESOURCE_FIELDS } from '../manifest/check-resources.js';
import { MAX_PACKAGE_NAME, PACKAGE_NAME } from '../manifest/package-name.js';
import { BERRY_EXTENSION, PLUGIN_SCHEMA } from '../manifest/types.js';
import { COMPACTION_KEYS, CONFIGURE_KEYS, PERMISSION_SELECTIONS, ROUTE_KEYS } from '../routine/check-misc.js';
import { NEXT_KEYS } from '../routine/check-next.js';
import { LIMIT_KEYS as PORT_LIMIT_KEYS, PORT_KEYS } from '../routine/check-port.js';
import { LIMIT_KEYS as TOOL_LIMIT_KEYS, OPTION_KEYS, PRESENTATION_KEYS, WHEN } from '../routine/check-tools.js';
import type { SourceKind } from '../routine/context.js';
import { ALL_FIELDS, FIELDS } from '../routine/inventory.js';
import { INFERRED, INTERACTIONS, OPERATIONS, SELECT_KEYS, STRING_LISTS } from '../routine/model-select.js';
import { DESCRIPTORS, STRUCTURE } from '../routine/model-settings.js';
import { NAME_RE } from '../routine/names.js';
import { KEYWORDS_BY_TYPE, SCHEMA_TYPES, ALL_KEYWORDS } from '../schema/keywords.js';
import { MANIFEST_FIELD_DOCS, ROUTINE_FIELD_DOCS } from './field-docs.js';

/**
 * JSON Schemas (draft-07, the dialect editors support best) for `plugin.json` and routine
 * frontmatter, built from the checker's own tables: field inventories per kind, the keys each
 * structured field accepts, the native schema profile, name and media-type patterns. They say
 * what JSON Schema can say of the rules; package-wide rules (references, cycles, the
 * classification judgments, templates) stay with the checker. Shipped as
 * `@berrypack/compiler/schemas/*.json`; `test/editor-schemas.test.ts` keeps the files equal to this.
 */
type Schema = Record<string, unknown>;

const DRAFT = 'http://json-schema.org/draft-07/schema#';

const safeInteger = (minimum: number): Schema => ({ type: 'integer', minimum, maximum: Number.MAX_SAFE_INTEGER });
const nonempty: Schema = { type: 'string', pattern: '\\S' };
/** NAME-1, NAME-2: 1-128 code points (JSON Schema lengths count code points), `env.` reserved. */
const routineName: Schema = { type: 'string', minLength: 1, maxLength: 128, pattern: NAME_RE.source, not: { pattern: '^env\\.' } };
const closed = (properties: Record<string, Schema>, required: readonly string[] = []): Schema => ({
  type: 'object',
  properties,
  ...(required.length ? { required: [...required] } : {}),
  additionalProperties: false,
});
const keysOf = <K extends string>(keys: readonly K[], value: (key: K) => Schema): Record<string, Schema> => Object.fromEntries(keys.map((k) => [k, value(k)]));

/** SCH-3..SCH-5: the native profile, recursively; type-specific keywords only with their type. */
function nativeSchemaDefinition(): Schema {
  const self = { $ref: '#/definitions/nativeSchema' };
  const shapes: Record<string, Schema> = {
    type: { enum: [...SCHEMA_TYPES] },
    description: { type: 'string' },
    const: {},
    enum: { type: 'array', minItems: 1, uniqueItems: true },
    oneOf: { type: 'array', minItems: 1, items: self },
    minimum: { type: 'number' },
    maximum: { type: 'number' },
    items: self,
    minItems: safeInteger(0),
    maxItems: safeInteger(0),
    properties: { type: 'object', additionalProperties: self },
    required: { type: 'array', items: { type: 'string' }, uniqueItems: true },
    additionalProperties: { oneOf: [{ type: 'boolean' }, self] },
    propertyNames: self,
    maxProperties: safeInteger(0),
  };
  const missing = ALL_KEYWORDS.filter((k) => !(k in shapes));
  if (missing.length) throw new Error(`native keywords without a JSON Schema shape: ${missing.join(', ')}`);
  const byType = SCHEMA_TYPES.map((type) => ({
    if: { properties: { type: { const: type } }, required: ['type'] },
    then: { propertyNames: { enum: [...KEYWORDS_BY_TYPE[type]] }, ...(type === 'array' ? { required: ['items'] } : {}) },
  }));
  return {
    type: 'object',
    properties: keysOf(ALL_KEYWORDS, (k) => shapes[k]!),
    additionalProperties: false,
    allOf: [...byType, { if: { not: { required: ['type'] } }, then: { propertyNames: { enum: [...KEYWORDS_BY_TYPE.untyped] } } }],
  };
}

/** `input` / `output`: the native profile, or an independent document `{document, type?}`. */
const schemaField: Schema = {
  anyOf: [closed({ document: { type: 'string' }, type: { enum: [...SCHEMA_TYPES] } }, ['document']), { $ref: '#/definitions/nativeSchema' }],
};

function modelField(): Schema {
  const select = closed(
    {
      operation: { enum: [...OPERATIONS] },
      interaction: { enum: [...INTERACTIONS] },
      ...keysOf(STRING_LISTS, () => ({ type: 'array', items: { type: 'string' } })),
      context_length: closed({ minimum: safeInteger(1) }, ['minimum']),
      session: closed({ trigger: { const: 'voice_activity' } }, ['trigger']),
    },
    ['operation'],
  );
  const missing = SELECT_KEYS.filter((k) => k !== 'funding' && !(k in (select.properties as Schema)));
  if (missing.length) throw new Error(`select keys without a shape: ${missing.join(', ')}`);
  (select.properties as Schema).funding = {};
  // Every other key of `model` is a setting (checked against a catalog at preparation), except
  // descriptors, `settings`, and keys that belong elsewhere.
  const notSettings = [...new Set([...Object.keys(DESCRIPTORS), ...Object.keys(INFERRED), 'settings', ...SELECT_KEYS, ...ALL_FIELDS])].filter(
    (k) => !STRUCTURE.includes(k),
  );
  return {
    type: 'object',
    description: ROUTINE_FIELD_DOCS.model,
    properties: { select: { ...select, description: ROUTINE_FIELD_DOCS['model.select'] }, provider: nonempty, id: nonempty },
    propertyNames: { not: { enum: notSettings } },
    oneOf: [
      { required: ['select'], not: { anyOf: [{ required: ['provider'] }, { required: ['id'] }] } },
      { required: ['provider', 'id'], not: { required: ['select'] } },
    ],
  };
}

function toolsField(): Schema {
  const options = closed({
    async: { type: 'boolean' },
    output: { type: 'boolean' },
    limits: closed(keysOf(TOOL_LIMIT_KEYS, () => safeInteger(1))),
    presentation: closed({ when: { enum: [...WHEN] }, value: {} }, PRESENTATION_KEYS),
  });
  if (Object.keys(options.properties as Schema).join() !== OPTION_KEYS.join()) throw new Error('tool options drifted');
  return {
    type: 'array',
    items: {
      oneOf: [
        routineName,
        // A singleton mapping `name: options`; `name: async` is the accepted short form (a warning).
        { type: 'object', minProperties: 1, maxProperties: 1, propertyNames: routineName, additionalProperties: { oneOf: [options, { const: 'async' }] } },
      ],
    },
  };
}

function nextField(): Schema {
  const target = { oneOf: [routineName, { type: 'null' }] };
  const map = closed({
    to: target,
    select: { type: 'string' },
    cases: { type: 'object', minProperties: 1, additionalProperties: target },
    input: {},
    output: { type: 'boolean' },
  });
  if (Object.keys(map.properties as Schema).join() !== NEXT_KEYS.join()) throw new Error('next keys drifted');
  return {
    oneOf: [
      routineName,
      {
        ...map,
        oneOf: [
          { required: ['to'], not: { anyOf: [{ required: ['select'] }, { required: ['cases'] }] } },
          { required: ['select', 'cases'], not: { required: ['to'] } },
        ],
      },
    ],
  };
}

function routineFieldSchemas(): Record<string, Schema> {
  const shapes: Record<string, Schema> = {
    name: routineName,
    title: { ...nonempty, maxLength: 256 },
    description: nonempty,
    visibility: { enum: ['public', 'private'] },
    input: schemaField,
    output: schemaField,
    model: modelField(),
    configure: closed({ routine: routineName, fields: { type: 'array', minItems: 1, uniqueItems: true, items: nonempty } }, CONFIGURE_KEYS),
    route: closed({ routine: routineName }, ROUTE_KEYS),
    tools: toolsField(),
    permissions: { oneOf: [{ enum: [...PERMISSION_SELECTIONS] }, { type: 'array', uniqueItems: true, items: routineName }] },
    compaction: closed({ max_tokens: safeInteger(1), keep_turns: safeInteger(0), summary: routineName }, COMPACTION_KEYS.slice(0, 2)),
    port: {
      ...closed(
        {
          input: { type: 'boolean' },
          output: { type: 'boolean' },
          limits: closed(
            keysOf(PORT_LIMIT_KEYS, () => safeInteger(1)),
            PORT_LIMIT_KEYS,
          ),
        },
        PORT_KEYS,
      ),
      not: { properties: { input: { const: false }, output: { const: false } } },
    },
    next: nextField(),
    language: { const: 'javascript' },
    catalog: { type: 'boolean' },
  };
  const missing = ALL_FIELDS.filter((f) => !(f in shapes));
  if (missing.length) throw new Error(`routine fields without a shape: ${missing.join(', ')}`);
  return Object.fromEntries(Object.entries(shapes).map(([k, s]) => [k, { ...s, description: ROUTINE_FIELD_DOCS[k] }]));
}

function kindSchema(kind: SourceKind, shapes: Record<string, Schema>): Schema {
  return {
    ...closed(
      keysOf(FIELDS[kind], (f) => shapes[f]!),
      ['name', 'description', ...(kind === 'model' ? ['model'] : kind === 'code' ? ['language'] : [])],
    ),
    description:
      kind === 'instructions'
        ? 'Instructions: reusable text, no `model` and no `language`.'
        : kind === 'model'
          ? 'A model routine (it has `model`).'
          : 'A code routine (`language: javascript`).',
  };
}

export type RoutineSchemaName = 'routine' | `routine-${SourceKind}`;

/** The frontmatter schemas: one per kind and `routine`, which picks the kind as the checker does (KIND-1). */
export function routineSchemas(): Record<RoutineSchemaName, Schema> {
  const shapes = routineFieldSchemas();
  const definitions = { nativeSchema: nativeSchemaDefinition() };
  const one = (kind: SourceKind): Schema => ({ $schema: DRAFT, title: `berrypack routine frontmatter (${kind})`, ...kindSchema(kind, shapes), definitions });
  return {
    routine: {
      $schema: DRAFT,
      title: 'berrypack routine frontmatter',
      description: 'Exactly one source kind: `model` makes a model routine, `language` a code routine, neither instructions.',
      if: { required: ['model'] },
      then: { $ref: '#/definitions/model' },
      else: { if: { required: ['language'] }, then: { $ref: '#/definitions/code' }, else: { $ref: '#/definitions/instructions' } },
      definitions: { ...definitions, instructions: kindSchema('instructions', shapes), model: kindSchema('model', shapes), code: kindSchema('code', shapes) },
    },
    'routine-instructions': one('instructions'),
    'routine-model': one('model'),
    'routine-code': one('code'),
  };
}

/** `plugin.json`: Agent Plugins 1.0.0 metadata with the `ai.strawberry.berry` extension (MAN-1..7). */
export function pluginSchema(): Schema {
  const doc = (k: string, s: Schema): Schema => ({ ...s, description: MANIFEST_FIELD_DOCS[k] });
  const agent = closed(
    keysOf(AGENT_FIELDS, (k) => (k === 'entry' ? routineName : k === 'title' || k === 'description' ? nonempty : {})),
    ['title', 'description', 'entry'],
  );
  const importItem = {
    ...closed(
      keysOf(IMPORT_FIELDS, (k) =>
        k === 'name' || k === 'export' ? routineName : k === 'root' ? { type: 'string', pattern: DIGEST.source } : { type: 'string', minLength: 1 },
      ),
      ['name'],
    ),
    oneOf: TARGETS.map((t) => ({ required: [t], not: { anyOf: TARGETS.filter((o) => o !== t).map((o) => ({ required: [o] })) } })),
  };
  const resource = closed(
    keysOf(RESOURCE_FIELDS, (k) => (k === 'mimeType' ? { type: 'string', pattern: MEDIA_TYPE.source } : { type: 'string', minLength: 1 })),
    RESOURCE_FIELDS,
  );
  const shapes: Record<string, Schema> = {
    agents: { type: 'object', propertyNames: routineName, additionalProperties: agent },
    exports: { type: 'array', items: routineName },
    sources: { type: 'string' },
    imports: { type: 'array', items: importItem },
    resources: { type: 'array', items: resource },
    interfaces: { type: 'array', items: { type: 'object' } },
    requires: { type: 'array', items: routineName },
    runtime: { type: 'object' },
  };
  // MAN-3 (neither agents nor exports) is a warning: the schema accepts it, as the checker does.
  const extension = closed(keysOf(EXTENSION_FIELDS, (k) => doc(k, shapes[k]!)));
  return {
    $schema: DRAFT,
    title: 'berrypack plugin.json (Agent Plugins 1.0.0 with the ai.strawberry.berry extension)',
    type: 'object',
    required: ['$schema', 'name', 'version', 'extensions'],
    properties: {
      $schema: doc('$schema', { const: PLUGIN_SCHEMA }),
      name: doc('name', { type: 'string', maxLength: MAX_PACKAGE_NAME, pattern: PACKAGE_NAME.source }),
      version: doc('version', { const: '1' }),
      extensions: doc('extensions', { type: 'object', required: [BERRY_EXTENSION], properties: { [BERRY_EXTENSION]: extension } }),
    },
  };
}

/** Every shipped schema by file name (`schemas/<name>`), serialized as it is written. */
export function editorSchemaFiles(): Record<string, string> {
  const files: Record<string, string> = { 'plugin.schema.json': JSON.stringify(pluginSchema(), null, 2) + '\n' };
  for (const [name, schema] of Object.entries(routineSchemas())) files[`${name}.schema.json`] = JSON.stringify(schema, null, 2) + '\n';
  return files;
}
