import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { QuickJSOptions } from 'quickjs-wasi';
import { afterAll, describe, expect, it } from 'vitest';
import { createSandbox, DEFAULT_SANDBOX_LIMITS, type SandboxInvocation, type SandboxResult } from '../src/sandbox/index.js';
import { GUEST_RUNNER_SOURCE } from '../src/sandbox/guest-runner.js';
import { importMemory } from '../src/sandbox/imported-memory.js';
import { VmSource, type VmRequest } from '../src/sandbox/vm-image.js';
import type { Engine } from '../src/sandbox/vm-run.js';

const require = createRequire(import.meta.url);
const original = new Uint8Array(readFileSync(require.resolve('quickjs-wasi/quickjs.wasm')));

interface ModuleApi {
  imports(m: unknown): { module: string; name: string; kind: string }[];
  exports(m: unknown): { name: string; kind: string }[];
}
const wasmApi = (globalThis as unknown as { WebAssembly: { compile(b: Uint8Array): Promise<QuickJSOptions['wasm']>; Module: ModuleApi } }).WebAssembly;

const engine = import('quickjs-wasi') as Promise<Engine>;

/** A worker's VM source; with `imported` (the rewritten module), its image is made before it is returned. */
async function source(imported: boolean, made = true): Promise<VmSource> {
  const rewritten = importMemory(original);
  if (rewritten === undefined) throw new Error('the pinned quickjs.wasm was not rewritten');
  const wasm = await wasmApi.compile(imported ? rewritten.bytes : original);
  const vms = new VmSource(engine, {
    wasm,
    memoryLimits: imported ? rewritten.limits : undefined,
    runner: GUEST_RUNNER_SOURCE,
    quickjsUrl: '',
    watch: new SharedArrayBuffer(16),
  });
  if (imported && made && !(await vms.usesImage())) throw new Error('no image');
  return vms;
}

function request(extra: Partial<VmRequest> = {}): VmRequest {
  return {
    seed: 5,
    epochMs: 1_700_000_000_000,
    memoryBytes: 64 * 1024 * 1024,
    creating: () => false,
    handlers: { interruptHandler: () => false, moduleLoader: { normalize: () => '', load: () => '' } },
    ...extra,
  };
}

describe('the memory import', () => {
  it('makes the pinned quickjs.wasm import its one memory and still export it', async () => {
    const rewritten = importMemory(original);
    expect(rewritten).toBeDefined();
    const before = await wasmApi.compile(original);
    const after = await wasmApi.compile(rewritten!.bytes);
    expect(wasmApi.Module.imports(before).filter((i) => i.kind === 'memory')).toEqual([]);
    expect(wasmApi.Module.imports(after).filter((i) => i.kind === 'memory')).toEqual([{ module: 'wasi_snapshot_preview1', name: 'memory', kind: 'memory' }]);
    expect(wasmApi.Module.exports(after)).toEqual(wasmApi.Module.exports(before));
    expect(wasmApi.Module.imports(after).length).toBe(wasmApi.Module.imports(before).length + 1);
    expect(rewritten!.limits.initial).toBeGreaterThan(0);
  });

  it('declines what is not a module with one memory', () => {
    expect(importMemory(new TextEncoder().encode('not wasm at all'))).toBeUndefined();
    // A module with only its header: no import or memory section.
    expect(importMemory(Uint8Array.of(0, 0x61, 0x73, 0x6d, 1, 0, 0, 0))).toBeUndefined();
    expect(importMemory(importMemory(original)!.bytes)).toBeUndefined();
  });
});

