import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createCompiler } from '../../compiler/src/index.js';
import {
  createRuntime,
  createScriptedProvider,
  loadBundle,
  SchemaValidator,
  type Bundle,
  type CallRecord,
  type GenerationRequest,
  type ModelProvider,
  type Outcome,
  type Script,
} from '../src/index.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const GRANTS = ['weather.get', 'runtime.context.read', 'runtime.user.profile.read', 'runtime.ui.publish'];
const ENV = { REGION: 'eu', TOKEN: { value: 'tok-secret-1', secret: true } };

let cached: Promise<Bundle> | undefined;
function models(): Promise<Bundle> {
  cached ??= (async () => {
    const built = createCompiler({}).build(path.join(ROOT, 'fixtures/runtime/models/plugin.json'));
    if (!built.ok || !built.bundle) throw new Error(JSON.stringify(built.diagnostics));
    return loadBundle(built.bundle.bytes);
  })();
  return cached;
}

/** The scripted provider, recording every request it answers. */
function recording(script: Script = {}): ModelProvider & { requests: GenerationRequest[] } {
  const inner = createScriptedProvider({ script });
  const requests: GenerationRequest[] = [];
  return {
    requests,
    generate(request, signal) {
      requests.push(request);
      return inner.generate(request, signal);
    },
    classify: inner.classify!.bind(inner),
  };
}

interface Setup {
  script?: Script;
  provider?: ModelProvider;
}

async function run(target: { export: string } | { agent: string }, input: unknown, setup: Setup = {}) {
  const weather: unknown[] = [];
  const provider = setup.provider ?? recording(setup.script);
  const runtime = createRuntime({
    providers: { test: provider },
    tools: {
      'weather.get': (i) => {
        weather.push(i);
        return { sky: 'clear' };
      },
      'runtime.user.profile.read': () => ({ name: 'Ada', email: 'ada@example.com' }),
    },
  });
  const preparation = runtime.prepare(await models(), { grants: GRANTS, env: ENV, models: { default: { provider: 'test' } } });
  const { executionId } = await runtime.start(preparation, target, input);
  const outcome = await runtime.result(executionId);
  return { outcome, weather, provider, journal: runtime.journal(executionId) };
}

const under = (outcome: Outcome, parent: string): CallRecord[] => outcome.calls.filter((c) => c.parent === parent);
const summary = (calls: CallRecord[]) => calls.map((c) => `${c.id} ${c.kind} ${c.name} ${c.status}`);

describe('RUN-2: input and output are validated exactly against the declared schemas', () => {
  it('refuses input that only coercion would make valid, before any decision', async () => {
    const { outcome } = await run({ export: 'check.strict' }, { n: '1' });
    expect(outcome).toMatchObject({ status: 'failed', error: { code: 'invalid-input', message: 'Unexpected input for `check.strict`: $.n must be integer' } });
    expect(summary(outcome.calls)).toEqual(['c1 entry check.strict failed']);
  });

  it('refuses extra fields where the schema closes the object instead of removing them, and integers beyond safe range', async () => {
    const extra = await run({ export: 'check.strict' }, { n: 1, extra: true });
    expect(extra.outcome).toMatchObject({ status: 'failed', error: { code: 'invalid-input' } });
    expect((extra.outcome as { error: { message: string } }).error.message).toContain('must NOT have additional properties ("extra")');
    const unsafe = await run({ export: 'check.strict' }, { n: 2 ** 53 });
    expect(unsafe.outcome).toMatchObject({
      status: 'failed',
      error: { code: 'invalid-input', message: 'Unexpected input for `check.strict`: $.n must be <= 9007199254740991' },
    });
    const safe = await run({ export: 'check.strict' }, { n: 2 ** 53 - 1 });
    expect(safe.outcome.status).toBe('completed');
  });

  it('keeps extra output fields an open object allows, and adds no defaults', async () => {
    const { outcome } = await run({ export: 'check.strict' }, { n: 1 }, { script: { 'check.strict': [{ output: { value: 3, note: 'kept' } }] } });
    expect(outcome).toMatchObject({ status: 'completed', output: { value: 3, note: 'kept' } });
  });

  it('validates against an independent document schema as written', async () => {
    expect((await run({ export: 'check.document' }, { year: '2024' })).outcome.status).toBe('completed');
    const { outcome } = await run({ export: 'check.document' }, { year: '24' });
    expect(outcome).toMatchObject({
      status: 'failed',
      error: { code: 'invalid-input', message: 'Unexpected input for `check.document`: $.year must match pattern "^[0-9]{4}$"' },
    });
  });

  it('compiles each schema once, on first use, keyed by its digest', () => {
    const validator = new SchemaValidator();
    expect(validator.compilations).toBe(0);
    const schema = { type: 'object', required: ['a'], properties: { a: { type: 'integer' } } };
    expect(validator.validate(schema, { a: 1 }).ok).toBe(true);
    expect(validator.validate({ ...schema }, { a: 1.5 })).toEqual({ ok: false, errors: ['$.a must be integer'] });
    expect(validator.compilations).toBe(1);
    expect(validator.validate({ type: 'string' }, 'x').ok).toBe(true);
    expect(validator.compilations).toBe(2);
  });
});

