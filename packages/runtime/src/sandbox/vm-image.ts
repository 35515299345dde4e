/**
 * Fresh VMs from a pristine image. Creating a QuickJS VM and evaluating the guest runner in it
 * costs about 4 ms here, most of it the engine's start-up and page faults on new linear memory.
 * A worker does that once (the template), keeps a copy of the template's whole linear memory,
 * and gives each invocation a new instance whose memory is overwritten with that copy, then
 * with what differs between invocations: the few bytes the engine derived from the invocation's
 * seed and clock while it was created (Math.random's state, the clock's origin). The VM an
 * invocation gets is byte for byte the one `QuickJS.create` and the runner would have made
 * for it: the worker checks exactly that against a VM created the slow way before it uses an
 * image, and creates every VM the slow way when the check fails (another quickjs-wasi, say).
 *
 * Memory: an instance imports its linear memory (imported-memory.ts). A memory whose VM has
 * ended, and that did not grow past the image, goes back to a small free list; the next
 * invocation's memory is overwritten in full before any guest code runs, so nothing of the
 * previous invocation survives in it. Its pages are already mapped, which is most of the gain.
 */
import type { JSValueHandle, QuickJS, QuickJSOptions, Snapshot } from 'quickjs-wasi';
import type { Engine } from './vm-run.js';
import { seedsOf, wasiImports, type Seeds } from './guest-environment.js';
import { GUEST_RUNNER_FILENAME } from './guest-runner.js';
import { MEMORY_IMPORT, type MemoryLimits } from './imported-memory.js';
import type { WorkerData } from './protocol.js';

/** What a WebAssembly.Memory offers (the project's libs declare no WebAssembly). */
export interface LinearMemory {
  readonly buffer: ArrayBuffer;
}
type MemoryConstructor = new (descriptor: { initial: number; maximum?: number }) => LinearMemory;
const WasmMemory = (globalThis as unknown as { WebAssembly: { Memory: MemoryConstructor } }).WebAssembly.Memory;

/** The options of a VM that do not change its memory image (vm-run.ts passes its handlers). */
export type VmHandlers = Pick<QuickJSOptions, 'interruptHandler' | 'moduleLoader'>;

export interface VmRequest {
  seed: number;
  epochMs: number;
  memoryBytes: number;
  handlers: VmHandlers;
  /** Whether the VM is still being created: the clock reads the seed then (guest-environment.ts). */
  creating: () => boolean;
}

export interface NewVm {
  vm: QuickJS;
  memory: LinearMemory;
  /** The runner factory already evaluated in the VM (owned, to dispose), or undefined: evaluate it. */
  runner: JSValueHandle | undefined;
  /** The VM is disposed: its memory may serve another one. */
  release(): void;
}

/** Free memories kept per worker: enough for a burst of concurrent invocations, bounded in bytes. */
const KEEP_FREE = 8;
/** Below this limit the runner's own evaluation could fail, as it would have before: such VMs are created the slow way. */
const MIN_IMAGE_LIMIT = 4 * 1024 * 1024;
/** The realtime clock at creation seeds Math.random's xorshift64*, which then takes one step (QuickJS-ng's context set-up). */
const XORSHIFT_MULTIPLIER = 0x2545f4914f6cdd1dn;
const MASK64 = (1n << 64n) - 1n;
/** QuickJS's NaN-boxing of a float64 JSValue on 32-bit targets: the double's bits minus (0x7ff80000 - JS_TAG_FIRST + 1) << 32, modulo 2^64. */
const FLOAT64_BOX = 0x8007fff600000000n;

/** One value the engine stores at creation, as it would store it for a given seed and clock. */
type Quantity = (q: Derived) => Uint8Array;

interface Derived {
  /** The bytes of each random_get the engine made while it was created, in order. */
  random: Uint8Array[];
  /** Math.random's seed: the realtime clock during creation, in microseconds. */
  micros: bigint;
  epochNs: bigint;
}