describe('VMs from the image', () => {
  it('are used with the rewritten module (a restored VM equals, byte for byte, one created for the same seed and clock)', async () => {
    expect(await (await source(true)).usesImage()).toBe(true);
    const plain = await source(false);
    expect(await plain.usesImage()).toBe(false);
    const created = await plain.create(request());
    expect(created.runner).toBeUndefined();
    created.vm.dispose();
  });

  it('are not used before the image is made, nor under a limit the runner itself could exceed', async () => {
    const vms = await source(true, false);
    const before = await vms.create(request());
    expect(before.runner).toBeUndefined();
    before.vm.dispose();
    vms.idle();
    expect(await vms.usesImage()).toBe(true);
    const small = await vms.create(request({ memoryBytes: 3 * 1024 * 1024 }));
    expect(small.runner).toBeUndefined();
    small.vm.dispose();
    const after = await vms.create(request());
    expect(after.runner).toBeDefined();
    after.vm.dispose();
  });

  it('overwrite a memory a finished VM held before any guest code runs', async () => {
    const vms = await source(true);
    const first = await vms.create(request());
    expect(first.runner).toBeDefined();
    first.vm.evalCode(`globalThis.secret = 'MARKER-' + 'b3rry'.repeat(20); Object.prototype.polluted = 1; 0`).dispose();
    const marker = Buffer.from('MARKER-b3rryb3rry');
    const holds = (buffer: ArrayBuffer) => Buffer.from(buffer).includes(marker);
    expect(holds(first.memory.buffer)).toBe(true);
    const memory = first.memory;
    first.runner!.dispose();
    first.vm.dispose();
    first.release();

    const second = await vms.create(request());
    expect(second.memory).toBe(memory);
    expect(holds(second.memory.buffer)).toBe(false);
    expect(second.vm.evalCode(`[typeof globalThis.secret, ({}).polluted === undefined].join()`).toString()).toBe('undefined,true');
    second.runner!.dispose();
    second.vm.dispose();
    second.release();
  });

  it('do not take back a memory that grew past the image', async () => {
    const vms = await source(true);
    const first = await vms.create(request());
    first.vm.evalCode(`globalThis.big = 'x'.repeat(4 * 1024 * 1024); 0`).dispose();
    const memory = first.memory;
    first.runner!.dispose();
    first.vm.dispose();
    first.release();
    const second = await vms.create(request());
    expect(second.memory).not.toBe(memory);
    expect(second.memory.buffer.byteLength).toBeLessThan(memory.buffer.byteLength);
    second.vm.dispose();
  });
});

describe('a routine sees the same from an image as from a VM created for it', () => {
  const sandbox = createSandbox({ workers: 1 });
  afterAll(() => sandbox.close());
  const probe = `export default function () {
    const bytes = crypto.getRandomValues(new Uint8Array(8));
    return {
      now: Date.now(), date: new Date().toISOString(), ctor: Date(), perf: performance.now(), origin: performance.timeOrigin,
      random: Array.from({ length: 8 }, () => Math.random()), bytes: Array.from(bytes), uuid: crypto.randomUUID(),
    };
  }`;
  const invoke = (seed: number, epochMs: number, memoryBytes: number): Promise<SandboxResult> =>
    sandbox.invoke(
      {
        modules: [{ path: 'routines/probe.md', source: probe }],
        entry: 'routines/probe.md',
        input: null,
        tools: [],
        context: { catalog: false, ports: { input: false, output: false } },
        clock: { epochMs },
        seed,
        limits: { ...DEFAULT_SANDBOX_LIMITS, memoryBytes },
      } satisfies SandboxInvocation,
      { callTool: () => Promise.reject(new Error('no tools')) },
    );

  it('for every seed and clock: Math.random, Date, performance and crypto', async () => {
    const seen = new Set<string>();
    for (const seed of [0, 1, -1, 0.5, 42, 2 ** 53, 1e-300, -12.5]) {
      for (const epochMs of [0, 1, 999.9, 1_700_000_000_000, 4_102_444_800_000]) {
        // Below 4 MiB the worker creates the VM as it always did; above, it restores the image.
        const slow = await invoke(seed, epochMs, 3 * 1024 * 1024);
        const fast = await invoke(seed, epochMs, 64 * 1024 * 1024);
        expect(slow.ok ? true : slow.error).toBe(true);
        expect(fast).toEqual(slow);
        if (fast.ok) seen.add(JSON.stringify((fast.output as { random: number[] }).random));
      }
    }
    // Every seed gave its own sequence (the clock does not seed Math.random after creation).
    expect(seen.size).toBe(8);
  });
});