describe('RUN-6: model routines render templates before inference through pluggable providers', () => {
  const TEMPLATES: Script = {
    'tpl.parent': [{ toolCalls: [{ name: 'tpl.first', input: {} }] }, { toolCalls: [{ name: 'tpl.child', input: { count: 2 } }] }, { text: 'done' }],
    'tpl.first': [{ output: { markup: '<b>"x" & y</b>' } }],
  };

  it('renders strings exactly, other values as canonical JSON, never HTML-escaped, single pass', async () => {
    const provider = recording(TEMPLATES);
    const { outcome } = await run({ export: 'tpl.parent' }, { goal: 'ship {{ $.input.goal }} <now>' }, { provider });
    expect(outcome).toMatchObject({ status: 'completed', output: 'done' });
    const child = provider.requests.find((r) => r.routine === 'tpl.child')!;
    expect(child.instructions).toBe(
      [
        'Goal: ship {{ $.input.goal }} <now>',
        'First: {"markup":"<b>\\"x\\" & y</b>"}',
        'Count: 2',
        'Name: Ada',
        'Region: eu',
        'Token: tok-secret-1',
        'Own first call: runtime.context.read',
        'Literal: {{ $.input.count }}',
        '',
      ].join('\n'),
    );
  });

  it('reads caller, own-call and user data through recorded read calls before the decision', async () => {
    const { outcome } = await run({ export: 'tpl.parent' }, { goal: 'ship' }, { script: TEMPLATES });
    const childCall = outcome.calls.find((c) => c.name === 'tpl.child')!;
    expect(summary(under(outcome, childCall.id))).toEqual([
      `${childCall.id}.1 read runtime.context.read completed`,
      `${childCall.id}.2 read runtime.user.profile.read completed`,
      `${childCall.id}.3 read runtime.context.read completed`,
      `${childCall.id}.4 model tpl.child completed`,
    ]);
    expect(under(outcome, childCall.id)[0]).toMatchObject({
      input: { paths: ['$.parent.input.goal', '$.parent.calls[1].output'] },
      outcome: { output: ['ship', { markup: '<b>"x" & y</b>' }] },
    });
    expect(under(outcome, childCall.id)[1]).toMatchObject({ input: { paths: ['$.user.name'] }, outcome: { output: ['Ada'] } });
  });

  it('refuses missing template data before inference; the caller sees the failure', async () => {
    const script: Script = { 'tpl.parent': [{ toolCalls: [{ name: 'tpl.missing', input: {} }] }, { text: 'recovered' }] };
    const provider = recording(script);
    const { outcome } = await run({ export: 'tpl.parent' }, { goal: 'ship' }, { provider });
    const missing = outcome.calls.find((c) => c.name === 'tpl.missing')!;
    expect(missing).toMatchObject({ status: 'failed', outcome: { error: { code: 'missing-value' } } });
    expect((missing.outcome as { error: { message: string } }).error.message).toMatch(/^Missing template data at \$\.parent\.calls\[3\]\.output/);
    expect(under(outcome, missing.id).map((c) => c.kind)).toEqual(['read']);
    expect(provider.requests.map((r) => r.routine)).toEqual(['tpl.parent', 'tpl.parent']);
    expect(provider.requests[1]!.messages.at(-1)).toMatchObject({
      role: 'tool',
      name: 'tpl.missing',
      content: expect.stringContaining('"code":"missing-value"'),
    });
    expect(outcome).toMatchObject({ status: 'completed', output: 'recovered' });
  });

  it('redacts secret env values from the journal and the outcome', async () => {
    const { outcome, journal } = await run({ export: 'tpl.parent' }, { goal: 'ship' }, { script: TEMPLATES });
    const text = JSON.stringify({ outcome, journal });
    expect(text).not.toContain('tok-secret-1');
    expect(text).toContain('Token: [redacted]');
    expect(journal[0]).toMatchObject({ type: 'execution', env: { REGION: 'eu', TOKEN: '[redacted]' } });
  });

  it('runs the tool calls a response asks for and feeds the results back; the last scripted response repeats', async () => {
    const provider = recording({
      'ask.weather': [{ toolCalls: [{ name: 'weather.get', input: { city: 'Oslo' } }] }, { output: { summary: 'Clear in Oslo' } }],
    });
    const { outcome, weather } = await run({ agent: 'weather' }, { city: 'Oslo' }, { provider });
    expect(outcome).toMatchObject({ status: 'completed', output: { summary: 'Clear in Oslo' } });
    expect(weather).toEqual([{ city: 'Oslo' }]);
    expect(provider.requests[0]!.tools).toEqual([{ name: 'weather.get' }]);
    expect(provider.requests[1]!.messages.slice(1)).toEqual([
      { role: 'assistant', toolCalls: [{ id: 'call-0-0', name: 'weather.get', input: { city: 'Oslo' } }] },
      { role: 'tool', callId: 'call-0-0', name: 'weather.get', content: '{"sky":"clear"}' },
    ]);
    expect(provider.requests[0]!.settings).toEqual({ max_output_tokens: 300 });
  });

  it('synthesizes the first schema-valid value without a script, and a fixed text without an output', async () => {
    expect((await run({ agent: 'weather' }, { city: 'Oslo' })).outcome).toMatchObject({ status: 'completed', output: { summary: '' } });
    expect((await run({ export: 'sort.note' }, { text: 'call Bob' })).outcome).toMatchObject({
      status: 'completed',
      output: { category: 'idea', urgent: false },
    });
    expect((await run({ export: 'offer.none' }, undefined)).outcome).toMatchObject({ status: 'completed', output: 'Scripted answer from offer.none.' });
    const scripted = await run(
      { export: 'sort.note' },
      { text: 'call Bob by Friday' },
      { script: { 'sort.note': [{ output: { category: 'task', urgent: true } }] } },
    );
    expect(scripted.outcome).toMatchObject({ status: 'completed', output: { category: 'task', urgent: true } });
  });

  it('gives an invalid output one correction round, then fails', async () => {
    const provider = recording({ 'check.strict': [{ output: { value: -1 } }, { output: { value: 2 } }] });
    const corrected = await run({ export: 'check.strict' }, { n: 1 }, { provider });
    expect(corrected.outcome).toMatchObject({ status: 'completed', output: { value: 2 } });
    expect(provider.requests[1]!.messages.at(-1)).toEqual({
      role: 'user',
      content: 'Your answer does not match the declared output schema: $.value must be >= 0. Answer again with one JSON value that matches it.',
    });
    const failed = await run({ export: 'check.strict' }, { n: 1 }, { script: { 'check.strict': [{ text: 'not json' }] } });
    expect(failed.outcome).toMatchObject({
      status: 'failed',
      error: { code: 'invalid-output', message: 'Unexpected output of `check.strict` after 1 correction round: $ is text that is not JSON' },
    });
    expect(failed.outcome.calls.filter((c) => c.kind === 'model')).toHaveLength(2);
  });

  it('fails a response that reached the output limit, never returning it as a partial success', async () => {
    const capped: ModelProvider = { generate: async () => ({ text: '{"summary": "Clear in', finish: 'length' }) };
    const { outcome } = await run({ agent: 'weather' }, { city: 'Oslo' }, { provider: capped });
    expect(outcome).toMatchObject({ status: 'failed', error: { code: 'incomplete-output' } });
    expect(outcome).not.toHaveProperty('output');
  });

  it('fails with the provider error when a provider throws', async () => {
    const broken: ModelProvider = { generate: async () => Promise.reject(new Error('connection reset')) };
    const { outcome } = await run({ agent: 'weather' }, { city: 'Oslo' }, { provider: broken });
    expect(outcome).toMatchObject({
      status: 'failed',
      error: { code: 'provider-failed', message: 'Model provider failed for `ask.weather`: connection reset' },
    });
  });
});

