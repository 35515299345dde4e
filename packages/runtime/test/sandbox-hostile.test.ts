import { afterAll, describe, expect, it } from 'vitest';
import { createSandbox, DEFAULT_SANDBOX_LIMITS, type SandboxHost, type SandboxInvocation, type SandboxResult } from '../src/sandbox/index.js';

/**
 * Guest code written to escape, exhaust or crash the sandbox. Limits are small so the suite
 * stays quick; deadlines are asserted only as ceilings of 10× the limit.
 */
const sandbox = createSandbox({ workers: 2 });
afterAll(() => sandbox.close());

const CPU_MS = 500;
const TIMEOUT_MS = 500;
const limits = { ...DEFAULT_SANDBOX_LIMITS, cpuMs: CPU_MS };

function invocation(source: string, extra: Partial<SandboxInvocation> = {}): SandboxInvocation {
  return {
    modules: [{ path: 'routines/evil.md', source }],
    entry: 'routines/evil.md',
    input: null,
    tools: ['echo', 'never', 'admittedOnly'],
    context: { catalog: false, ports: { input: false, output: false } },
    clock: { epochMs: 1_700_000_000_000 },
    seed: 3,
    limits,
    ...extra,
  };
}

const host: SandboxHost = {
  callTool(name, input) {
    if (name === 'never') return new Promise(() => undefined);
    if (name === 'admittedOnly') return Promise.resolve({ callId: 'c', executionId: null, outcome: new Promise(() => undefined) });
    return Promise.resolve({ callId: 'c', executionId: null, outcome: Promise.resolve(input) });
  },
};

async function run(source: string, extra: Partial<SandboxInvocation> = {}): Promise<{ result: SandboxResult; ms: number }> {
  const started = performance.now();
  const result = await sandbox.invoke(invocation(source, extra), host);
  return { result, ms: performance.now() - started };
}

function failure(r: SandboxResult) {
  if (r.ok) throw new Error(`expected a failure, got ${JSON.stringify(r.output)?.slice(0, 200)}`);
  return r.error;
}

function output(r: SandboxResult): unknown {
  if (!r.ok) throw new Error(`expected success, got ${r.error.code}: ${r.error.message}`);
  return r.output;
}

describe('CPU', () => {
  it.each([
    ['a plain infinite loop', 'export default () => { for (;;) {} }'],
    ['a loop after an awaited tool call', 'export default async (input, tools) => { await tools.echo(1); for (;;) {} }'],
    ['a loop in microtasks', 'export default async () => { for (;;) await null; }'],
    [
      'a loop in promise reactions it keeps queueing',
      'export default () => { const spin = () => { Promise.resolve().then(spin); }; spin(); return new Promise(() => {}); }',
    ],
    ['a loop that catches every error', 'export default () => { for (;;) { try { for (;;) {} } catch (e) {} } }'],
    ['catastrophic regex backtracking', "export default () => /(a+)+$/.test('a'.repeat(64) + 'b')"],
    ['a getter run while the output is serialized', 'export default () => ({ get x() { for (;;) {} } })'],
  ])('stops %s at the CPU deadline', async (_what, source) => {
    const { result, ms } = await run(source);
    expect(failure(result).code).toBe('cpu');
    expect(ms).toBeLessThan(CPU_MS * 10);
  });

  it('counts CPU across slices: short bursts between tool calls add up', async () => {
    const { result } = await run(
      'export default async (input, tools) => { for (;;) { const end = Date.now(); for (let i = 0; i < 2e5; i++); await tools.echo(end); } }',
    );
    expect(failure(result).code).toBe('cpu');
  });
});

describe('wall clock', () => {
  it.each([
    ['a tool that is never admitted', 'export default (input, tools) => tools.never()'],
    [
      'a tool admitted whose outcome never comes',
      'export default async (input, tools, context) => { const p = tools.admittedOnly(); await context.receipt(p); return p; }',
    ],
  ])('stops %s at timeoutMs', async (_what, source) => {
    const { result, ms } = await run(source, { limits: { ...limits, timeoutMs: TIMEOUT_MS } });
    expect(failure(result).code).toBe('timeout');
    expect(ms).toBeLessThan(TIMEOUT_MS * 10);
  });

  it('stops guest code at timeoutMs when that comes before the CPU limit', async () => {
    const { result, ms } = await run('export default () => { for (;;) {} }', { limits: { ...limits, cpuMs: 60_000, timeoutMs: TIMEOUT_MS } });
    expect(failure(result).code).toBe('timeout');
    expect(ms).toBeLessThan(TIMEOUT_MS * 10);
  });
});

