import { describe, expect, it } from 'vitest';

describe('@berrypack/runtime public exports', () => {
  it('exposes exactly this API', async () => {
    const api = await import('../src/index.js');
    expect(Object.keys(api).sort()).toEqual([
      'BundleLoadError',
      'DEFAULT_LIMITS',
      'MethodError',
      'NativeSchemaError',
      'PreparationError',
      'RuntimeError',
      'SchemaValidator',
      'callRecords',
      'confirmStep',
      'createFileJournal',
      'createMemoryJournal',
      'createMemorySessionStore',
      'createOpenAICompatibleProvider',
      'createProviderExecutor',
      'createProviderJudge',
      'createRoutineExecutor',
      'createRuntime',
      'createScriptedProvider',
      'createSessionStore',
      'createStepTools',
      'estimateTokens',
      'loadBundle',
      'methodStatus',
      'parseJournal',
      'readJournal',
      'readMethodRun',
      'resumeMethod',
      'runMethod',
      'toolConnections',
      'translateNativeSchema',
    ]);
  });

  it('exposes the runtime.yaml reader as ./config and the MCP and module tools as ./mcp', async () => {
    expect(Object.keys(await import('../src/config/index.js')).sort()).toEqual(['MAX_CONFIG_BYTES', 'RUNTIME_YAML', 'parseRuntimeConfig']);
    expect(Object.keys(await import('../src/mcp/index.js')).sort()).toEqual(['createConfiguredTools', 'mcpResultToJson']);
  });

  it('imports no part of the compiler but its bundle, JSONPath and method-types seams', async () => {
    const { readdirSync, readFileSync, statSync } = await import('node:fs');
    const path = await import('node:path');
    const root = new URL('../src/', import.meta.url).pathname;
    const files: string[] = [];
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir)) {
        const file = path.join(dir, name);
        if (statSync(file).isDirectory()) walk(file);
        else if (file.endsWith('.ts')) files.push(file);
      }
    };
    walk(root);
    const specifiers = files.flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/from '(@berrypack\/[^']+)'/g)].map((m) => m[1]));
    expect(new Set(specifiers)).toEqual(new Set(['@berrypack/compiler/bundle', '@berrypack/compiler/jsonpath', '@berrypack/compiler/method-types']));
  });
});
