import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createCompiler } from '../../compiler/src/index.js';
import { createRuntime, loadBundle, type Bundle, type Outcome, type Runtime, type RuntimeLimits, type ToolImplementation } from '../src/index.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const GRANTS = ['slow.ok', 'fast.ok', 'fail.now', 'extra.tool'];

let cached: Promise<Bundle> | undefined;
function flow(): Promise<Bundle> {
  cached ??= (async () => {
    const built = createCompiler({}).build(path.join(ROOT, 'fixtures/runtime/flow/plugin.json'));
    if (!built.ok || !built.bundle) throw new Error(JSON.stringify(built.diagnostics));
    return loadBundle(built.bundle.bytes);
  })();
  return cached;
}

const runtimes: Runtime[] = [];
afterAll(async () => {
  for (const runtime of runtimes) await runtime.close();
});

/** Resolves when the test lets it: a call that stays pending until then. */
function gate<T = void>() {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => (open = resolve));
  return { promise, open };
}

interface Setup {
  tools?: Partial<Record<'slow.ok' | 'fast.ok' | 'fail.now' | 'extra.tool', ToolImplementation>>;
  limits?: Partial<RuntimeLimits>;
}

async function start(name: string, input: unknown, setup: Setup = {}) {
  const runtime = createRuntime({
    tools: {
      'slow.ok': async (i) => ({ slow: i }),
      'fast.ok': (i) => ({ fast: i }),
      'fail.now': () => {
        throw new Error('boom');
      },
      'extra.tool': () => 'extra',
      ...setup.tools,
    },
    ...(setup.limits ? { limits: setup.limits } : {}),
  });
  runtimes.push(runtime);
  const preparation = runtime.prepare(await flow(), { grants: GRANTS });
  const { executionId } = await runtime.start(preparation, { export: name }, input);
  return { runtime, executionId, outcome: runtime.result(executionId) };
}

async function run(name: string, input: unknown, setup: Setup = {}): Promise<Outcome> {
  return (await start(name, input, setup)).outcome;
}

const summary = (outcome: Outcome) => outcome.calls.map((c) => `${c.id} ${c.kind} ${c.name} ${c.status}`);

describe('RUN-4: next chains follow to/select/cases/input with PATH semantics; loops are bounded', () => {
  it('continues to itself with the explicit next.input of each transition until a case ends the chain', async () => {
    const outcome = await run('loop.step', { n: 0, limit: 3 });
    expect(outcome).toMatchObject({ status: 'completed', output: { n: 3, state: 'done' } });
    expect(summary(outcome)).toEqual(['c1 entry loop.step completed', 'c1.1 next loop.step completed', 'c1.2 next loop.step completed']);
    expect(outcome.calls.map((c) => c.input)).toEqual([
      { n: 0, limit: 3 },
      { n: 1, limit: 3 },
      { n: 2, limit: 3 },
    ]);
  });

  it('fails a loop that runs past the steps limit', async () => {
    const outcome = await run('loop.step', { n: 0, limit: 1_000_000 }, { limits: { steps: 5 } });
    expect(outcome).toMatchObject({ status: 'failed', error: { code: 'limit-steps' } });
    expect(outcome.calls.filter((c) => c.kind === 'next')).toHaveLength(5);
  });

  it('fails the position on a missing path (PATH-3), and passes null as data', async () => {
    const missing = await run('path.missing', { present: false });
    expect(missing).toMatchObject({ status: 'failed', error: { code: 'missing-value' } });
    expect((missing as { error: { message: string } }).error.message).toBe(
      "Missing value at $.output.value in `next.input` of `path.missing` (resolved up to $['output']), expected it present: a missing value fails the position (null is data)",
    );
    const present = await run('path.missing', { present: true });
    expect(present).toMatchObject({ status: 'completed', output: { via: 'a', received: { value: null } } });
  });
});

describe('RUN-7: a plain call waits for the whole chain; async returns a receipt at once and its outcome later', () => {
  it('resolves a plain call with the output of the called chain', async () => {
    const outcome = await run('wait.caller', { label: 'b' });
    expect(outcome).toMatchObject({ status: 'completed', output: { result: { via: 'b', received: { label: 'b', picked: true } } } });
    expect(summary(outcome)).toEqual(['c1 entry wait.caller completed', 'c1.1 tool route.pick completed', 'c1.1.1 next route.b completed']);
    expect(outcome.calls[1]!.outcome).toEqual({ output: { via: 'b', received: { label: 'b', picked: true } } });
  });

  it('returns the admission receipt before the async call completes, and records the correlated outcome', async () => {
    // slow.ok completes only after the caller went on with its receipt and called fast.ok:
    // a call that waited for its outcome would never get there.
    const receiptUsed = gate();
    const outcome = await run(
      'async.caller',
      { job: 'report' },
      {
        tools: {
          'slow.ok': async (i) => (await receiptUsed.promise, { slow: i }),
          'fast.ok': (i) => (receiptUsed.open(), { fast: i }),
        },
      },
    );
    expect(outcome).toMatchObject({ status: 'completed', output: { receipt: { callId: 'c1.1', executionId: null } } });
    expect(outcome.calls[1]).toMatchObject({
      id: 'c1.1',
      kind: 'tool',
      name: 'slow.ok',
      async: true,
      status: 'completed',
      outcome: { output: { slow: { job: 'report' } } },
    });
    expect(outcome.calls[2]).toMatchObject({ id: 'c1.2', name: 'fast.ok', input: { after: 'c1.1' } });
  });
});