const QUANTITIES: Record<string, Quantity> = {
  ...Object.fromEntries([0, 1, 2, 3].map((i) => [`random${i}`, (q: Derived) => q.random[i] ?? new Uint8Array(0)])),
  randomState: (q) => u64(xorshiftStep(q.micros)),
  randomOutput: (q) => u64((xorshiftStep(q.micros) * XORSHIFT_MULTIPLIER) & MASK64).subarray(0, 4),
  originNs: (q) => u64(q.epochNs),
  originSeconds: (q) => u64(q.epochNs / 1_000_000_000n),
  originMs: (q) => f64(Number(q.epochNs) / 1e6),
  originMsValue: (q) => u64(((new BigUint64Array(new Float64Array([Number(q.epochNs) / 1e6]).buffer)[0] ?? 0n) + FLOAT64_BOX) & MASK64),
};

interface Slot {
  offset: number;
  quantity: string;
}

interface Image {
  snapshot: Snapshot;
  /** The runner factory's handle in the image (exportHandle). */
  runnerToken: number;
  randomLengths: number[];
  slots: Slot[];
  limits: MemoryLimits;
}

export class VmSource {
  private image: Promise<Image | undefined> | undefined;
  private ready: Image | undefined;
  private readonly free: LinearMemory[] = [];

  constructor(
    private readonly engine: Promise<Engine>,
    private readonly data: WorkerData,
  ) {}

  /** A VM for one invocation: from the image once there is one, else created the slow way. */
  async create(request: VmRequest): Promise<NewVm> {
    const image = request.memoryBytes >= MIN_IMAGE_LIMIT ? this.ready : undefined;
    if (image === undefined) return this.createSlowly(request);
    return this.restore(image, request);
  }

  /**
   * The worker has nothing to run: time to make the image, if it has none yet. Not before: its
   * three VMs and the engine's first compilation would delay the first invocation, all that a
   * one-off run pays for; the invocations that come while it is made are created the slow way.
   */
  idle(): void {
    void this.loadImage();
  }

  /** Whether VMs come from an image, once it is made (tests). */
  async usesImage(): Promise<boolean> {
    return (await this.loadImage()) !== undefined;
  }

  private loadImage(): Promise<Image | undefined> {
    this.image ??= this.calibrate().then(
      (image) => (this.ready = image),
      () => undefined,
    );
    return this.image;
  }

  /** A VM made as every VM was before images: `QuickJS.create`, the runner evaluated by the caller. */
  private async createSlowly(request: VmRequest): Promise<NewVm> {
    const limits = this.data.memoryLimits;
    const { vm, memory } = await this.instantiate(request, limits === undefined ? undefined : new WasmMemory(pagesOf(limits.initial, limits)));
    return { vm, memory, runner: undefined, release: () => undefined };
  }

  private async instantiate(request: VmRequest, memory: LinearMemory | undefined, randomLengths?: number[]): Promise<{ vm: QuickJS; memory: LinearMemory }> {
    const { QuickJS: Q, MAX_STACK_SIZE } = await this.engine;
    const seeds = seedsOf(request.seed);
    let linear: LinearMemory | undefined = memory;
    const vm = await Q.create({
      ...this.options(request),
      maxStackSize: MAX_STACK_SIZE,
      wasi: (m: LinearMemory) => {
        linear ??= m;
        const imports = wasiImports(m, recording(seeds, randomLengths), request.epochMs, request.creating);
        return memory === undefined ? imports : withMemory(imports, memory);
      },
    });
    if (linear === undefined) throw new Error('quickjs-wasi gave no linear memory');
    return { vm, memory: linear };
  }

  private options(request: VmRequest): Partial<QuickJSOptions> {
    return { ...request.handlers, wasm: this.data.wasm, memoryLimit: Math.min(2 ** 32 - 1, request.memoryBytes), timezoneOffset: 0 };
  }

