import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createCompiler } from '../../compiler/src/index.js';
import { createRuntime, loadBundle, type Bundle, type Outcome } from '../src/index.js';
import { createSandbox, DEFAULT_SANDBOX_LIMITS, type SandboxHost, type SandboxInvocation, type SandboxResult } from '../src/sandbox/index.js';
import type { WorkerPool } from '../src/sandbox/pool.js';
import { liveInPool } from './support/sandbox-pool.js';

/**
 * `limits.memoryBytes` bounds an execution, not only each of its sandboxes: the live VMs of one
 * memory budget (the runtime's key is the execution id) share it (docs/runtime-sandbox.md,
 * "Limits"). A fresh VM's linear memory is about 1.3 MiB, so the sizes below leave room for it.
 */
const MiB = 1024 * 1024;
const limits = { ...DEFAULT_SANDBOX_LIMITS, cpuMs: 2_000, timeoutMs: 10_000, memoryBytes: 16 * MiB };
const sandbox = createSandbox({ workers: 2 }) as unknown as WorkerPool;
const root = mkdtempSync(path.join(tmpdir(), 'berrypack-memory-budget-'));

afterAll(async () => {
  await sandbox.close();
  rmSync(root, { recursive: true, force: true });
});

function invocation(source: string, budget: string | undefined, extra: Partial<SandboxInvocation> = {}): SandboxInvocation {
  return {
    modules: [{ path: 'routines/r.md', source }],
    entry: 'routines/r.md',
    input: null,
    tools: ['child', 'never'],
    context: { catalog: false, ports: { input: false, output: false } },
    clock: { epochMs: 1_700_000_000_000 },
    seed: 1,
    limits,
    ...(budget === undefined ? {} : { memoryBudget: budget }),
    ...extra,
  };
}

/** Each call of the tool `child` runs `childSource` in another invocation of the same budget, as a code routine called as a tool would. */
function nestingHost(childSource: string, budget: string | undefined, children: Promise<SandboxResult>[]): SandboxHost {
  return {
    callTool(name) {
      if (name === 'never') return new Promise(() => undefined);
      const child = sandbox.invoke(invocation(childSource, budget), nestingHost(childSource, budget, children));
      children.push(child);
      const outcome = child.then((r) => (r.ok ? r.output : Promise.reject(r.error)));
      return Promise.resolve({ callId: `c${children.length}`, executionId: null, outcome });
    },
  };
}

async function nest(parentSource: string, childSource: string, budget: string | undefined): Promise<{ parent: SandboxResult; children: SandboxResult[] }> {
  const children: Promise<SandboxResult>[] = [];
  const parent = await sandbox.invoke(invocation(parentSource, budget), nestingHost(childSource, budget, children));
  return { parent, children: await Promise.all(children) };
}

function output(r: SandboxResult | undefined): unknown {
  if (r === undefined) throw new Error('no result');
  if (!r.ok) throw new Error(`expected success, got ${r.error.code}: ${r.error.message}`);
  return r.output;
}

function failure(r: SandboxResult | undefined) {
  if (r === undefined) throw new Error('no result');
  if (r.ok) throw new Error(`expected a failure, got ${JSON.stringify(r.output)?.slice(0, 200)}`);
  return r.error;
}

/** Keeps `mib` MiB alive while it calls `child` once, and reports what the call did. */
const keepAndCall = (mib: number) =>
  `export default async (input, tools) => { const keep = new Uint8Array(${mib} * 1024 * 1024).fill(1); try { return { child: await tools.child({}), kept: keep.length }; } catch (e) { return { code: e.code, kept: keep.length }; } }`;
const allocate = (mib: number) => `export default () => new Uint8Array(${mib} * 1024 * 1024).fill(1).length`;

