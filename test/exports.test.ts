import { describe, expect, it } from 'vitest';

describe('public exports', () => {
  it('@berrypack/compiler exposes exactly this API', async () => {
    const api = await import('../packages/compiler/src/index.js');
    expect(Object.keys(api).sort()).toEqual([
      'AnswerRecorder', 'BUNDLE_FORMAT', 'CODES', 'LineIndex', 'METHOD_FORMAT', 'RawJson', 'TrackingHost', 'bundleFileName', 'canonicalJson',
      'checkDirectory', 'checkMethod', 'checkSource', 'codeFrame', 'createBuildMemo', 'createBundle', 'createCompiler', 'elementType', 'escapeChar', 'escapeLine',
      'evaluatePath', 'findPackageManifest', 'findPlaceholders', 'firstDifference', 'formatPath', 'hasErrors', 'isBerryImport',
      'isBerryManifest', 'isMethodFile', 'loadBundleFile', 'manifestForImport', 'nestingBound', 'nodeHost', 'parseCatalog', 'parseSingularPath',
      'readBundle', 'renderImportModule', 'renderPackageModule', 'renderRoutineModule', 'resolvePluginOptions', 'routineForFile',
      'sameAnswersOnDisk', 'sortDiagnostics', 'writeBundle',
    ]);
  });
  it('@berrypack/compiler/bundle is the runtime seam', async () => {
    const api = await import('../packages/compiler/src/bundle/index.js');
    expect(Object.keys(api).sort()).toEqual([
      'BUNDLE_FORMAT',
      'RawJson',
      'bundleFileName',
      'canonicalJson',
      'createBundle',
      'digestOf',
      'isDigest',
      'loadBundleFile',
      'readBundle',
      'sha256Hex',
      'verifyBlob',
      'writeBundle',
    ]);
  });
  it('@berrypack/compiler/authoring is the editors\' seam', async () => {
    const api = await import('../packages/compiler/src/authoring/index.js');
    expect(Object.keys(api).sort()).toEqual([
      'ALL_KEYWORDS', 'FIELDS', 'FIELD_VALUES', 'KEYWORDS_BY_TYPE', 'MANIFEST_FIELD_DOCS', 'NAME_VALUE_PATHS', 'NESTED_KEYS',
      'ROUTINE_FIELD_DOCS', 'SCHEMA_TYPE_VALUES', 'editorSchemaFiles', 'entry', 'namespaceOf', 'pluginSchema', 'resolveName', 'routineReferences',
      'routineSchemas', 'toJson',
    ]);
  });
  it('berrypack (the CLI package) exposes run', async () => {
    const api = await import('../packages/cli/src/index.js');
    expect(Object.keys(api).sort()).toEqual(['run']);
  });
});
