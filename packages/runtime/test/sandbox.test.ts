import MagicString from 'magic-string';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createSandbox,
  DEFAULT_SANDBOX_LIMITS,
  type SandboxHost,
  type SandboxInvocation,
  type SandboxModule,
  type SandboxResult,
} from '../src/sandbox/index.js';
import { WorkerPool } from '../src/sandbox/pool.js';
import { originalPosition } from '../src/sandbox/source-map.js';
import { stopWorker } from './support/sandbox-pool.js';

const sandbox = createSandbox({ workers: 2 });
afterAll(() => sandbox.close());

const BODY = 'routines/x.md';

function invocation(source: string, extra: Partial<SandboxInvocation> = {}): SandboxInvocation {
  return {
    modules: [{ path: BODY, source }],
    entry: BODY,
    input: null,
    tools: [],
    context: { catalog: false, ports: { input: false, output: false } },
    clock: { epochMs: 1_700_000_000_000 },
    seed: 1,
    limits: { ...DEFAULT_SANDBOX_LIMITS },
    ...extra,
  };
}

type Tool = (input: unknown) => Promise<unknown>;

/** A host whose tools are async functions; it records every call and numbers the receipts. */
function toolHost(tools: Record<string, Tool>, extra: Partial<SandboxHost> = {}): SandboxHost & { calls: { name: string; input: unknown }[] } {
  const calls: { name: string; input: unknown }[] = [];
  return {
    calls,
    callTool(name, input) {
      calls.push({ name, input });
      const tool = tools[name];
      if (tool === undefined) return Promise.reject({ code: 'unknown', message: `no tool ${name}` });
      return Promise.resolve({ callId: `call-${calls.length}`, executionId: `exec-${calls.length}`, outcome: tool(input) });
    },
    ...extra,
  };
}

const noTools = toolHost({});

function output(r: SandboxResult): unknown {
  if (!r.ok) throw new Error(`expected success, got ${r.error.code}: ${r.error.message}`);
  return r.output;
}

function failure(r: SandboxResult) {
  if (r.ok) throw new Error(`expected a failure, got ${JSON.stringify(r.output)}`);
  return r.error;
}

const later = <T>(value: T, ms: number) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

describe('modules', () => {
  it('runs a body importing a module that imports another, relative to each importer', async () => {
    const modules: SandboxModule[] = [
      {
        path: 'routines/search/rank.md',
        source: "import { score } from '../lib/score.js';\nexport default function (input) { return input.items.map(score); }",
      },
      { path: 'routines/lib/score.js', source: "import { weight } from './weights/w.mjs';\nexport const score = (s) => s.length * weight;" },
      { path: 'routines/lib/weights/w.mjs', source: 'export const weight = 10;' },
    ];
    const r = await sandbox.invoke({ ...invocation(''), modules, entry: 'routines/search/rank.md', input: { items: ['a', 'abc'] } }, noTools);
    expect(output(r)).toEqual([10, 30]);
  });

  it.each([
    ['a bare package', "import x from 'lodash';"],
    ['a Node built-in', "import fs from 'node:fs';"],
    ['a URL', "import x from 'https://example.com/x.js';"],
    ['a missing module', "import x from './nope.js';"],
    ['a path leaving the package', "import x from '../../../x.js';"],
    ['a module named without its extension', "import { twice } from './lib/t';"],
  ])('refuses %s at load, pointing at the import', async (_what, line) => {
    const modules: SandboxModule[] = [
      { path: BODY, source: `\n${line}\nexport default () => 1;` },
      { path: 'routines/lib/t.js', source: 'export const twice = (n) => n * 2;' },
    ];
    const e = failure(await sandbox.invoke({ ...invocation(''), modules }, noTools));
    expect(e.code).toBe('load');
    expect(e.location).toMatchObject({ file: BODY, line: 2 });
  });

  it('reports a syntax error as a load failure at its line', async () => {
    const e = failure(await sandbox.invoke(invocation('export default function () {\n  return 1 +;\n}'), noTools));
    expect(e.code).toBe('load');
    expect(e.message).toMatch(/SyntaxError/);
    expect(e.location).toMatchObject({ file: BODY, line: 2 });
  });

  it('refuses an entry without a default export function', async () => {
    const e = failure(await sandbox.invoke(invocation('export const x = 1;'), noTools));
    expect(e.code).toBe('load');
  });

  it('refuses an entry that is not among the modules', async () => {
    const e = failure(await sandbox.invoke({ ...invocation('export default () => 1'), entry: 'routines/y.md' }, noTools));
    expect(e.code).toBe('load');
  });

  it('refuses import() even of a module in the graph', async () => {
    const modules: SandboxModule[] = [
      {
        path: BODY,
        source:
          "import './lib/t.js';\nexport default async function () { try { await import('./lib/t.js'); return 'loaded'; } catch (e) { return e.message; } }",
      },
      { path: 'routines/lib/t.js', source: 'export const t = 1;' },
    ];
    const r = await sandbox.invoke({ ...invocation(''), modules }, noTools);
    expect(output(r)).toMatch(/import\(\) is not available/);
  });
});