describe('memory', () => {
  it.each([
    ['heap arrays', 'export default () => { const a = []; for (let i = 0; i < 200; i++) a.push(new Array(131072).fill(i + 0.5)); return a.length; }'],
    ['strings', 'export default () => { const a = []; for (let i = 0; i < 200; i++) a.push("x".padStart(1 << 20, String(i))); return a.length; }'],
    ['one ArrayBuffer', 'export default () => new ArrayBuffer(200 * 1024 * 1024).byteLength'],
    [
      'arrays whose allocation failure it catches and retries',
      'export default () => { const keep = []; for (;;) { try { keep.push(new Array(1 << 20).fill(1)); } catch (e) {} } }',
    ],
  ])('refuses 200 MB of %s under a 64 MB limit', async (_what, source) => {
    const { result } = await run(source, { limits: { ...limits, cpuMs: 5_000 } });
    expect(failure(result).code).toBe('memory');
  });

  it.each([
    ['a promise storm', 'export default () => { const all = []; for (;;) all.push(new Promise(() => {})); }'],
    [
      'a fan-out of promise reactions',
      'export default () => { const f = () => { Promise.resolve().then(f); Promise.resolve().then(f); }; f(); return new Promise(() => {}); }',
    ],
  ])('stops %s at its memory or CPU limit', async (_what, source) => {
    const { result, ms } = await run(source);
    expect(['memory', 'cpu']).toContain(failure(result).code);
    expect(ms).toBeLessThan(CPU_MS * 10);
  });

  it('reports deep recursion as a thrown RangeError, not a crash', async () => {
    const { result } = await run('export default () => { const f = (n) => f(n + 1) + 1; return f(0); }');
    expect(failure(result)).toMatchObject({ code: 'thrown', message: expect.stringMatching(/RangeError: Maximum call stack size exceeded/) });
  });

  it('survives deeply nested values', async () => {
    const huge = await run('export default () => { let a = []; for (let i = 0; i < 1e6; i++) a = [a]; return a; }', { limits: { ...limits, cpuMs: 5_000 } });
    expect(['memory', 'thrown']).toContain(failure(huge.result).code);
    const deep = await run('export default () => { let a = []; for (let i = 0; i < 5000; i++) a = [a]; return a; }');
    expect(failure(deep.result)).toMatchObject({ code: 'not-json', message: 'output nests deeper than 1000 levels' });
    const parsed = await run('export default (input) => { try { return JSON.parse(input); } catch (e) { return "caught"; } }', {
      input: '['.repeat(100_000) + ']'.repeat(100_000),
    });
    expect(failure(parsed.result)).toMatchObject({ code: 'thrown', message: 'RangeError: Maximum call stack size exceeded' });
  });
});

describe('output', () => {
  it('refuses a 100 MB output', async () => {
    const big = await run('export default () => "x".repeat(100 * 1024 * 1024)', { limits: { ...limits, cpuMs: 5_000, memoryBytes: 512 * 1024 * 1024 } });
    expect(failure(big.result).code).toBe('output-too-large');
    const underDefault = await run('export default () => "x".repeat(100 * 1024 * 1024)');
    expect(failure(underDefault.result).code).toBe('memory');
  });

  it('refuses a tool input over outputBytes without calling the host', async () => {
    const calls: string[] = [];
    const counting: SandboxHost = { callTool: (name, input) => (calls.push(name), host.callTool(name, input)) };
    const r = await sandbox.invoke(
      invocation('export default async (input, tools) => { try { await tools.echo("x".repeat(2000)); } catch (e) { return e.code; } }', {
        limits: { ...limits, outputBytes: 1000 },
      }),
      counting,
    );
    expect(output(r)).toBe('output-too-large');
    expect(calls).toEqual([]);
  });
});

