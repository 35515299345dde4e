import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCompiler } from '@berrypack/compiler';
import { createRuntime, loadBundle, type Bundle, type Outcome, type Runtime, type RuntimeLimits } from '@berrypack/runtime';
import { ROOT } from '../support/cli.js';
import { recordFigure } from '../support/fuzz.js';
import { cleanup, tempDir } from '../support/temp.js';

/**
 * Hostile code routines through the whole runtime (compiler → bundle → loadBundle → prepare
 * → start), not only the sandbox (packages/runtime/test/sandbox-hostile.test.ts covers that
 * layer with hand-made invocations). Each attempt to escape or exhaust is a real routine of a
 * real package; the execution fails with the error code of what stopped it (or completes
 * having found nothing), the host's own timer keeps ticking while it runs, and an ordinary
 * execution right after it is unaffected. Names the compiler refuses statically (CODE-3,
 * CODE-5: `process`, `WeakRef`, `import()`) are reached the way hostile code would: through
 * strings, computed names and `eval`.
 */

interface Case {
  body: string;
  tools?: string[];
  /** The outcome: a failure code (and message pattern), or a completed output. */
  fails?: string;
  message?: RegExp;
  output?: unknown;
  /** Extra frontmatter (e.g. `next`). */
  extra?: string;
}