  private async restore(image: Image, request: VmRequest): Promise<NewVm> {
    const { vm, memory } = await this.restoreImage(image, request);
    const runner = vm.importHandle(image.runnerToken);
    let released = false;
    return {
      vm,
      memory,
      runner,
      release: () => {
        if (released) return;
        released = true;
        // A VM that grew keeps its memory: a new one would not start from the image's size.
        if (memory.buffer.byteLength === image.snapshot.memory.byteLength && this.free.length < KEEP_FREE) this.free.push(memory);
      },
    };
  }

  /** A new instance on a free (or new) memory, overwritten with the image and patched for this seed and clock. */
  private async restoreImage(image: Image, request: VmRequest): Promise<{ vm: QuickJS; memory: LinearMemory }> {
    const { QuickJS: Q, MAX_STACK_SIZE } = await this.engine;
    const memory = this.free.pop() ?? new WasmMemory(pagesOf(image.snapshot.memory.byteLength / 65536, image.limits));
    const seeds = seedsOf(request.seed);
    // The random bytes the engine drew while the template was created, drawn again from this seed.
    const random = draw(seeds, image.randomLengths);
    const vm = await Q.restore(image.snapshot, {
      ...this.options(request),
      maxStackSize: MAX_STACK_SIZE,
      wasi: (m: LinearMemory) =>
        withMemory(
          wasiImports(m, seeds, request.epochMs, () => false),
          memory,
        ),
    });
    patch(memory, image, { random, micros: seeds.mathInitNs / 1000n, epochNs: epochNsOf(request.epochMs) });
    return { vm, memory };
  }

  /**
   * The template, where the engine stored what it derived from the seed and clock, and the
   * proof that patching those places makes the VM the slow way would: a VM created the slow way
   * for a third seed and clock must equal, byte for byte, the image restored and patched for them.
   */
  private async calibrate(): Promise<Image | undefined> {
    const limits = this.data.memoryLimits;
    if (limits === undefined) return undefined;
    const handlers: VmHandlers = { interruptHandler: () => false, moduleLoader: { normalize: () => '', load: () => '' } };
    const build = async (seed: number, epochMs: number, memoryBytes: number) => {
      const memory = new WasmMemory(pagesOf(limits.initial, limits));
      const randomLengths: number[] = [];
      let creating = true;
      const { vm } = await this.instantiate({ seed, epochMs, memoryBytes, handlers, creating: () => creating }, memory, randomLengths);
      creating = false;
      const runner = vm.evalCode(this.data.runner, GUEST_RUNNER_FILENAME);
      return { vm, runner, memory, randomLengths, bytes: new Uint8Array(memory.buffer) };
    };
    const template = await build(0.25, 1_000_000_000_000, 64 * 1024 * 1024);
    const other = await build(7, 1_750_000_000_000, 64 * 1024 * 1024);
    const slots = locate(template, other);
    if (slots === undefined) return undefined;
    const image: Image = {
      snapshot: template.vm.snapshot(),
      runnerToken: template.vm.exportHandle(template.runner),
      randomLengths: template.randomLengths,
      slots,
      limits,
    };
    const check = { seed: -12.5, epochMs: 1_234_567_890_123, memoryBytes: 48 * 1024 * 1024 };
    const slow = await build(check.seed, check.epochMs, check.memoryBytes);
    const fast = await this.restoreImage(image, { ...check, handlers, creating: () => false });
    const same = equalBytes(new Uint8Array(fast.memory.buffer), slow.bytes) && sameLengths(template.randomLengths, slow.randomLengths);
    for (const vm of [fast.vm, template.vm, other.vm, slow.vm]) vm.dispose();
    return same ? image : undefined;
  }
}