describe('tools', () => {
  it('bridges a tool call: the input goes out as JSON and the result flows back', async () => {
    const host = toolHost({ 'notes.compose': async (input) => ({ note: `# ${(input as { title: string }).title}` }) });
    const r = await sandbox.invoke(
      invocation("export default async function (input, tools) { const r = await tools['notes.compose']({ title: input }); return r.note; }", {
        input: 'Hello',
        tools: ['notes.compose'],
      }),
      host,
    );
    expect(output(r)).toBe('# Hello');
    expect(host.calls).toEqual([{ name: 'notes.compose', input: { title: 'Hello' } }]);
  });

  it('gives the guest exactly the declared keys, frozen', async () => {
    const r = await sandbox.invoke(
      invocation(
        "export default function (input, tools) { 'use strict'; let added = true; try { tools.extra = 1; } catch { added = false; } return { keys: Object.keys(tools), added, kinds: Object.values(tools).map((f) => typeof f) }; }",
        { tools: ['notes.compose', 'search', '__proto__'] },
      ),
      noTools,
    );
    expect(output(r)).toEqual({ keys: ['notes.compose', 'search', '__proto__'], added: false, kinds: ['function', 'function', 'function'] });
  });

  it('rejects a failed tool call in the guest with its message and code, and the guest can catch it', async () => {
    const host = toolHost({ flaky: () => Promise.reject({ code: 'quota', message: 'over quota' }) });
    const r = await sandbox.invoke(
      invocation(
        'export default async function (input, tools) { try { await tools.flaky(1); return "no"; } catch (e) { return { isError: e instanceof Error, message: e.message, code: e.code, callId: e.callId }; } }',
        { tools: ['flaky'] },
      ),
      host,
    );
    expect(output(r)).toEqual({ isError: true, message: 'over quota', code: 'quota', callId: 'call-1' });
  });

  it('fails the routine with the tool error when the guest does not catch it', async () => {
    const host = toolHost({ flaky: () => Promise.reject(new Error('boom')) });
    const e = failure(
      await sandbox.invoke(invocation('export default async function (input, tools) {\n  return await tools.flaky();\n}', { tools: ['flaky'] }), host),
    );
    expect(e.code).toBe('thrown');
    expect(e.message).toBe('Error: boom');
    expect(e.thrownCode).toBe('failed');
  });

  it('rejects a call the host refuses to admit', async () => {
    const host: SandboxHost = { callTool: () => Promise.reject({ code: 'denied', message: 'not granted' }) };
    const r = await sandbox.invoke(
      invocation(
        'export default async function (input, tools, context) { const p = tools.x(); const [a, b] = await Promise.allSettled([p, context.receipt(p)]); return [a.reason.code, b.reason.message]; }',
        { tools: ['x'] },
      ),
      host,
    );
    expect(output(r)).toEqual(['denied', 'not granted']);
  });

  it('keeps the order of Promise.all whatever order the tools finish in', async () => {
    const host = toolHost({ slow: (i) => later({ slow: i }, 60), fast: (i) => later({ fast: i }, 1) });
    const r = await sandbox.invoke(
      invocation('export default (input, tools) => Promise.all([tools.slow(1), tools.fast(2), tools.slow(3)]);', { tools: ['slow', 'fast'] }),
      host,
    );
    expect(output(r)).toEqual([{ slow: 1 }, { fast: 2 }, { slow: 3 }]);
  });

  it('refuses a tool input that is not JSON before calling the host', async () => {
    const host = toolHost({ t: async () => 1 });
    const r = await sandbox.invoke(
      invocation('export default async (input, tools) => { try { await tools.t({ f() {} }); } catch (e) { return [e.code, e.message]; } }', { tools: ['t'] }),
      host,
    );
    expect(output(r)).toEqual(['not-json', 'tools["t"] input.f is a function, which is not JSON']);
    expect(host.calls).toEqual([]);
  });

  it('passes a missing input as undefined and a tool result of undefined back as undefined', async () => {
    const host = toolHost({ t: async () => undefined });
    const r = await sandbox.invoke(invocation('export default async (input, tools) => typeof (await tools.t());', { tools: ['t'] }), host);
    expect(output(r)).toBe('undefined');
    expect(host.calls).toEqual([{ name: 't', input: undefined }]);
  });
});