const CASES: Record<string, Case> = {
  // CPU: the sandbox's deadline covers loops, loops after awaits and loops in microtasks.
  'cpu.spin': { body: 'export default () => { for (;;) {} }', fails: 'limit-cpu' },
  'cpu.after-tool': { body: 'export default async (input, tools) => { await tools.leaf(1); for (;;) {} }', tools: ['leaf'], fails: 'limit-cpu' },
  'cpu.microtasks': { body: 'export default async () => { for (;;) await null; }', fails: 'limit-cpu' },
  'cpu.in-getter': { body: 'export default () => ({ get x() { for (;;) {} } })', fails: 'limit-cpu' },
  // Constructor chains and evaluators only ever reach the guest's own global.
  'escape.constructor': {
    body: "export default () => ({}).constructor.constructor('return process')()",
    fails: 'code-error',
    message: /ReferenceError: process is not defined/,
  },
  'escape.async-constructor': {
    body: "export default async () => (async () => {}).constructor('return require')()",
    fails: 'code-error',
    message: /ReferenceError: require is not defined/,
  },
  'escape.generator-constructor': {
    body: "export default () => (function* () {}).constructor('yield process')().next()",
    fails: 'code-error',
    message: /ReferenceError: process is not defined/,
  },
  'escape.eval': { body: "export default () => eval('process')", fails: 'code-error', message: /ReferenceError: process is not defined/ },
  'escape.indirect-eval': { body: "export default () => (0, eval)('require')('fs')", fails: 'code-error', message: /ReferenceError: require is not defined/ },
  'escape.new-function': { body: "export default () => new Function('return this')()['pro' + 'cess'].exit(1)", fails: 'code-error', message: /TypeError/ },
  'escape.error-constructor': {
    body: "export default () => { try { null.x; } catch (e) { return e.constructor.constructor('return [typeof process, typeof require, typeof fetch]')(); } }",
    output: ['undefined', 'undefined', 'undefined'],
  },
  'escape.dynamic-import': { body: 'export default async () => (0, eval)("import(\'node:fs\')")', fails: 'code-error', message: /not available/ },
  'escape.import-own-graph': {
    body: 'export default async () => (0, eval)("import(\'./escape.import-own-graph.md\')")',
    fails: 'code-error',
    message: /not available/,
  },
  'escape.globals': {
    body: "const names = ['process', 'require', 'module', 'global', 'fetch', 'setTimeout', 'setInterval', 'queueMicrotask', 'Buffer', 'Worker', 'WebAssembly', 'Intl', 'console', 'navigator', 'Deno', 'Bun', 'std', 'os'];\nexport default () => names.filter((n) => typeof globalThis[n] !== 'undefined')",
    output: [],
  },
  'escape.weakref-timing': { body: "export default () => new globalThis['Weak' + 'Ref']({}).deref()", fails: 'code-error', message: /TypeError/ },
  'escape.finalization': { body: "export default () => new globalThis['Finalization' + 'Registry'](() => {})", fails: 'code-error', message: /TypeError/ },
  'escape.shared-memory': { body: "export default () => new globalThis['Shared' + 'ArrayBuffer'](8)", fails: 'code-error', message: /TypeError/ },
  'escape.atomics': { body: "export default () => globalThis['Ato' + 'mics'].wait(new Int32Array(4), 0, 0, 1000)", fails: 'code-error', message: /TypeError/ },
  'escape.receipt-forgery': {
    body: 'export default async (input, tools, context) => context.receipt({ then() {} })',
    fails: 'code-error',
    message: /TypeError/,
  },
  'escape.spoofed-code': {
    body: "export default () => { throw Object.assign(new Error('pretend'), { code: 'limit-cpu' }); }",
    fails: 'code-error',
    message: /pretend/,
  },
  // Memory: one sandbox's limit holds for strings, arrays and buffers.
  'memory.string': { body: "export default () => 'x'.repeat(2 ** 27).length", fails: 'limit-memory' },
  'memory.array': { body: 'export default () => new Array(2 ** 26).fill(0.5).length', fails: 'limit-memory' },
  'memory.buffer': { body: 'export default () => new ArrayBuffer(2 ** 30).byteLength', fails: 'limit-memory' },
  'memory.promises': { body: 'export default () => { const all = []; for (;;) all.push(new Promise(() => {})); }', fails: 'limit-memory|limit-cpu' },
  'memory.recursion': {
    body: 'export default () => { const f = (n) => f(n + 1) + 1; return f(0); }',
    fails: 'code-error',
    message: /RangeError: Maximum call stack size exceeded/,
  },
  'memory.nesting': { body: 'export default () => { let a = []; for (let i = 0; i < 5000; i++) a = [a]; return a; }', fails: 'not-json' },
  'memory.cycle': { body: 'export default () => { const a = {}; a.self = a; return a; }', fails: 'not-json' },
  // Output: 100 MB does not fit in the 64 MB sandbox (the larger sandbox below hits the output limit).
  'output.huge': { body: "export default () => 'x'.repeat(100 * 1024 * 1024)", fails: 'limit-memory' },
  'output.tool-input': {
    body: "export default async (input, tools) => tools.leaf('x'.repeat(20 * 1024 * 1024))",
    tools: ['leaf'],
    fails: 'code-error',
    message: /output-too-large/,
  },
  'output.thrown-message': { body: "export default () => { throw new Error('x'.repeat(30 * 1024 * 1024)); }", fails: 'code-error' },
  // Calls and steps: storms past `limits`, and promises nothing can settle.
  'calls.parallel-storm': {
    body: 'export default async (input, tools) => Promise.all(Array.from({ length: 2000 }, (_, i) => tools.leaf(i)))',
    tools: ['leaf'],
    fails: 'code-error',
    message: /limit-calls/,
  },
  'calls.serial-storm': {
    body: 'export default async (input, tools) => { for (let i = 0; ; i++) await tools.leaf(i); }',
    tools: ['leaf'],
    fails: 'code-error',
    message: /limit-calls/,
  },
  'calls.next-loop': { body: 'export default (input) => input', extra: 'next:\n  to: calls.next-loop\n', fails: 'limit-steps' },
  'calls.never-settles': { body: 'export default () => new Promise(() => {})', fails: 'timeout' },
};

const root = tempDir('berrypack-hostile-');
let bundle: Bundle;
const limits: Partial<RuntimeLimits> = { cpuMs: 500, timeoutMs: 8_000, calls: 200 };
let runtime: Runtime;

// The host's own timer: it must keep ticking while hostile code runs in the sandbox.
let ticks = 0;
const timer = setInterval(() => ticks++, 10);

function routine(name: string, c: Pick<Case, 'body' | 'tools' | 'extra'>): string {
  const tools = c.tools ? `tools:\n${c.tools.map((t) => `  - ${t}\n`).join('')}` : '';
  return `---\nname: ${name}\ndescription: A hostile routine.\nlanguage: javascript\n${tools}${c.extra ?? ''}---\n${c.body}\n`;
}

