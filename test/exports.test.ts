import { describe, expect, it } from 'vitest';

describe('public exports', () => {
  it('@berrypack/compiler exposes exactly this API: the public one, no adapter or CLI internals', async () => {
    const api = await import('../packages/compiler/src/index.js');
    expect(Object.keys(api).sort()).toEqual([
      'BUNDLE_FORMAT',
      'BUNDLE_FORMATS',
      'CODES',
      'LineIndex',
      'METHOD_FORMAT',
      'RawJson',
      'bundleFileName',
      'canonicalJson',
      'checkDirectory',
      'checkMethod',
      'checkSource',
      'codeFrame',
      'createBundle',
      'createCompiler',
      'elementType',
      'findPlaceholders',
      'hasErrors',
      'isMethodFile',
      'loadBundleFile',
      'nodeHost',
      'parseCatalog',
      'readBundle',
      'sortDiagnostics',
      'writeBundle',
      'writeBundleAsync',
    ]);
  });
  it('@berrypack/compiler/internal-adapter is what bundler adapters need beyond it', async () => {
    const api = await import('../packages/compiler/src/internal-adapter.js');
    expect(Object.keys(api).sort()).toEqual([
      'ChangeWatcher',
      'LineIndex',
      'codeFrame',
      'createBuildMemo',
      'createBuildSlot',
      'createCompilers',
      'filterWithoutPatterns',
      'findPackageManifest',
      'handOverBundle',
      'isBerryImport',
      'isBerryManifest',
      'manifestForImport',
      'nodeHost',
      'readNormalized',
      'renderImportModule',
      'renderPackageModule',
      'renderRoutineModule',
      'resolvePluginOptions',
      'routineForFile',
      'subtreeWatchPaths',
    ]);
  });
  it('@berrypack/compiler/internal-cli is what the CLI needs beyond it', async () => {
    const api = await import('../packages/compiler/src/internal-cli.js');
    expect(Object.keys(api).sort()).toEqual([
      'AnswerRecorder',
      'ChangeWatcher',
      'TrackingHost',
      'closest',
      'escapeChar',
      'escapeLine',
      'findPackageManifest',
      'firstDifference',
      'nestingBound',
      'normalizeNewlines',
      'readNormalized',
      'sameAnswersOnDisk',
    ]);
  });
  it('every subpath of the compiler is listed in its exports map, and the adapters and CLI import nothing else', async () => {
    const { readFileSync, readdirSync } = await import('node:fs');
    const manifest = JSON.parse(readFileSync(new URL('../packages/compiler/package.json', import.meta.url), 'utf8')) as { exports: Record<string, unknown> };
    const allowed = new Set(Object.keys(manifest.exports).map((key) => key.replace(/^\./, '@berrypack/compiler')));
    const used = new Set<string>();
    for (const pkg of readdirSync(new URL('../packages/', import.meta.url)).filter((name) => name !== 'compiler')) {
      const dir = new URL(`../packages/${pkg}/src/`, import.meta.url);
      for (const name of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
        if (!name.endsWith('.ts')) continue;
        for (const m of readFileSync(new URL(name, dir), 'utf8').matchAll(/from '(@berrypack\/compiler[^']*)'/g)) used.add(m[1]!);
      }
    }
    expect([...used].filter((s) => !allowed.has(s))).toEqual([]);
    expect(used.has('@berrypack/compiler/internal-adapter')).toBe(true);
  });
  it('no adapter or CLI keeps its own copy of reading a file as the compiler positions it', async () => {
    const { readFileSync, readdirSync } = await import('node:fs');
    const copies: string[] = [];
    for (const pkg of readdirSync(new URL('../packages/', import.meta.url)).filter((name) => name !== 'compiler' && name !== 'runtime')) {
      const dir = new URL(`../packages/${pkg}/src/`, import.meta.url);
      for (const name of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
        if (!name.endsWith('.ts')) continue;
        const text = readFileSync(new URL(name, dir), 'utf8');
        if (/function readNormalized\b|\\r\\n\?\/g/.test(text)) copies.push(`${pkg}/src/${name}`);
      }
    }
    expect(copies).toEqual([]);
  });
  it('@berrypack/compiler/bundle is the runtime seam', async () => {
    const api = await import('../packages/compiler/src/bundle/index.js');
    expect(Object.keys(api).sort()).toEqual([
      'BUNDLE_FORMAT',
      'BUNDLE_FORMATS',
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
      'writeBundleAsync',
    ]);
  });
  it("@berrypack/compiler/authoring is the editors' seam", async () => {
    const api = await import('../packages/compiler/src/authoring/index.js');
    expect(Object.keys(api).sort()).toEqual([
      'ALL_KEYWORDS',
      'FIELDS',
      'FIELD_VALUES',
      'KEYWORDS_BY_TYPE',
      'MANIFEST_FIELD_DOCS',
      'NAME_VALUE_PATHS',
      'NESTED_KEYS',
      'ROUTINE_FIELD_DOCS',
      'SCHEMA_TYPE_VALUES',
      'editorSchemaFiles',
      'entry',
      'namespaceOf',
      'pluginSchema',
      'resolveName',
      'routineReferences',
      'routineSchemas',
      'toJson',
    ]);
  });
  it('berrypack (the CLI package) exposes run', async () => {
    const api = await import('../packages/cli/src/index.js');
    expect(Object.keys(api).sort()).toEqual(['run']);
  });
});