describe('context', () => {
  it('gives the receipt of a tool call before its outcome', async () => {
    let finish: (v: unknown) => void = () => undefined;
    const host: SandboxHost = {
      callTool: () => Promise.resolve({ callId: 'c-7', executionId: 'e-9', outcome: new Promise((resolve) => (finish = resolve)) }),
    };
    const r = sandbox.invoke(
      invocation(
        'export default async function (input, tools, context) { const p = tools.bg(); const receipt = await context.receipt(p); const frozen = Object.isFrozen(receipt); const result = await p; return { receipt, frozen, result }; }',
        { tools: ['bg'] },
      ),
      host,
    );
    await later(null, 50);
    finish('done');
    expect(output(await r)).toEqual({ receipt: { callId: 'c-7', executionId: 'e-9' }, frozen: true, result: 'done' });
  });

  it('gives the receipt of a tool call that answered at once, the same promise each time', async () => {
    const host = toolHost({ t: async (input) => input });
    const r = await sandbox.invoke(
      invocation(
        'export default async function (input, tools, context) { const p = tools.t(5); const result = await p; const receipt = await context.receipt(p); return { result, receipt, same: context.receipt(p) === context.receipt(p), frozen: Object.isFrozen(receipt) }; }',
        { tools: ['t'] },
      ),
      host,
    );
    expect(output(r)).toEqual({ result: 5, receipt: { callId: 'call-1', executionId: 'exec-1' }, same: true, frozen: true });
  });

  it('refuses a receipt for a promise that no tool returned', async () => {
    const host = toolHost({ t: async () => 1 });
    const r = await sandbox.invoke(
      invocation(
        'export default async function (input, tools, context) { const out = []; for (const p of [Promise.resolve(1), tools.t().then((x) => x), {}]) { try { await context.receipt(p); out.push("ok"); } catch (e) { out.push(e.name); } } return out; }',
        { tools: ['t'] },
      ),
      host,
    );
    expect(output(r)).toEqual(['TypeError', 'TypeError', 'TypeError']);
  });

  const shape = 'export default (input, tools, context) => Object.keys(context).sort();';

  it('offers catalog only with catalog: true', async () => {
    const host = toolHost({}, { catalog: async () => [{ name: 'notes.compose' }] });
    expect(output(await sandbox.invoke(invocation(shape), host))).toEqual(['receipt']);
    const withCatalog = invocation(
      'export default async (input, tools, context) => ({ keys: Object.keys(context).sort(), catalog: await context.catalog() });',
      {
        context: { catalog: true, ports: { input: false, output: false } },
      },
    );
    expect(output(await sandbox.invoke(withCatalog, host))).toEqual({ keys: ['catalog', 'receipt'], catalog: [{ name: 'notes.compose' }] });
  });

  it('offers receive and emit only with the matching port', async () => {
    const inbox = [
      { id: 'm1', text: 'hi' },
      { id: 'm2', text: 'bye' },
    ];
    const emitted: unknown[][] = [];
    const host = toolHost(
      {},
      {
        receive: async () => inbox.shift() ?? null,
        emit: async (...args: unknown[]) => {
          emitted.push(args);
        },
      },
    );
    const ports = (input: boolean, output: boolean) => ({ catalog: false, ports: { input, output } });
    expect(output(await sandbox.invoke(invocation(shape, { context: ports(true, false) }), host))).toEqual(['receipt', 'receive']);
    expect(output(await sandbox.invoke(invocation(shape, { context: ports(false, true) }), host))).toEqual(['emit', 'receipt']);

    const resident = `export default async function (input, tools, context) {
      for (let m = await context.receive(); m !== null; m = await context.receive()) {
        const r = await context.emit({ echo: m.text });
        if (r !== undefined) return 'emit resolved with a value';
      }
      await context.emit('end', 'status', 'm1');
      return 'stopped';
    }`;
    expect(output(await sandbox.invoke(invocation(resident, { context: ports(true, true) }), host))).toBe('stopped');
    expect(emitted).toEqual([[{ echo: 'hi' }], [{ echo: 'bye' }], ['end', 'status', 'm1']]);
  });
});

