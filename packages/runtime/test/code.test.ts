import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createRuntime, type Bundle, type Runtime, type RuntimeLimits, type Script } from '../src/index.js';
import { bundleOf as buildBundle } from '../../../test/support/runtime.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

const bundles = new Map<string, Promise<Bundle>>();
function bundleOf(fixture: string): Promise<Bundle> {
  let bundle = bundles.get(fixture);
  if (!bundle) {
    bundle = buildBundle(fixture);
    bundles.set(fixture, bundle);
  }
  return bundle;
}

const runtimes: Runtime[] = [];
afterAll(async () => {
  for (const runtime of runtimes) await runtime.close();
});

async function run(
  fixture: string,
  target: { export: string } | { agent: string },
  input: unknown,
  options: { limits?: Partial<RuntimeLimits>; script?: Script; clock?: () => number } = {},
) {
  const runtime = createRuntime({
    tools: { 'slow.ok': (i) => ({ slow: i }), 'fast.ok': (i) => ({ fast: i }), 'fail.now': () => Promise.reject(new Error('boom')) },
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
  });
  runtimes.push(runtime);
  const grants = fixture === 'runtime/flow' ? ['slow.ok', 'fast.ok', 'fail.now'] : [];
  const preparation = runtime.prepare(await bundleOf(fixture), {
    grants,
    ...(options.script ? { models: { default: { provider: 'scripted', script: options.script } } } : {}),
  });
  const { executionId } = await runtime.start(preparation, target, input);
  return { outcome: await runtime.result(executionId), journal: runtime.journal(executionId) };
}

describe('RUN-3: code routines run with no ambient authority, a recorded clock and seed, and exactly the declared tools', () => {
  it('sees no host globals, and Date and Math.random fixed per invocation and recorded', async () => {
    const epoch = Date.UTC(2030, 0, 2, 3, 4, 5);
    const first = await run('runtime/flow', { export: 'probe.host' }, {}, { clock: () => epoch });
    const second = await run('runtime/flow', { export: 'probe.host' }, {}, { clock: () => epoch });
    expect(first.outcome).toMatchObject({ status: 'completed', output: { present: [], now: epoch } });
    const call = first.journal.find((e) => e.type === 'call' && e.id === 'c1');
    expect(call).toMatchObject({ clock: { epochMs: epoch, seed: expect.any(Number) } });
    expect(second.outcome).toMatchObject({ output: (first.outcome as { output: unknown }).output });
    const random = (first.outcome as { output: { random: number } }).output.random;
    expect(random).toBeGreaterThanOrEqual(0);
    expect(random).toBeLessThan(1);
  });

  it('runs a routine body with the modules it imports (the notebook rank and its score module)', async () => {
    const script = JSON.parse(readFileSync(path.join(ROOT, 'fixtures/runtime/scripts/notebook.json'), 'utf8')) as Script;
    const { outcome } = await run(
      'notebook',
      { export: 'search.answer' },
      { question: 'milk?', notes: ['buy oat milk', 'call mom', 'milk the goat'] },
      { script },
    );
    expect(outcome).toMatchObject({ status: 'completed', output: { answer: 'Notes 0 and 2 mention milk.', cited: [0, 2] } });
    expect(outcome.calls.find((c) => c.name === 'search.rank')).toMatchObject({
      status: 'completed',
      outcome: {
        output: [
          { index: 0, score: 1 },
          { index: 2, score: 1 },
        ],
      },
    });
  });

  it('runs a model routine followed by a code routine (notes.compose → notes.count)', async () => {
    const script = JSON.parse(readFileSync(path.join(ROOT, 'fixtures/runtime/scripts/notebook.json'), 'utf8')) as Script;
    const { outcome } = await run('notebook', { export: 'notes.compose' }, { text: 'buy oat milk' }, { script });
    expect(outcome).toMatchObject({ status: 'completed', output: { words: 7, tags: 1 } });
    expect(outcome.calls.map((c) => `${c.kind} ${c.name}`)).toEqual(['entry notes.compose', 'model notes.compose', 'next notes.count']);
    expect(outcome.calls[2]!.input).toEqual({ note: { title: 'Oat milk', body: 'Buy oat milk on the way home.', tags: ['shopping'] }, source: 'compose' });
  });

  it('rejects a failed tool call in the code and records it', async () => {
    const { outcome } = await run('runtime/flow', { export: 'fan.out' }, {});
    expect(outcome).toMatchObject({ status: 'completed', output: { caught: true, message: 'Tool `fail.now` failed: boom' } });
    expect(outcome.calls.find((c) => c.name === 'fail.now')).toMatchObject({
      status: 'failed',
      outcome: { error: { code: 'tool-failed', message: 'Tool `fail.now` failed: boom' } },
    });
  });

  it("fails the routine with the code's own error, and stops code that never returns", async () => {
    const thrown = await run('runtime/flow', { export: 'probe.throws' }, {});
    expect(thrown.outcome).toMatchObject({ status: 'failed', error: { code: 'code-error' } });
    expect((thrown.outcome as { error: { message: string } }).error.message).toContain('deliberate failure');
    const spin = await run('runtime/flow', { export: 'probe.spin' }, {}, { limits: { cpuMs: 200, timeoutMs: 2_000 } });
    expect(spin.outcome.status).toBe('failed');
    expect(['limit-cpu', 'timeout']).toContain((spin.outcome as { error: { code: string } }).error.code);
  });
});
