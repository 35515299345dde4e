import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createCompiler } from '../../compiler/src/index.js';
import { createRuntime, loadBundle, PreparationError, type Bundle, type ModelProvider } from '../src/index.js';
import { parseRuntimeConfig } from '../src/config/index.js';
import type { ModelConfig } from '../src/prepare/bind-models.js';

// Binding model routines to configured models (runtime.yaml `models`/`bind`) in CONTRACTS.md's
// order: bind, provider+id, select, bind.default; refusals list what is asked and configured.
const tmp = mkdtempSync(path.join(os.tmpdir(), 'berrypack-bind-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const ROUTINES: Record<string, string> = {
  'plain.md': 'name: plain\ndescription: Any generation.\nmodel:\n  select:\n    operation: generation',
  'named.md': 'name: named\ndescription: Asks for one model.\nmodel:\n  provider: acme\n  id: big-1',
  'long.md': 'name: long\ndescription: Needs a long context.\nmodel:\n  select:\n    operation: generation\n    context_length:\n      minimum: 100000',
  'sorter.md':
    'name: sorter\ndescription: Classifies.\nmodel:\n  select:\n    operation: classification\noutput:\n  type: boolean\n  description: Whether it is urgent.',
  'tuned.md': 'name: tuned\ndescription: Gives a setting.\nmodel:\n  select:\n    operation: generation\n  max_output_tokens: 5',
};

let bundle: Promise<Bundle> | undefined;
function pkg(): Promise<Bundle> {
  bundle ??= (async () => {
    const dir = path.join(tmp, 'pkg');
    mkdirSync(dir, { recursive: true });
    const exports = Object.keys(ROUTINES).map((f) => f.replace('.md', ''));
    writeFileSync(
      path.join(dir, 'plugin.json'),
      JSON.stringify({
        $schema: 'https://agent-plugins.org/schemas/1.0.0/plugin.schema.json',
        name: 'bind.test',
        version: '1',
        extensions: { 'ai.strawberry.berry': { exports } },
      }),
    );
    for (const [file, front] of Object.entries(ROUTINES)) writeFileSync(path.join(dir, file), `---\n${front}\n---\nAnswer.\n`);
    const built = createCompiler({}).build(path.join(dir, 'plugin.json'));
    if (!built.ok || !built.bundle) throw new Error(JSON.stringify(built.diagnostics));
    return loadBundle(built.bundle.bytes);
  })();
  return bundle;
}

/** A provider that answers with its own name, so a test sees which model a routine got. */
function named(name: string, seen: { apiKey?: string }[] = []): ModelProvider {
  return {
    async generate(request) {
      seen.push({ ...(request.connection.apiKey === undefined ? {} : { apiKey: request.connection.apiKey }) });
      return { text: `${name}:${request.connection.model ?? ''}`, finish: 'stop' };
    },
    async classify() {
      return { output: true, finish: 'stop' };
    },
  };
}

async function bound(models: Record<string, ModelConfig>, bind: Record<string, string> = {}, variables: Record<string, string> = {}) {
  const runtime = createRuntime({ providers: { one: named('one'), two: named('two'), acme: named('acme') } });
  const preparation = runtime.prepare(await pkg(), { configured: { models, bind }, variables });
  const answer = async (name: string) => {
    const { executionId } = await runtime.start(preparation, { export: name });
    const outcome = await runtime.result(executionId);
    return outcome.status === 'completed' ? outcome.output : outcome.error;
  };
  return { runtime, answer };
}

function refusal(run: () => unknown): PreparationError {
  try {
    run();
  } catch (error) {
    if (error instanceof PreparationError) return error;
    throw error;
  }
  throw new Error('not refused');
}

describe('RUN-6, RUN-11: binding model routines to configured models', () => {
  it('takes bind by name, then provider+id, then the first select match in file order, then bind.default', async () => {
    const models: Record<string, ModelConfig> = {
      small: { provider: 'one', model: 's', context_length: 8_000, operations: ['generation', 'classification'] },
      big: { provider: 'acme', model: 'big-1', context_length: 200_000 },
      other: { provider: 'two', model: 'o' },
    };
    const { answer } = await bound(models, { plain: 'other', default: 'small' });
    expect(await answer('plain')).toBe('two:o'); // bind by name wins over select
    expect(await answer('named')).toBe('acme:big-1'); // provider+id
    expect(await answer('long')).toBe('acme:big-1'); // select: only `big` has the context
    expect(await answer('tuned')).toBe('one:s'); // select: the first that satisfies, in file order
  });

  it('falls back to bind.default, and refuses at preparation when nothing fits, listing what is asked and configured', async () => {
    const { answer } = await bound({ small: { provider: 'one', model: 's', context_length: 8_000 }, other: { provider: 'two' } }, { default: 'other' });
    expect(await answer('long')).toBe('two:');
    const runtime = createRuntime({ providers: { one: named('one') } });
    const b = await pkg();
    const refused = refusal(() =>
      runtime.prepare(b, { configured: { models: { small: { provider: 'one', model: 's', context_length: 8_000 } }, bind: { named: 'small' } } }),
    );
    expect(refused.code).toBe('no-model');
    expect(refused.message).toBe(
      'Unexpected model routine `long` that no configured model satisfies: it asks for select {"context_length":{"minimum":100000},"operation":"generation"}; configured: `small` (provider one, model s, operations generation, interactions request/stream, context_length 8000) (add a model to runtime.yaml, or name one in `bind`)',
    );
    // A classification routine needs a model that declares the operation.
    const classifier = refusal(() =>
      runtime.prepare(b, { configured: { models: { small: { provider: 'one', context_length: 200_000 } }, bind: { named: 'small' } } }),
    );
    expect(classifier.message).toMatch(
      /^Unexpected model routine `sorter` that no configured model satisfies: it asks for select \{"operation":"classification"\} with structured output;/,
    );
  });

  it('infers tool and structured-output support from declared supported_parameters', async () => {
    const b = await pkg();
    const runtime = createRuntime({ providers: { one: named('one'), two: named('two') } });
    const models: Record<string, ModelConfig> = {
      plainOnly: { provider: 'one', operations: ['generation', 'classification'], supported_parameters: ['temperature'], context_length: 200_000 },
      structured: { provider: 'two', operations: ['generation', 'classification'], supported_parameters: ['structured_outputs'], context_length: 200_000 },
    };
    const preparation = runtime.prepare(b, { configured: { models, bind: { named: 'plainOnly' } } });
    const { executionId } = await runtime.start(preparation, { export: 'plain' });
    expect(await runtime.result(executionId)).toMatchObject({ output: 'one:' });
    expect(runtime.journal(executionId)[0]).toMatchObject({
      type: 'execution',
      models: { sorter: { provider: 'two', configured: 'structured' }, plain: { provider: 'one', configured: 'plainOnly' } },
    });
  });

  it('checks the routine settings against the chosen model settings schema (draft-07 or 2020-12)', async () => {
    const b = await pkg();
    const runtime = createRuntime({ providers: { one: named('one') } });
    const settings = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { max_output_tokens: { type: 'integer', minimum: 10 } },
      additionalProperties: false,
    };
    const refused = refusal(() =>
      runtime.prepare(b, {
        configured: {
          models: { m: { provider: 'one', operations: ['generation', 'classification'], context_length: 200_000, settings } },
          bind: { named: 'm' },
        },
      }),
    );
    expect(refused.code).toBe('invalid-settings');
    expect(refused.message).toBe('Unexpected model settings of `tuned` for model `m`: $.max_output_tokens must be >= 10');
    const noEffort = { type: 'object', properties: { effort: { enum: ['low', 'high'] } }, additionalProperties: false };
    const strict = refusal(() =>
      runtime.prepare(b, {
        configured: {
          models: { m: { provider: 'one', operations: ['generation', 'classification'], context_length: 200_000, settings: noEffort } },
          bind: { named: 'm' },
        },
      }),
    );
    expect(strict.message).toBe('Unexpected model settings of `tuned` for model `m`: $ must NOT have additional properties');
  });

  it('uses the catalog file: a routine provider+id names a catalog entry, whose settings schema checks the settings', async () => {
    const b = await pkg();
    const runtime = createRuntime({ providers: { one: named('one') } });
    const catalog = [
      {
        id: 'big-1',
        provider: 'acme',
        operations: ['generation'],
        settings: { type: 'object', properties: { max_output_tokens: { type: 'integer', minimum: 1 } } },
      },
      { id: 's-2', provider: 'local', operations: ['generation', 'classification'], settings: { type: 'object', properties: { effort: { enum: ['low'] } } } },
    ];
    // `named` asks for provider acme, id big-1: the configured model serving catalog id big-1 gets it, under another provider.
    const served = runtime.prepare(b, {
      configured: {
        models: { big: { provider: 'one', model: 'big-1', context_length: 200_000 }, small: { provider: 'one', model: 's-2' } },
        bind: { tuned: 'big' },
        catalog,
      },
    });
    const { executionId } = await runtime.start(served, { export: 'named' });
    expect(await runtime.result(executionId)).toMatchObject({ status: 'completed', output: 'one:big-1' });
    expect(runtime.journal(executionId)[0]).toMatchObject({
      models: { named: { provider: 'one', model: 'big-1', configured: 'big' }, sorter: { configured: 'small' } },
    });
    // Without the catalog, nothing serves acme/big-1.
    expect(
      refusal(() => runtime.prepare(b, { configured: { models: { big: { provider: 'one', model: 'big-1' } }, bind: { tuned: 'big', sorter: 'big' } } })).code,
    ).toBe('no-model');
    // tuned gives max_output_tokens; bound to s-2, whose catalog settings declare only effort (no additionalProperties: false).
    const refused = refusal(() =>
      runtime.prepare(b, {
        configured: {
          models: { big: { provider: 'one', model: 'big-1', context_length: 200_000 }, small: { provider: 'one', model: 's-2' } },
          bind: { tuned: 'small' },
          catalog,
        },
      }),
    );
    expect(refused).toMatchObject({
      code: 'invalid-settings',
      message: 'Unexpected model setting `max_output_tokens` of `tuned` for catalog model `s-2` (model `small`), expected one of effort',
    });
    // The catalog's operations stand in for undeclared ones: sorter (classification) selects s-2.
    expect(
      refusal(() =>
        runtime.prepare(b, { configured: { models: { big: { provider: 'one', model: 'big-1', context_length: 200_000 } }, bind: { tuned: 'big' }, catalog } }),
      ).message,
    ).toMatch(/^Unexpected model routine `sorter` that no configured model satisfies/);
  });

  it('takes API keys only from the named variable; a missing one is refused naming it, and keys never reach the journal', async () => {
    const b = await pkg();
    const seen: { apiKey?: string }[] = [];
    const runtime = createRuntime({ providers: { one: named('one', seen) } });
    const models: Record<string, ModelConfig> = {
      m: { provider: 'one', apiKeyEnv: 'BIND_TEST_KEY', operations: ['generation', 'classification'], context_length: 200_000 },
    };
    const missing = refusal(() => runtime.prepare(b, { configured: { models, bind: { named: 'm' } }, variables: { OTHER: 'x' } }));
    expect(missing.code).toBe('missing-api-key');
    expect(missing.message).toMatch(
      /^Missing environment variable BIND_TEST_KEY \(models\.m\.apiKeyEnv\) for `[a-z]+`, expected it set to the API key of model `m`$/,
    );
    expect(refusal(() => runtime.prepare(b, { configured: { models, bind: { named: 'm' } }, variables: { BIND_TEST_KEY: '' } })).code).toBe('missing-api-key');
    const preparation = runtime.prepare(b, { configured: { models, bind: { named: 'm' } }, variables: { BIND_TEST_KEY: 'sk-bind-secret-42' } });
    const { executionId } = await runtime.start(preparation, { export: 'plain' });
    await runtime.result(executionId);
    expect(seen).toEqual([{ apiKey: 'sk-bind-secret-42' }]);
    // A provider that reports no usage gets the runtime's estimate (a token per 4 UTF-8 bytes of the answer's text) in the call's outcome.
    const model = runtime.inspect(executionId).calls.find((c) => c.kind === 'model');
    expect(model?.outcome).toMatchObject({ output: { text: 'one:', usage: { inputTokens: expect.any(Number), outputTokens: 1, estimated: true } } });
    expect(JSON.stringify(runtime.journal(executionId))).not.toContain('sk-bind-secret-42');
    expect(JSON.stringify(preparation)).not.toContain('sk-bind-secret-42');
  });
});