function buildHostile(dir: string, cases: Record<string, Pick<Case, 'body' | 'tools' | 'extra'>>): Bundle | Promise<Bundle> {
  const all = {
    ...cases,
    leaf: { body: 'export default (input) => input' },
    ok: { body: 'export default (input) => ({ ok: true, input, random: Math.random() < 1 })' },
  };
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'plugin.json'),
    JSON.stringify({
      $schema: 'https://agent-plugins.org/schemas/1.0.0/plugin.schema.json',
      name: 'hostile.code',
      version: '1',
      extensions: { 'ai.strawberry.berry': { exports: Object.keys(all) } },
    }),
  );
  for (const [name, c] of Object.entries(all)) writeFileSync(path.join(dir, `${name}.md`), routine(name, c));
  const built = createCompiler({ store: path.join(root, 'store') }).build(path.join(dir, 'plugin.json'));
  if (!built.ok || !built.bundle) throw new Error(built.diagnostics.map((d) => `${d.file}:${d.line} ${d.code} ${d.message}`).join('\n'));
  return loadBundle(built.bundle.bytes);
}

async function run(rt: Runtime, b: Bundle, name: string, input: unknown = {}): Promise<{ outcome: Outcome; ms: number; ticks: number }> {
  const before = ticks;
  const started = performance.now();
  const { executionId } = await rt.start(rt.prepare(b), { export: name }, input);
  const outcome = await rt.result(executionId);
  return { outcome, ms: performance.now() - started, ticks: ticks - before };
}

beforeAll(async () => {
  bundle = await buildHostile(path.join(root, 'pkg'), CASES);
  runtime = createRuntime({ limits });
});

afterAll(async () => {
  clearInterval(timer);
  await runtime.close();
  cleanup(root);
});