describe('the sandboxes of one memory budget share limits.memoryBytes', () => {
  it('lets a nested invocation allocate only what its live parent leaves; without a shared budget each has its own', async () => {
    const shared = await nest(keepAndCall(10), allocate(8), 'exec-shared');
    expect(output(shared.parent)).toEqual({ code: 'memory', kept: 10 * MiB });
    const error = failure(shared.children[0]);
    expect(error.code).toBe('memory');
    expect(error.message).toMatch(/another live sandbox of its execution holds \d+ of the 16777216 bytes its sandboxes share \(limits\.memoryBytes\)/);

    const separate = await nest(keepAndCall(10), allocate(8), undefined);
    expect(output(separate.parent)).toEqual({ child: 8 * MiB, kept: 10 * MiB });
  });

  it('lets a sandbox alone use all of memoryBytes, as without a budget', async () => {
    expect(output(await sandbox.invoke(invocation(allocate(14), 'exec-alone'), nestingHost('', undefined, [])))).toBe(14 * MiB);
  });

  it('counts memory a live sandbox freed: its linear memory never shrinks', async () => {
    const parent =
      'export default async (input, tools) => { let a = new Uint8Array(12 * 1024 * 1024).fill(1); a = null; try { return await tools.child({}); } catch (e) { return e.code; } }';
    const { parent: result, children } = await nest(parent, allocate(6), 'exec-freed');
    expect(output(result)).toBe('memory');
    expect(failure(children[0]).message).toMatch(/limits\.memoryBytes/);
  });

  it('refuses at once a new sandbox when no fresh one fits in what the others leave', async () => {
    const { parent, children } = await nest(keepAndCall(15), 'export default () => 1', 'exec-full');
    expect(output(parent)).toEqual({ code: 'memory', kept: 15 * MiB });
    expect(failure(children[0]).message).toMatch(/^the routine could not start: another live sandbox of its execution holds \d+ of the 16777216 bytes/);
  });

  it('runs concurrent siblings that fit together', async () => {
    const parent = 'export default async (input, tools) => (await Promise.all([tools.child({}), tools.child({})])).reduce((a, b) => a + b, 0)';
    const { parent: result } = await nest(parent, allocate(4), 'exec-siblings');
    expect(output(result)).toBe(8 * MiB);
  });

  it('gives the budget back as each invocation ends, a timed-out one included, and keeps no budget or invocation after', async () => {
    expect(output(await sandbox.invoke(invocation(allocate(12), 'exec-serial'), nestingHost('', undefined, [])))).toBe(12 * MiB);
    expect(output(await sandbox.invoke(invocation(allocate(12), 'exec-serial'), nestingHost('', undefined, [])))).toBe(12 * MiB);
    const waiting =
      'export default async (input, tools) => { const keep = new Uint8Array(12 * 1024 * 1024).fill(1); await tools.never(1); return keep.length; }';
    const timedOut = await sandbox.invoke(invocation(waiting, 'exec-serial', { limits: { ...limits, timeoutMs: 300 } }), nestingHost('', undefined, []));
    expect(failure(timedOut).code).toBe('timeout');
    expect(output(await sandbox.invoke(invocation(allocate(12), 'exec-serial'), nestingHost('', undefined, [])))).toBe(12 * MiB);
    expect(liveInPool(sandbox)).toEqual({ invocations: 0, budgets: 0 });
  });
});

