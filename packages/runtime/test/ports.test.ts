import { afterAll, describe, expect, it } from 'vitest';
import { createRuntime, RuntimeError, type ModelProvider, type Runtime } from '../src/index.js';
import { bundleOf } from '../../../test/support/runtime.js';

const runtimes: Runtime[] = [];
afterAll(async () => {
  for (const runtime of runtimes) await runtime.close();
});

function refused(fn: () => unknown): RuntimeError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(RuntimeError);
    return error as RuntimeError;
  }
  throw new Error('expected a refusal');
}

/** Waits (with a generous ceiling) until `ready` holds: no timing is asserted. */
async function until(ready: () => boolean): Promise<void> {
  for (let i = 0; i < 2_000 && !ready(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(ready()).toBe(true);
}

describe('RUN-14: port messages carry JSON, model content is {parts}, and the port limits are enforced', () => {
  /** A model routine with an input port, held open by a provider that answers only when told. */
  async function listening() {
    let answer!: () => void;
    const held = new Promise<void>((resolve) => (answer = resolve));
    const provider: ModelProvider = { generate: async () => (await held, { text: 'heard' }) };
    const runtime = createRuntime({ providers: { held: provider }, tools: { 'weather.get': () => ({}), 'runtime.user.profile.read': () => ({}) } });
    const preparation = runtime.prepare(await bundleOf('runtime/models'), {
      grants: ['weather.get', 'runtime.context.read', 'runtime.user.profile.read', 'runtime.ui.publish'],
      env: { REGION: 'eu', TOKEN: 't' },
      models: { default: { provider: 'held' } },
    });
    const { executionId } = await runtime.start(preparation, { export: 'port.listen' });
    return { runtime, executionId, answer };
  }

  it('accepts model content as {parts} and refuses anything else, naming the problem', async () => {
    const { runtime, executionId, answer } = await listening();
    expect(runtime.send(executionId, { parts: [{ text: 'hello' }] })).toEqual({ id: 'm1' });
    expect(refused(() => runtime.send(executionId, 'hello')).code).toBe('invalid-content');
    expect(refused(() => runtime.send(executionId, '{"parts":[{"text":"hello"}]}')).code).toBe('invalid-content');
    expect(refused(() => runtime.send(executionId, { parts: [{ mediaType: 'image/png', raw: 'data:image/png;base64,AAAA' }] })).message).toContain(
      'canonical base64 (never a data URL)',
    );
    expect(refused(() => runtime.send(executionId, { parts: [{ mediaType: 'image/png', url: 'https://user:pw@example.com/a.png' }] })).message).toContain(
      'HTTPS URL without credentials',
    );
    expect(refused(() => runtime.send(executionId, { parts: [{ data: undefined, mediaType: 1 }] })).code).toMatch(/invalid-content|not-json/);
    answer();
    await runtime.result(executionId);
    expect(refused(() => runtime.send(executionId, { parts: [{ text: 'late' }] })).code).toBe('port-closed');
  });

  it('enforces pending and bytes limits, and refuses values that are not JSON', async () => {
    const { runtime, executionId, answer } = await listening();
    runtime.send(executionId, { parts: [{ text: 'one' }] });
    runtime.send(executionId, { parts: [{ data: { n: 2 } }] });
    expect(refused(() => runtime.send(executionId, { parts: [{ text: 'three' }] }))).toMatchObject({ code: 'port-limit', rule: 'RUN-14' });
    expect(refused(() => runtime.send(executionId, { parts: [{ text: 'x'.repeat(300) }] })).message).toContain('port.limits.bytes');
    expect(refused(() => runtime.send(executionId, { parts: [{ data: Number.NaN }] })).code).toBe('not-json');
    expect(
      runtime
        .journal(executionId)
        .filter((e) => e.type === 'message')
        .map((e) => e.type === 'message' && e.value),
    ).toEqual([{ parts: [{ text: 'one' }] }, { parts: [{ data: { n: 2 } }] }]);
    answer();
    await runtime.result(executionId);
  });

  it('refuses a message for an entry without an input port', async () => {
    const runtime = createRuntime();
    const preparation = runtime.prepare(await bundleOf('runtime/agents'));
    const { executionId } = await runtime.start(preparation, { agent: 'solo' });
    expect(refused(() => runtime.send(executionId, 'hi')).code).toBe('no-input-port');
    await runtime.result(executionId);
  });

  describe('a code resident', () => {
    async function resident() {
      const runtime = createRuntime({ tools: { 'slow.ok': () => ({}), 'fast.ok': () => ({}), 'fail.now': () => ({}) } });
      runtimes.push(runtime);
      const preparation = runtime.prepare(await bundleOf('runtime/flow'), { grants: ['slow.ok', 'fast.ok', 'fail.now'] });
      const { executionId } = await runtime.start(preparation, { export: 'echo.resident' });
      return { runtime, executionId };
    }

    it('receives JSON as sent (a string stays a string) and answers the latest taken message', async () => {
      const { runtime, executionId } = await resident();
      runtime.send(executionId, 'plain text');
      runtime.send(executionId, { a: 1 });
      await until(() => runtime.inspect(executionId).publications.length === 2);
      expect(refused(() => runtime.send(executionId, { long: 'x'.repeat(80) })).code).toBe('port-limit');
      runtime.stop(executionId);
      const outcome = await runtime.result(executionId);
      expect(outcome).toMatchObject({ status: 'completed', output: { count: 2 } });
      expect(outcome.publications).toEqual([
        { id: 'p1', call: 'c1', source: 'emit', value: { echo: 'plain text' }, answers: 'm1' },
        { id: 'p2', call: 'c1', source: 'emit', value: { echo: { a: 1 } }, answers: 'm2' },
      ]);
      expect(outcome.calls.filter((c) => c.kind === 'receive').map((c) => c.outcome)).toEqual([
        { output: { id: 'm1', value: 'plain text' } },
        { output: { id: 'm2', value: { a: 1 } } },
        { output: null },
      ]);
    });

    it('keeps input unconsumed at stop in the history without delivering it', async () => {
      const { runtime, executionId } = await resident();
      runtime.send(executionId, 'never taken');
      runtime.stop(executionId);
      const outcome = await runtime.result(executionId);
      expect(outcome).toMatchObject({ status: 'completed', output: { count: 0 }, publications: [] });
      expect(runtime.journal(executionId).filter((e) => e.type === 'message')).toEqual([expect.objectContaining({ id: 'm1', value: 'never taken' })]);
    });

    it("forwards a child's emitted values through the caller's port with output: true", async () => {
      const runtime = createRuntime({ tools: { 'slow.ok': () => ({}), 'fast.ok': () => ({}), 'fail.now': () => ({}) } });
      runtimes.push(runtime);
      const preparation = runtime.prepare(await bundleOf('runtime/flow'), { grants: ['slow.ok', 'fast.ok', 'fail.now'] });
      const { executionId } = await runtime.start(preparation, { export: 'emit.caller' }, {});
      const outcome = await runtime.result(executionId);
      expect(outcome).toMatchObject({ status: 'completed', output: { done: true } });
      expect(outcome.publications).toEqual([{ id: 'p1', call: 'c1', source: 'emit', value: { said: 'hello' } }]);
    });
  });
});