describe('RUN-8: connection limits give a child an allowance of its own, bounded by the caller', () => {
  it('gives the child its own calls limit', async () => {
    const outcome = await run('limited.caller', {});
    expect(outcome.status).toBe('completed');
    expect(summary(outcome)).toEqual([
      'c1 entry limited.caller completed',
      'c1.1 tool limited.child failed',
      'c1.1.1 tool leaf.echo completed',
      'c1.1.2 tool leaf.echo failed',
    ]);
    expect(outcome.calls[3]!.outcome).toMatchObject({ error: { code: 'limit-calls' } });
    expect((outcome as { output: { failed: string } }).output.failed).toContain("beyond the allowance's calls limit");
  });

  it('holds the calls in flight at once to the concurrency limit; more wait for a slot', async () => {
    const inFlight = async (limits: Partial<RuntimeLimits> | undefined) => {
      let now = 0;
      let most = 0;
      let bothStarted: () => void = () => undefined;
      const started = new Promise<void>((resolve) => (bothStarted = resolve));
      // Each call waits until the other has started too (or a generous second has passed), so
      // the count does not depend on how fast the guest's second call reaches the host.
      const tool: ToolImplementation = async (i) => {
        most = Math.max(most, ++now);
        if (now === 2) bothStarted();
        await Promise.race([started, new Promise((resolve) => setTimeout(resolve, 1000))]);
        now--;
        return i;
      };
      const outcome = await run('fan.order', {}, { tools: { 'slow.ok': tool, 'fast.ok': tool }, ...(limits ? { limits } : {}) });
      expect(outcome).toMatchObject({ status: 'completed', output: [{ job: 'first' }, { job: 'second' }] });
      return most;
    };
    expect(await inFlight({ concurrency: 1 })).toBe(1);
    expect(await inFlight(undefined)).toBe(2);
  });

  it('times out a child at its own timeout', async () => {
    const outcome = await run('limited.short', {}, { tools: { 'slow.ok': () => new Promise(() => undefined) } });
    expect(outcome).toMatchObject({ status: 'completed', output: { code: 'timeout' } });
    expect(outcome.calls[1]).toMatchObject({ name: 'slow.ok', status: 'failed', outcome: { error: { code: 'timeout' } } });
  });

  it("bounds a longer connection timeout by the caller's remaining time", async () => {
    const outcome = await run('limited.wait', {}, { tools: { 'slow.ok': () => new Promise(() => undefined) }, limits: { timeoutMs: 300 } });
    expect(outcome).toMatchObject({ status: 'failed', error: { code: 'timeout' } });
  });
});

describe('RUN-9: the default successor input is the local output; a select value matching no label fails', () => {
  it('passes the local output to the selected case when next.input is absent', async () => {
    const outcome = await run('route.pick', { label: 'a' });
    expect(outcome).toMatchObject({ status: 'completed', output: { via: 'a', received: { label: 'a', picked: true } } });
    expect(outcome.calls[1]).toMatchObject({ kind: 'next', name: 'route.a', input: { label: 'a', picked: true } });
  });

  it('ends the chain with the local output on a null case', async () => {
    expect(await run('route.pick', { label: 'stop' })).toMatchObject({ status: 'completed', output: { label: 'stop', picked: true } });
  });

  it('fails on a label no case has, and on a value that is not a string label', async () => {
    const other = await run('route.pick', { label: 'c' });
    expect(other).toMatchObject({ status: 'failed', error: { code: 'no-matching-case' } });
    expect((other as { error: { message: string } }).error.message).toBe(
      'Unexpected "c" at $.output.label in the `next` of `route.pick`, expected one of the labels "a", "b", "stop" (there is no default case)',
    );
    expect(await run('route.pick', { label: 1 })).toMatchObject({ status: 'failed', error: { code: 'no-matching-case' } });
    expect(await run('route.pick', { label: null })).toMatchObject({ status: 'failed', error: { code: 'no-matching-case' } });
  });
});

describe('RUN-10: joined calls keep their order; a failed branch cancels no sibling, observed before the caller finishes', () => {
  it('keeps results in call order whatever order they complete in', async () => {
    const fastDone = gate();
    const outcome = await run(
      'fan.order',
      {},
      {
        tools: {
          'slow.ok': async (i) => (await fastDone.promise, { slow: i }),
          'fast.ok': (i) => (fastDone.open(), { fast: i }),
        },
      },
    );
    expect(outcome).toMatchObject({ status: 'completed', output: [{ slow: { job: 'first' } }, { fast: { job: 'second' } }] });
  });

  it('lets the slow sibling of a failed branch complete before the caller does', async () => {
    const failed = gate();
    const outcome = await run(
      'fan.out',
      {},
      {
        tools: {
          'slow.ok': async (i) => (await failed.promise, { slow: i }),
          'fail.now': () => {
            failed.open();
            throw new Error('boom');
          },
        },
      },
    );
    expect(outcome).toMatchObject({ status: 'completed', output: { caught: true, message: 'Tool `fail.now` failed: boom' } });
    expect(summary(outcome)).toEqual(['c1 entry fan.out completed', 'c1.1 tool slow.ok completed', 'c1.2 tool fail.now failed']);
  });
});

describe('RUN-12: only declared tools are offered; permissions narrow what a catalog discovers', () => {
  it('offers exactly the declared names whatever the preparation grants', async () => {
    expect(await run('offer.probe', {})).toMatchObject({ status: 'completed', output: ['leaf.echo'] });
  });

  it('discovers granted optional tools with catalog: true, and none with permissions: []', async () => {
    expect(await run('catalog.all', {})).toMatchObject({ status: 'completed', output: ['extra.tool', 'fail.now', 'fast.ok', 'leaf.echo', 'slow.ok'] });
    expect(await run('catalog.none', {})).toMatchObject({ status: 'completed', output: ['leaf.echo'] });
  });
});