describe('limits.memoryBytes bounds an execution (code routines calling code routines)', () => {
  let bundle: Promise<Bundle> | undefined;
  function nestBundle(): Promise<Bundle> {
    bundle ??= (() => {
      const dir = path.join(root, 'pkg');
      const routines: Record<string, { body: string; tools?: string[] }> = {
        big: {
          body: 'export default async (input, tools) => { const keep = new Uint8Array(8 * 1024 * 1024).fill(1); await tools.big({}); return keep.length; }',
          tools: ['big'],
        },
        small: {
          body: 'export default async (input, tools) => { const keep = new Uint8Array(64 * 1024).fill(1); return input.n === 0 ? keep.length : keep.length + (await tools.small({ n: input.n - 1 })); }',
          tools: ['small'],
        },
        pair: {
          body: 'export default async (input, tools) => { const keep = new Uint8Array(6 * 1024 * 1024).fill(1); return keep.length + (await tools.leaf({})); }',
          tools: ['leaf'],
        },
        leaf: { body: 'export default () => new Uint8Array(6 * 1024 * 1024).fill(1).length' },
      };
      mkdirSync(dir, { recursive: true });
      const extension = { 'ai.strawberry.berry': { exports: Object.keys(routines) } };
      writeFileSync(
        path.join(dir, 'plugin.json'),
        JSON.stringify({ $schema: 'https://agent-plugins.org/schemas/1.0.0/plugin.schema.json', name: 'memory.budget', version: '1', extensions: extension }),
      );
      for (const [name, r] of Object.entries(routines)) {
        const tools = r.tools ? `tools:\n${r.tools.map((t) => `  - ${t}\n`).join('')}` : '';
        writeFileSync(path.join(dir, `${name}.md`), `---\nname: ${name}\ndescription: Allocates memory.\nlanguage: javascript\n${tools}---\n${r.body}\n`);
      }
      const built = createCompiler({}).build(path.join(dir, 'plugin.json'));
      if (!built.ok || !built.bundle) throw new Error(JSON.stringify(built.diagnostics));
      return loadBundle(built.bundle.bytes);
    })();
    return bundle;
  }

  const runtime = createRuntime({ sandbox, limits: { memoryBytes: 16 * MiB, calls: 40, cpuMs: 2_000, timeoutMs: 20_000 } });
  afterAll(() => runtime.close());

  async function run(name: string, input: unknown): Promise<Outcome> {
    const { executionId } = await runtime.start(runtime.prepare(await nestBundle()), { export: name }, input);
    return runtime.result(executionId);
  }

  it('completes a nest of small allocations within the budget', async () => {
    expect(await run('small', { n: 6 })).toMatchObject({ status: 'completed', output: 7 * 64 * 1024 });
  });

  it('fails the call that would exceed the budget with limit-memory, naming the limit, instead of growing with the calls limit', async () => {
    const outcome = await run('big', {});
    expect(outcome.status).toBe('failed');
    // Only the first nested level starts: it cannot allocate its 8 MiB next to its parent's.
    expect(outcome.calls.map((c) => [c.id, c.status])).toEqual([
      ['c1', 'failed'],
      ['c1.1', 'failed'],
    ]);
    const nested = outcome.calls[1]!.outcome;
    expect(nested && 'error' in nested ? nested.error : undefined).toMatchObject({
      code: 'limit-memory',
      message: expect.stringMatching(/limits\.memoryBytes/),
    });
    if (outcome.status === 'failed') expect(outcome.error.message).toMatch(/\[limit-memory\]/);
  });

  it('fails a nest of small allocations deeper than the budget holds at the level that does not fit', async () => {
    const outcome = await run('small', { n: 35 });
    expect(outcome.status).toBe('failed');
    const failed = outcome.calls.filter((c) => c.outcome !== undefined && 'error' in c.outcome && c.outcome.error.code === 'limit-memory');
    expect(failed).toHaveLength(1);
    // Each live level holds about 1.4 MiB: a fresh VM's linear memory and its 64 KiB.
    expect(outcome.calls.length).toBeGreaterThan(5);
    expect(outcome.calls.length).toBeLessThan(16);
  });

  it('gives each of several executions running at once a budget of its own', async () => {
    const outcomes = await Promise.all([1, 2, 3].map(() => run('pair', {})));
    for (const outcome of outcomes) expect(outcome).toMatchObject({ status: 'completed', output: 12 * MiB });
    expect(liveInPool(sandbox)).toEqual({ invocations: 0, budgets: 0 });
  });
});