describe('docs/runtime.md', () => {
  const doc = readFileSync(path.join(fileURLToPath(new URL('../../..', import.meta.url)), 'docs/runtime.md'), 'utf8');
  const block = (marker: string): string => {
    const fence = /```[a-z]*\n([\s\S]*?)\n```/g;
    fence.lastIndex = doc.indexOf(`<!-- example: ${marker} -->`);
    expect(fence.lastIndex).toBeGreaterThan(0);
    return fence.exec(doc)![1]!;
  };

  it('the runtime.yaml with every key is read as written', () => {
    const parsed = parseRuntimeConfig(block('runtime-yaml-full'), { directory: tmp });
    expect(parsed.diagnostics).toEqual([]);
    if (!parsed.ok) return;
    expect(Object.keys(parsed.config.models)).toEqual(['local', 'offline']);
    expect(parsed.config.tools['math.sum']).toMatchObject({ tool: 'get-sum', mcp: { command: 'npx', env: { ROOT: 'FILES_ROOT' } } });
    expect(parsed.config.bind).toEqual({ 'notes.classify': 'offline', default: 'local' });
  });

  it('the worked provider example registers a provider that runs a routine', async () => {
    const code = block('provider').replace("import { createRuntime } from '@berrypack/runtime';", '');
    const make = new Function('createRuntime', `${code}\nreturn { reverser, runtime };`) as (c: typeof createRuntime) => {
      reverser: ModelProvider;
      runtime: ReturnType<typeof createRuntime>;
    };
    const { reverser, runtime } = make(createRuntime);
    const preparation = runtime.prepare(await pkg(), {
      configured: {
        models: { mine: { provider: 'reverser', operations: ['generation', 'classification'], context_length: 200_000 } },
        bind: { named: 'mine' },
      },
    });
    const { executionId } = await runtime.start(preparation, { export: 'plain' }, 'berry');
    expect(await runtime.result(executionId)).toMatchObject({ status: 'completed', output: 'yrreb' });
    const asked = await reverser.generate(
      { routine: 'r', sequence: 0, connection: { provider: 'reverser' }, instructions: '', settings: {}, messages: [], tools: [{ name: 'clock.now' }] },
      new AbortController().signal,
    );
    expect(asked).toEqual({ toolCalls: [{ id: 'call-1', name: 'clock.now', input: {} }], finish: 'tool_calls' });
  });
});