/** Where the template and a VM of another seed and clock differ, each difference named by the quantity stored there. */
function locate(a: { bytes: Uint8Array; randomLengths: number[] }, b: { bytes: Uint8Array; randomLengths: number[] }): Slot[] | undefined {
  if (a.bytes.length !== b.bytes.length || !sameLengths(a.randomLengths, b.randomLengths)) return undefined;
  const qa = derive(0.25, 1_000_000_000_000, a.randomLengths);
  const qb = derive(7, 1_750_000_000_000, b.randomLengths);
  const differs: number[] = [];
  // Compared a page at a time natively: the images are over a megabyte and differ in a few dozen bytes.
  for (let page = 0; page < a.bytes.length; page += 4096) {
    const end = Math.min(a.bytes.length, page + 4096);
    if (Buffer.compare(a.bytes.subarray(page, end), b.bytes.subarray(page, end)) === 0) continue;
    for (let i = page; i < end; i++) if (a.bytes[i] !== b.bytes[i]) differs.push(i);
  }
  const covered = new Set<number>();
  const slots: Slot[] = [];
  for (const [quantity, of] of Object.entries(QUANTITIES)) {
    const va = of(qa);
    const vb = of(qb);
    if (va.length === 0 || equalBytes(va, vb)) continue;
    const tried = new Set<number>();
    for (const d of differs) {
      for (let offset = Math.max(0, d - va.length + 1); offset <= d; offset++) {
        if (tried.has(offset)) continue;
        tried.add(offset);
        if (equalAt(a.bytes, offset, va) && equalAt(b.bytes, offset, vb)) {
          slots.push({ offset, quantity });
          for (let i = 0; i < va.length; i++) covered.add(offset + i);
        }
      }
    }
  }
  return differs.every((d) => covered.has(d)) ? slots : undefined;
}

function derive(seed: number, epochMs: number, randomLengths: number[]): Derived {
  const seeds = seedsOf(seed);
  const random = draw(seeds, randomLengths);
  return { random, micros: seeds.mathInitNs / 1000n, epochNs: epochNsOf(epochMs) };
}

/** random_get of these lengths, in order, from the seeds (advancing them as the engine's own calls did). */
function draw(seeds: Seeds, lengths: number[]): Uint8Array[] {
  return lengths.map((n) => {
    const bytes = new Uint8Array(n);
    seeds.fill(bytes);
    return bytes;
  });
}

function patch(memory: LinearMemory, image: Image, q: Derived): void {
  const bytes = new Uint8Array(memory.buffer);
  for (const slot of image.slots) bytes.set((QUANTITIES[slot.quantity] as Quantity)(q), slot.offset);
}

/** The seeds, noting the length of each random_get. */
function recording(seeds: Seeds, lengths: number[] | undefined): Seeds {
  if (lengths === undefined) return seeds;
  return {
    ...seeds,
    fill: (bytes) => {
      lengths.push(bytes.length);
      seeds.fill(bytes);
    },
  };
}

/** The WASI imports and the memory the module imports beside them (quickjs-wasi types them as functions only). */
function withMemory<T extends object>(imports: T, memory: LinearMemory): T {
  return { ...imports, [MEMORY_IMPORT.name]: memory };
}

/** The clock guest-environment.ts gives a VM, in nanoseconds. */
function epochNsOf(epochMs: number): bigint {
  return BigInt(Math.max(0, Math.floor(epochMs))) * 1_000_000n;
}

function xorshiftStep(state: bigint): bigint {
  let x = state === 0n ? 1n : state;
  x ^= x >> 12n;
  x ^= (x << 25n) & MASK64;
  x ^= x >> 27n;
  return x & MASK64;
}

function u64(v: bigint): Uint8Array {
  return new Uint8Array(new BigUint64Array([v]).buffer);
}

function f64(v: number): Uint8Array {
  return new Uint8Array(new Float64Array([v]).buffer);
}

function pagesOf(initial: number, limits: MemoryLimits): { initial: number; maximum?: number } {
  return limits.maximum === undefined ? { initial } : { initial, maximum: limits.maximum };
}

function equalAt(bytes: Uint8Array, offset: number, value: Uint8Array): boolean {
  if (offset + value.length > bytes.length) return false;
  for (let i = 0; i < value.length; i++) if (bytes[offset + i] !== value[i]) return false;
  return true;
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.compare(a, b) === 0;
}

function sameLengths(a: number[], b: number[]): boolean {
  return a.length === b.length && a.every((n, i) => n === b[i]);
}