describe('determinism', () => {
  const probe = `export default function () {
    const bytes = crypto.getRandomValues(new Uint8Array(8));
    return {
      now: Date.now(), date: new Date().toISOString(), ctor: Date(), perf: performance.now(), origin: performance.timeOrigin,
      tz: new Date().getTimezoneOffset(), random: [Math.random(), Math.random(), Math.random()],
      bytes: Array.from(bytes), uuid: crypto.randomUUID(),
    };
  }`;

  it('sees the invocation clock and the same random sequence for the same seed', async () => {
    const a = output(await sandbox.invoke(invocation(probe, { seed: 42 }), noTools)) as Record<string, unknown>;
    const b = output(await sandbox.invoke(invocation(probe, { seed: 42 }), noTools)) as Record<string, unknown>;
    expect(a).toEqual(b);
    expect(a).toMatchObject({ now: 1_700_000_000_000, date: '2023-11-14T22:13:20.000Z', perf: 0, origin: 1_700_000_000_000, tz: 0 });
    expect(a['ctor']).toMatch(/^Tue Nov 14 2023 22:13:20/);
    expect(a['uuid']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('sees a different random sequence for another seed, and another clock', async () => {
    const a = output(await sandbox.invoke(invocation(probe, { seed: 1 }), noTools)) as Record<string, unknown>;
    const b = output(await sandbox.invoke(invocation(probe, { seed: 2, clock: { epochMs: 0 } }), noTools)) as Record<string, unknown>;
    expect(b['random']).not.toEqual(a['random']);
    expect(b['bytes']).not.toEqual(a['bytes']);
    expect(b['uuid']).not.toEqual(a['uuid']);
    expect(b).toMatchObject({ now: 0, date: '1970-01-01T00:00:00.000Z' });
  });

  it('does not advance the clock while the routine runs or waits', async () => {
    const host = toolHost({ wait: () => later(null, 30) });
    const r = await sandbox.invoke(
      invocation('export default async (input, tools) => { const a = Date.now(); for (let i = 0; i < 1e5; i++); await tools.wait(); return Date.now() - a; }', {
        tools: ['wait'],
      }),
      host,
    );
    expect(output(r)).toBe(0);
  });
});

describe('errors', () => {
  /** A code routine as the compiler maps it: the body cut out of its .md file with magic-string. */
  function mdModule(path: string, frontmatter: string, body: string): SandboxModule {
    const text = `${frontmatter}${body}`;
    const s = new MagicString(text);
    s.remove(0, frontmatter.length);
    const m = s.generateMap({ source: path, includeContent: true, hires: true });
    return { path, source: s.toString(), map: { version: 3, sources: [...m.sources], mappings: m.mappings, names: [...m.names] } };
  }

  it('reports a throw on body line 3 at its line in the .md file', async () => {
    const frontmatter = '---\ntools: []\ndescription: maps\n---\n';
    const body = 'export default function () {\n  const x = 1;\n  throw new Error("boom");\n}\n';
    const module = mdModule('routines/x.md', frontmatter, body);
    const e = failure(await sandbox.invoke({ ...invocation(''), modules: [module] }, noTools));
    expect(e.code).toBe('thrown');
    expect(e.message).toBe('Error: boom');
    expect(e.location).toEqual({ file: 'routines/x.md', line: 7, column: 13 });
    expect(e.stack).toMatch(/routines\/x\.md:7:13/);
    expect(e.stack).not.toMatch(/berrypack-runner/);
  });

  it('reports an error raised in a supporting module at that module, with the body frame after it', async () => {
    const frontmatter = '---\nname: y\n---\n\n';
    const body = "import { check } from './lib/check.js';\n\nexport default function (input) {\n  return check(input);\n}\n";
    const modules = [
      mdModule('routines/y.md', frontmatter, body),
      { path: 'routines/lib/check.js', source: 'export function check(v) {\n  if (!v) throw new TypeError("empty");\n  return v;\n}' },
    ];
    const e = failure(await sandbox.invoke({ ...invocation(''), modules, entry: 'routines/y.md', input: 0 }, noTools));
    expect(e.message).toBe('TypeError: empty');
    expect(e.location).toMatchObject({ file: 'routines/lib/check.js', line: 2 });
    expect(e.stack?.split('\n')[1]).toMatch(/routines\/y\.md:8:/);
  });

  it('maps a syntax error in a body to the .md file', async () => {
    const module = mdModule('routines/z.md', '---\nx: 1\n---\n', 'export default function () {\n  return 1 +;\n}\n');
    const e = failure(await sandbox.invoke({ ...invocation(''), modules: [module], entry: 'routines/z.md' }, noTools));
    expect(e.code).toBe('load');
    expect(e.location).toMatchObject({ file: 'routines/z.md', line: 5 });
  });

  it('counts columns in UTF-16 code units, as source maps do, after non-ASCII text', async () => {
    // QuickJS counts UTF-8 bytes; "é😀" is 3 UTF-16 units but 6 bytes, "abc" 3 of each.
    const locate = async (text: string) => {
      const module = mdModule('routines/u.md', '---\nx: é\n---\n', `export default () => { const s = "${text}"; throw new Error(s); };\n`);
      return failure(await sandbox.invoke({ ...invocation(''), modules: [module], entry: 'routines/u.md' }, noTools)).location;
    };
    const ascii = await locate('abc');
    expect(ascii).toMatchObject({ file: 'routines/u.md', line: 4 });
    expect(await locate('é😀')).toEqual(ascii);
  });

  it('reports thrown non-errors by their JSON', async () => {
    const e = failure(await sandbox.invoke(invocation('export default () => { throw { reason: "no" }; }'), noTools));
    expect(e).toMatchObject({ code: 'thrown', message: '{"reason":"no"}' });
  });

  it('maps through VLQ mappings, negative deltas and multi-digit values included, adding the distance from the segment', () => {
    // Source lines and columns carry over from line to line; generated columns restart.
    const map = { version: 3 as const, sources: ['a.md'], mappings: 'AAAA;AACA,EAAE;AAeA' };
    expect(originalPosition(map, 2, 2)).toEqual({ file: 'a.md', line: 2, column: 2 });
    expect(originalPosition(map, 2, 5)).toEqual({ file: 'a.md', line: 2, column: 5 });
    expect(originalPosition(map, 3, 1)).toEqual({ file: 'a.md', line: 17, column: 3 });
    expect(originalPosition({ ...map, mappings: 'AAgBC' }, 1, 1)).toEqual({ file: 'a.md', line: 17, column: 2 });
    expect(originalPosition({ ...map, mappings: 'AAAA;AACA,IAAI' }, 2, 7)).toEqual({ file: 'a.md', line: 2, column: 7 });
    // Before a line's first segment: that segment's own position; a line without one: none.
    expect(originalPosition({ ...map, mappings: 'IAAI' }, 1, 2)).toEqual({ file: 'a.md', line: 1, column: 5 });
    expect(originalPosition(map, 9, 1)).toBeUndefined();
  });
});

describe('output', () => {
  it.each([
    ['undefined', 'undefined', 'output is undefined, which is not JSON'],
    ['a function', '() => 1', 'output is a function, which is not JSON'],
    ['a nested function', '({ a: [1, { f() {} }] })', 'output.a[1].f is a function, which is not JSON'],
    ['NaN', '({ "odd key": NaN })', 'output["odd key"] is NaN, which is not JSON'],
    ['a BigInt', '[1n]', 'output[0] is a BigInt, which is not JSON'],
    ['an array hole', '[1, , 3]', 'output[1] is undefined, which is not JSON'],
    ['a cycle', '(() => { const a = { b: {} }; a.b.a = a; return a; })()', 'output contains a circular reference, which is not JSON'],
  ])('refuses %s as not JSON', async (_what, value, message) => {
    const e = failure(await sandbox.invoke(invocation(`export default () => ${value};`), noTools));
    expect(e).toMatchObject({ code: 'not-json', message });
  });

  it('leaves out undefined object members and applies toJSON, as JSON does', async () => {
    const r = await sandbox.invoke(invocation('export default () => ({ a: undefined, b: 1, at: new Date(0) });'), noTools);
    expect(output(r)).toEqual({ b: 1, at: '1970-01-01T00:00:00.000Z' });
  });

  it('refuses an output over outputBytes, counted in UTF-8 bytes', async () => {
    const limits = { ...DEFAULT_SANDBOX_LIMITS, outputBytes: 10 };
    expect(output(await sandbox.invoke(invocation('export default () => "12345678";', { limits }), noTools))).toBe('12345678');
    expect(failure(await sandbox.invoke(invocation('export default () => "123456789";', { limits }), noTools)).code).toBe('output-too-large');
    // 7 characters of JSON text, 12 bytes: only the UTF-8 count catches it
    expect(failure(await sandbox.invoke(invocation('export default () => "ééééé";', { limits }), noTools)).code).toBe('output-too-large');
  });

  it('refuses an invocation input that is not JSON', async () => {
    const input: Record<string, unknown> = {};
    input['self'] = input;
    expect(failure(await sandbox.invoke(invocation('export default () => 1;', { input }), noTools)).code).toBe('not-json');
  });
});

describe('pool', () => {
  it('keeps the host event loop running while guest code spins', async () => {
    let ticks = 0;
    const interval = setInterval(() => ticks++, 10);
    try {
      const e = failure(
        await sandbox.invoke(invocation('export default () => { for (;;) {} }', { limits: { ...DEFAULT_SANDBOX_LIMITS, cpuMs: 500 } }), noTools),
      );
      expect(e.code).toBe('cpu');
    } finally {
      clearInterval(interval);
    }
    expect(ticks).toBeGreaterThanOrEqual(5);
  });

  it('runs another routine while one spins', async () => {
    const order: string[] = [];
    const spin = sandbox
      .invoke(invocation('export default () => { for (;;) {} }', { limits: { ...DEFAULT_SANDBOX_LIMITS, cpuMs: 1500 } }), noTools)
      .then(() => order.push('spin'));
    await later(null, 100);
    const quick = sandbox.invoke(invocation('export default () => "quick";'), noTools).then((r) => order.push(String(output(r))));
    await Promise.all([spin, quick]);
    expect(order).toEqual(['quick', 'spin']);
  });

  it('keeps many waiting routines in one worker at once', async () => {
    const pool = createSandbox({ workers: 1 });
    try {
      const release: (() => void)[] = [];
      const host: SandboxHost = {
        callTool: (name, input) => {
          const outcome = new Promise<unknown>((resolve) => release.push(() => resolve(input)));
          // Answers only once all ten routines are waiting: one routine per thread would never get there.
          if (release.length === 10) for (const r of release) r();
          return Promise.resolve({ callId: 'c', executionId: null, outcome });
        },
      };
      const limits = { ...DEFAULT_SANDBOX_LIMITS, timeoutMs: 10_000 };
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          pool.invoke(invocation('export default (input, tools) => tools.wait(input);', { input: i, tools: ['wait'], limits }), host),
        ),
      );
      expect(results.map(output)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    } finally {
      await pool.close();
    }
  });

  it('fails the routines of a stopped worker and replaces it', async () => {
    const pool = new WorkerPool(1);
    try {
      const host = toolHost({ never: () => new Promise(() => undefined) });
      const waiting = pool.invoke(invocation('export default (input, tools) => tools.never();', { tools: ['never'] }), host);
      await later(null, 200);
      await stopWorker(pool, 0);
      expect(failure(await waiting).code).toBe('internal');
      expect(output(await pool.invoke(invocation('export default () => "again";'), noTools))).toBe('again');
    } finally {
      await pool.close();
    }
  });

  it('fails pending routines on close and refuses new ones', async () => {
    const pool = createSandbox({ workers: 1 });
    const host = toolHost({ never: () => new Promise(() => undefined) });
    const waiting = pool.invoke(invocation('export default (input, tools) => tools.never();', { tools: ['never'] }), host);
    await later(null, 200);
    await pool.close();
    expect(failure(await waiting)).toMatchObject({ code: 'internal', message: 'the sandbox was closed' });
    expect(failure(await pool.invoke(invocation('export default () => 1;'), noTools)).code).toBe('internal');
  });

  it('fails at once a routine that waits for a promise nothing can settle', async () => {
    const e = failure(await sandbox.invoke(invocation('export default () => new Promise(() => {});'), noTools));
    expect(e.code).toBe('timeout');
    expect(e.message).toMatch(/nothing can settle/);
  });
});
