import { describe, expect, it } from 'vitest';
import { createRuntime, PreparationError, RuntimeError, type ModelProvider, type Sandbox } from '../src/index.js';
import { bundleOf } from '../../../test/support/runtime.js';

/** Counts every provider and sandbox use: inspecting and preparing must cause none. */
function spies() {
  const used = { provider: 0, sandbox: 0, tools: 0 };
  const provider: ModelProvider = {
    async generate() {
      used.provider++;
      return { text: 'spied' };
    },
  };
  const sandbox: Sandbox = {
    async invoke() {
      used.sandbox++;
      return { ok: true, output: null };
    },
    async close() {},
  };
  const tools = {
    'weather.get': () => {
      used.tools++;
      return { sky: 'clear' };
    },
    'runtime.user.profile.read': () => {
      used.tools++;
      return { name: 'Ada' };
    },
  };
  return { used, provider, sandbox, tools };
}

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

const MODELS_GRANTS = ['weather.get', 'runtime.context.read', 'runtime.user.profile.read', 'runtime.ui.publish'];
const MODELS_ENV = { REGION: 'eu', TOKEN: { value: 'tok-secret-1', secret: true } };

describe('RUN-1: prepare binds exactly and is immutable; start returns an executionId; inspecting never starts work', () => {
  it('prepares without running anything, and the preparation is deeply frozen', async () => {
    const { used, provider, sandbox, tools } = spies();
    const runtime = createRuntime({ providers: { spy: provider }, sandbox, tools });
    const bundle = await bundleOf('runtime/models');
    const preparation = runtime.prepare(bundle, { grants: MODELS_GRANTS, env: MODELS_ENV, models: { default: { provider: 'spy' } } });
    expect(preparation.bundleId).toBe(bundle.id);
    expect(preparation.requirements).toEqual({
      tools: ['weather.get'],
      readers: ['runtime.context.read', 'runtime.user.profile.read'],
      env: ['REGION', 'TOKEN'],
      models: expect.arrayContaining(['ask.weather', 'tpl.child', 'sort.note']),
      ui: true,
    });
    expect(Object.isFrozen(preparation)).toBe(true);
    expect(Object.isFrozen(preparation.grants)).toBe(true);
    expect(() => (preparation.grants as string[]).push('more')).toThrow(TypeError);
    expect(() => {
      (preparation as { bundleId: string }).bundleId = 'other';
    }).toThrow(TypeError);
    expect(used).toEqual({ provider: 0, sandbox: 0, tools: 0 });
  });

  it('returns an executionId at once; inspecting and reading the journal advance nothing', async () => {
    const { used, provider, sandbox, tools } = spies();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const gated: ModelProvider = {
      async generate(request) {
        await gate;
        return provider.generate(request, new AbortController().signal);
      },
    };
    const runtime = createRuntime({ providers: { gated }, sandbox, tools });
    const bundle = await bundleOf('runtime/agents');
    const preparation = runtime.prepare(bundle, { models: { default: { provider: 'gated' } } });
    const { executionId } = await runtime.start(preparation, { agent: 'solo' });
    expect(executionId).toMatch(/^exec-[0-9a-f-]{36}$/);
    const before = runtime.inspect(executionId);
    expect(before.status).toBe('running');
    runtime.inspect(executionId);
    runtime.journal(executionId);
    expect(runtime.inspect(executionId).calls).toEqual(before.calls);
    expect(used.provider).toBe(0);
    release();
    const outcome = await runtime.result(executionId);
    expect(outcome).toMatchObject({ executionId, status: 'completed', output: 'spied' });
    expect(runtime.inspect(executionId).status).toBe('completed');
    expect(used.provider).toBe(1);
    expect(used.sandbox).toBe(0);
  });

  it('refuses an unknown execution id, and a preparation it did not make', async () => {
    const runtime = createRuntime();
    await expect(runtime.result('exec-unknown')).rejects.toMatchObject({ code: 'unknown-execution' });
    expect(() => runtime.inspect('exec-unknown')).toThrow(RuntimeError);
    const fake = Object.freeze({ bundleId: 'x' }) as never;
    await expect(runtime.start(fake, { agent: 'solo' })).rejects.toThrow('expected one returned by runtime.prepare');
    const preparation = runtime.prepare(await bundleOf('runtime/agents'));
    await expect(runtime.start(preparation, { agent: 'solo' }, { when: () => 'now' })).rejects.toMatchObject({ code: 'not-json' });
  });
});

