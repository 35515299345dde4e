/**
 * What editors need from the compiler (`@berrypack/compiler/authoring`): the rule tables as
 * completion data, the spec's words for each key, the JSON Schemas, where a routine names
 * other routines, and the one resolver.
 */
export { MANIFEST_FIELD_DOCS, ROUTINE_FIELD_DOCS } from './field-docs.js';
export { editorSchemaFiles, pluginSchema, routineSchemas, type RoutineSchemaName } from './json-schemas.js';
export { FIELD_VALUES, NAME_VALUE_PATHS, NESTED_KEYS, SCHEMA_TYPE_VALUES } from './keys.js';
export { routineReferences, type ReferenceRole, type RoutineReference } from './references.js';
export { FIELDS } from '../routine/inventory.js';
export { KEYWORDS_BY_TYPE, ALL_KEYWORDS } from '../schema/keywords.js';
export { resolveName, type NameTable, type ImportAlias, type Resolution, type Target } from '../reference/resolve-name.js';
export { namespaceOf } from '../routine/names.js';
export { entry, toJson, type YMap, type YNode, type YEntry } from '../source/yaml-tree.js';