describe('RUN-12: only declared tools are offered, whatever the preparation grants (models)', () => {
  it('offers no tools to a routine declaring none and refuses a call to a granted but undeclared tool', async () => {
    const provider = recording({ 'offer.none': [{ toolCalls: [{ name: 'weather.get', input: { city: 'Oslo' } }] }, { text: 'no tools' }] });
    const { outcome, weather } = await run({ export: 'offer.none' }, undefined, { provider });
    expect(provider.requests[0]!.tools).toEqual([]);
    expect(weather).toEqual([]);
    expect(outcome.calls.find((c) => c.kind === 'tool')).toMatchObject({ name: 'weather.get', status: 'failed', outcome: { error: { code: 'not-offered' } } });
    expect(outcome).toMatchObject({ status: 'completed', output: 'no tools' });
  });
});

describe('RUN-15: presentations publish through the caller output port: accepted on admission, completed on success', () => {
  const script: Script = {
    'present.caller': [
      {
        toolCalls: [
          { name: 'present.early', input: { topic: 'tides' } },
          { name: 'present.work', input: { topic: 'tides' } },
          { name: 'present.broken', input: { topic: 'tides' } },
        ],
      },
      { text: 'presented' },
    ],
    'present.work': [{ output: { text: 'Work done' } }],
    'present.early': [{ output: { text: 'early' } }],
    'present.broken': [{ output: { text: 'broken' } }],
  };

  it('publishes both kinds once, refuses a value missing a field without repeating the call', async () => {
    const { outcome, journal } = await run({ export: 'present.caller' }, { topic: 'tides' }, { script });
    expect(outcome.status).toBe('completed');
    const early = outcome.calls.find((c) => c.name === 'present.early')!;
    expect(outcome.publications).toEqual([
      { id: 'p1', call: 'c1', source: 'presentation', value: { format: 'text', document: 'tides', title: early.id, fallback: 'working' } },
      {
        id: expect.any(String),
        call: 'c1',
        source: 'presentation',
        value: { format: 'markdown', document: 'Work done', title: 'Work', fallback: 'Work done' },
      },
      // The model's completed text answer is a message on its output port (spec "Calls and continuations").
      { id: expect.any(String), call: 'c1', source: 'model', kind: 'message', value: { parts: [{ text: 'presented' }] } },
    ]);
    const refused = journal.filter((e) => e.type === 'publication' && e.status === 'refused');
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({ error: { code: 'missing-value' } });
    const broken = outcome.calls.find((c) => c.name === 'present.broken')!;
    expect(broken.status).toBe('completed');
    expect(under(outcome, broken.id).filter((c) => c.kind === 'model')).toHaveLength(1);
  });

  it('publishes nothing for a rejected call', async () => {
    const failing: Script = { ...script, 'present.work': [{ output: { nope: 1 } }] };
    const { outcome } = await run({ export: 'present.caller' }, { topic: 'tides' }, { script: failing });
    expect(outcome.calls.find((c) => c.name === 'present.work')).toMatchObject({ status: 'failed' });
    expect(outcome.publications.map((p) => (p.value as { title: string }).title)).not.toContain('Work');
  });
});