describe('RUN-11: prepare refuses a derived requirement that is not granted, naming it', () => {
  const { tools } = spies();
  const runtime = createRuntime({ tools });
  const refusal = async (options: Parameters<typeof runtime.prepare>[1]) => {
    const bundle = await bundleOf('runtime/models');
    const error = thrown(() => runtime.prepare(bundle, options));
    expect(error).toBeInstanceOf(PreparationError);
    return error as PreparationError;
  };

  it('refuses an external tool that is not granted', async () => {
    const error = await refusal({ grants: MODELS_GRANTS.filter((g) => g !== 'weather.get'), env: MODELS_ENV });
    expect(error).toMatchObject({ code: 'not-granted', requirement: 'weather.get', rule: 'RUN-11' });
    expect(error.message).toBe('Unexpected external tool `weather.get` that is not granted, expected it in `grants` (`ask.weather` calls it)');
  });

  it('refuses a runtime reader that templates need but the preparation does not grant', async () => {
    const error = await refusal({ grants: MODELS_GRANTS.filter((g) => g !== 'runtime.user.profile.read'), env: MODELS_ENV });
    expect(error).toMatchObject({ code: 'not-granted', requirement: 'runtime.user.profile.read' });
    expect(error.message).toContain('`tpl.child`');
  });

  it('refuses a granted reader this runtime does not supply', async () => {
    const bare = createRuntime({ tools: { 'weather.get': () => ({}) } });
    const bundle = await bundleOf('runtime/models');
    const error = thrown(() => bare.prepare(bundle, { grants: MODELS_GRANTS, env: MODELS_ENV })) as PreparationError;
    expect(error).toMatchObject({ code: 'not-granted', requirement: 'runtime.user.profile.read' });
    expect(error.message).toContain('does not supply');
  });

  it('refuses a presentation without runtime.ui.publish', async () => {
    const error = await refusal({ grants: MODELS_GRANTS.filter((g) => g !== 'runtime.ui.publish'), env: MODELS_ENV });
    expect(error).toMatchObject({ code: 'not-granted', requirement: 'runtime.ui.publish' });
  });

  it('refuses a missing env placeholder value', async () => {
    const error = await refusal({ grants: MODELS_GRANTS, env: { REGION: 'eu' } });
    expect(error).toMatchObject({ code: 'missing-env', requirement: 'env.TOKEN' });
    expect(error.message).toBe('Missing value for `{{ env.TOKEN }}`, expected `env.TOKEN` in the preparation (placeholders are rendered now)');
  });

  it('refuses explicit model connections that leave a model routine unbound, or name an unknown provider', async () => {
    const missing = await refusal({ grants: MODELS_GRANTS, env: MODELS_ENV, models: { 'ask.weather': { provider: 'scripted' } } });
    expect(missing.code).toBe('missing-model');
    expect(missing.message).toMatch(/^Unexpected model routine `[a-z.]+` without a model connection/);
    const unknown = await refusal({ grants: MODELS_GRANTS, env: MODELS_ENV, models: { default: { provider: 'nowhere' } } });
    expect(unknown).toMatchObject({ code: 'unknown-provider' });
    expect(unknown.message).toContain('expected one of scripted, openai-compatible');
  });

  it('accepts the same bundle once everything is granted, and omitted models use the host default', async () => {
    const bundle = await bundleOf('runtime/models');
    expect(runtime.prepare(bundle, { grants: MODELS_GRANTS, env: MODELS_ENV }).grants).toEqual([...MODELS_GRANTS].sort());
  });
});

describe('RUN-13: start must name the agent when several agents share an entry', () => {
  it('refuses the shared entry as an export and starts each agent by id', async () => {
    const runtime = createRuntime();
    const bundle = await bundleOf('runtime/agents');
    const preparation = runtime.prepare(bundle);
    const start = runtime.start(preparation, { export: 'greet' });
    await expect(start).rejects.toMatchObject({ code: 'ambiguous-entry', rule: 'RUN-13' });
    await expect(start).rejects.toThrow(
      'Unexpected start of `greet`, which agents `casual`, `formal` share as their entry, expected {agent} naming one of them',
    );
    for (const agent of ['formal', 'casual']) {
      const { executionId } = await runtime.start(preparation, { agent });
      await expect(runtime.result(executionId)).resolves.toMatchObject({ status: 'completed', output: 'Scripted answer from greet.' });
    }
    // An entry only one agent uses may be started as an export.
    const solo = await runtime.start(preparation, { export: 'farewell' });
    await expect(runtime.result(solo.executionId)).resolves.toMatchObject({ status: 'completed' });
  });

  it('refuses unknown agents and exports, listing the known ones', async () => {
    const runtime = createRuntime();
    const preparation = runtime.prepare(await bundleOf('runtime/agents'));
    await expect(runtime.start(preparation, { agent: 'nobody' })).rejects.toThrow('Unexpected agent `nobody`, expected one of `casual`, `formal`, `solo`');
    await expect(runtime.start(preparation, { export: 'nothing' })).rejects.toMatchObject({ code: 'unknown-export' });
  });
});