describe('hostile code routines are contained by the whole runtime', () => {
  it.each(Object.entries(CASES))('%s', async (name, c) => {
    const { outcome, ms, ticks: ticked } = await run(runtime, bundle, name);
    if (c.fails !== undefined) {
      expect(outcome.status, JSON.stringify(outcome).slice(0, 500)).toBe('failed');
      if (outcome.status !== 'failed') return;
      expect(outcome.error.code).toMatch(new RegExp(`^(${c.fails})$`));
      if (c.message) expect(outcome.error.message).toMatch(c.message);
      // What reaches the host is bounded and names nothing of the host.
      expect(outcome.error.message.length).toBeLessThan(16_384);
      expect(outcome.error.message).not.toContain(ROOT);
      expect(outcome.error.message).not.toMatch(/node:internal|node_modules|worker\.(ts|js)|guest-runner/);
    } else {
      expect(outcome).toMatchObject({ status: 'completed', output: c.output });
    }
    // A generous ceiling: the execution's own timeout, ten times over.
    expect(ms).toBeLessThan(10 * limits.timeoutMs!);
    // The host stayed responsive: its 10 ms timer ticked at least a tenth as often as it could.
    if (ms > 300) expect(ticked, `${ticked} ticks in ${Math.round(ms)} ms`).toBeGreaterThanOrEqual(Math.floor(ms / 100));
    // The next ordinary execution is unaffected, in the same runtime and sandbox.
    const next = await run(runtime, bundle, 'ok', { after: name });
    expect(next.outcome).toMatchObject({ status: 'completed', output: { ok: true, input: { after: name }, random: true } });
  });

  it('keeps a storm of refused calls that it catches within the execution timeout', async () => {
    const short = createRuntime({ limits: { ...limits, timeoutMs: 1_500 } });
    const b = await buildHostile(path.join(root, 'catching'), {
      storm: { body: 'export default async (input, tools) => { for (;;) { try { await tools.leaf(1); } catch (e) {} } }', tools: ['leaf'] },
    });
    const { outcome, ms } = await run(short, b, 'storm');
    expect(outcome).toMatchObject({ status: 'failed', error: { code: 'timeout' } });
    expect(ms).toBeLessThan(15_000);
    const next = await run(short, b, 'ok', 1);
    expect(next.outcome.status).toBe('completed');
    await short.close();
  });

  it('refuses a 100 MB output at the output limit when the sandbox is large enough to build it', async () => {
    const large = createRuntime({ limits: { ...limits, cpuMs: 5_000, memoryBytes: 512 * 1024 * 1024 } });
    const { outcome } = await run(large, bundle, 'output.huge');
    expect(outcome).toMatchObject({ status: 'failed', error: { code: 'limit-output' } });
    await large.close();
  });

  it('refuses the direct forms of these names at build time (CODE-3, CODE-5)', () => {
    const dir = path.join(root, 'static');
    mkdirSync(dir, { recursive: true });
    const bodies: Record<string, string> = {
      'static.import': "export default async () => import('node:fs')",
      'static.process': 'export default () => process.exit(1)',
      'static.weakref': 'export default () => new WeakRef({})',
      'static.shared': 'export default () => new SharedArrayBuffer(8)',
      'static.timer': 'export default () => setTimeout(() => {}, 1)',
    };
    writeFileSync(
      path.join(dir, 'plugin.json'),
      JSON.stringify({
        $schema: 'https://agent-plugins.org/schemas/1.0.0/plugin.schema.json',
        name: 'hostile.static',
        version: '1',
        extensions: { 'ai.strawberry.berry': { exports: Object.keys(bodies) } },
      }),
    );
    for (const [name, body] of Object.entries(bodies)) writeFileSync(path.join(dir, `${name}.md`), routine(name, { body }));
    const built = createCompiler({ store: path.join(root, 'store') }).build(path.join(dir, 'plugin.json'));
    expect(built.ok).toBe(false);
    const refused = new Map(built.diagnostics.filter((d) => d.severity === 'error').map((d) => [path.basename(d.file, '.md'), d.rule]));
    expect(Object.fromEntries(refused)).toEqual({
      'static.import': 'CODE-3',
      'static.process': 'CODE-5',
      'static.weakref': 'CODE-5',
      'static.shared': 'CODE-5',
      'static.timer': 'CODE-5',
    });
  });

  // `memoryBytes` bounds the execution, not each sandbox: a routine that calls itself as a tool
  // keeps every level's VM alive, and all of them share the budget (docs/runtime-sandbox.md,
  // "Limits"). Before: 40 levels of 8 MB under a 16 MB limit grew the host by about 390 MB (100
  // levels of 12 MB by 1 GB); now the second level cannot allocate next to the first.
  it('bounds the memory of all the sandboxes of one execution, not only each one', async () => {
    const memoryBytes = 16 * 1024 * 1024;
    const nested = createRuntime({ limits: { ...limits, calls: 40, memoryBytes } });
    const b = await buildHostile(path.join(root, 'nested'), {
      nest: {
        body: 'export default async (input, tools) => { const keep = new Uint8Array(8 * 1024 * 1024).fill(1); await tools.nest({}); return keep.length; }',
        tools: ['nest'],
      },
    });
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
    try {
      const { outcome } = await run(nested, b, 'nest');
      expect(outcome.status).toBe('failed');
      // The call that would exceed the budget fails with the memory limit, and names it.
      expect(outcome.calls.find((c) => c.outcome !== undefined && 'error' in c.outcome && c.outcome.error.code === 'limit-memory')?.outcome).toMatchObject({
        error: { message: expect.stringMatching(/limits\.memoryBytes/) },
      });
    } finally {
      clearInterval(sampler);
      await nested.close();
    }
    expect(peak - before).toBeLessThan(8 * memoryBytes);
  });

  it('is still alive and responsive after all of that', async () => {
    const before = ticks;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(ticks - before).toBeGreaterThan(0);
    const { outcome } = await run(runtime, bundle, 'ok', 'last');
    expect(outcome).toMatchObject({ status: 'completed', output: { ok: true, input: 'last' } });
    // The cases above, the catching storm, the large-sandbox output and the five static refusals.
    recordFigure('hostile-code', { contained: Object.keys(CASES).length + 2, refusedAtBuild: 5 });
  });
});
