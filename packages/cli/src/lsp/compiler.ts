// Everything the language server takes from the compiler, in one place, so a change of the
// compiler's entry points is one edit here.
export { checkMethod, checkSource, createCompiler, isMethodFile, nodeHost, type CompilerHost, type Diagnostic, type RoutineSource } from '@berrypack/compiler';
export { findPackageManifest, normalizeNewlines } from '@berrypack/compiler/internal-cli';
export {
  ALL_KEYWORDS,
  entry,
  FIELD_VALUES,
  FIELDS,
  KEYWORDS_BY_TYPE,
  MANIFEST_FIELD_DOCS,
  NAME_VALUE_PATHS,
  namespaceOf,
  NESTED_KEYS,
  resolveName,
  ROUTINE_FIELD_DOCS,
  routineReferences,
  SCHEMA_TYPE_VALUES,
  toJson,
  type NameTable,
  type RoutineReference,
  type Target,
} from '@berrypack/compiler/authoring';