describe('escapes', () => {
  it('offers no host globals, IO, timers or nondeterministic intrinsics', async () => {
    const names = [
      'process',
      'require',
      'module',
      'exports',
      '__dirname',
      '__filename',
      'global',
      'fetch',
      'XMLHttpRequest',
      'WebSocket',
      'EventSource',
      'setTimeout',
      'setInterval',
      'setImmediate',
      'clearTimeout',
      'clearInterval',
      'clearImmediate',
      'queueMicrotask',
      'Buffer',
      'Deno',
      'Bun',
      'importScripts',
      'Worker',
      'SharedArrayBuffer',
      'Atomics',
      'WeakRef',
      'FinalizationRegistry',
      'WebAssembly',
      'Intl',
      'console',
      'print',
      'std',
      'os',
      'navigator',
      'gc',
    ];
    const r = await run(`export default () => ${JSON.stringify(names)}.filter((n) => typeof globalThis[n] !== 'undefined')`);
    expect(output(r.result)).toEqual([]);
  });

  it.each([
    ['constructor.constructor', "export default () => ({}).constructor.constructor('return process')()"],
    ['an async function constructor', "export default async () => (async () => {}).constructor('return process')()"],
    ['eval', "export default () => eval('process')"],
    ['indirect eval', "export default () => (0, eval)('require')('fs')"],
  ])('finds no process through %s', async (_what, source) => {
    const e = failure((await run(source)).result);
    expect(e.code).toBe('thrown');
    expect(e.message).toMatch(/ReferenceError: (process|require) is not defined/);
  });

  it('finds only its own global through Function and computed names', async () => {
    const r = await run(`export default () => {
      const g = Function('return this')();
      return [g === globalThis, typeof g.process, typeof globalThis['pro' + 'cess'], typeof g['req' + 'uire'], Object.getOwnPropertyNames(g).filter((n) => /process|require|fetch|timeout/i.test(n))];
    }`);
    expect(output(r.result)).toEqual([true, 'undefined', 'undefined', 'undefined', []]);
  });

  it.each([
    ["import('node:fs')", "export default async () => { try { await import('node:fs'); return 'loaded'; } catch (e) { return e.message; } }"],
    ["import('fs')", "export default async () => { try { await import('fs'); return 'loaded'; } catch (e) { return e.message; } }"],
    ["import('qjs:std')", "export default async () => { try { await import('qjs:std'); return 'loaded'; } catch (e) { return e.message; } }"],
    [
      'import of a data: URL',
      "export default async () => { try { await import('data:text/javascript,export default 1'); return 'loaded'; } catch (e) { return e.message; } }",
    ],
  ])('refuses %s', async (_what, source) => {
    expect(output((await run(source)).result)).toMatch(/not available/);
  });

  it("refuses a static import of 'node:fs' at load", async () => {
    expect(failure((await run("import fs from 'node:fs';\nexport default () => 1;")).result).code).toBe('load');
  });

  it('keeps prototype pollution inside the invocation', async () => {
    const polluted = await run(`export default () => {
      Object.prototype.polluted = 'yes';
      Array.prototype.map = () => 'hijacked';
      JSON.stringify = () => '"forged"';
      Promise.prototype.then = function () { throw new Error('hijacked then'); };
      return { fine: [1].length };
    }`);
    expect(output(polluted.result)).toEqual({ fine: 1 });
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect([1].map((x) => x + 1)).toEqual([2]);
    const next = await run('export default () => [({}).polluted === undefined, [1].map((x) => x * 2), JSON.stringify({ a: 1 })]');
    expect(output(next.result)).toEqual([true, [2], '{"a":1}']);
  });

  it('cannot call an undeclared tool, whatever it does to its tools object', async () => {
    const calls: string[] = [];
    const counting: SandboxHost = { callTool: (name, input) => (calls.push(name), host.callTool(name, input)) };
    const r = await sandbox.invoke(
      invocation(
        "export default async (input, tools) => { const out = []; try { tools.secret = tools.echo; } catch (e) { out.push(e.name); } out.push(typeof tools['admin.delete']); Object.prototype['admin.delete'] = tools.echo; out.push(await tools['admin.delete']('x')); return out; }",
        { tools: ['echo'] },
      ),
      counting,
    );
    expect(output(r)).toEqual(['TypeError', 'undefined', 'x']);
    expect(calls).toEqual(['echo']);
  });

  it("cannot reach the runner's functions through the V8 stack API or .caller", async () => {
    const r = await run(`export default async (input, tools) => {
      const seen = [];
      try { Error.prepareStackTrace = (e, sites) => sites.map((s) => s.getFunction()); } catch (e) { seen.push(e.name); }
      const sloppy = (0, eval)('(function peek() { return typeof peek.caller; })');
      await tools.echo({ get a() { seen.push(typeof new Error('x').stack, sloppy()); return 1; } });
      return seen;
    }`);
    expect(output(r.result)).toEqual(['TypeError', 'string', 'undefined']);
  });

  it('cannot forge its way past the JSON check by patching intrinsics', async () => {
    const r = await run('export default () => { JSON.stringify = () => "{}"; Object.prototype.toJSON = undefined; return { f: () => 1 }; }');
    expect(failure(r.result).code).toBe('not-json');
  });
});

describe('after all of that', () => {
  it('the host is alive and the next normal invocation succeeds', async () => {
    const r = await sandbox.invoke(
      invocation('export default async (input, tools) => ({ echoed: await tools.echo(input), random: Math.random() < 1 })', { input: { ok: true } }),
      host,
    );
    expect(output(r)).toEqual({ echoed: { ok: true }, random: true });
  });
});
