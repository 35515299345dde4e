/**
 * quickjs-wasi's module defines its own linear memory, so every instance maps fresh pages and
 * pays a page fault on each one it touches (about 20 µs each on the project's VMs: more than the
 * engine's own start-up). This rewrites the module's binary to import that memory instead
 * (`wasi_snapshot_preview1.memory`, the one import namespace quickjs-wasi lets the caller fill),
 * so a worker can hand an instance a memory a finished VM held, after overwriting all of it
 * (vm-image.ts). Nothing else of the module changes: an imported memory takes index 0 as the
 * defined one did, and the export of `memory` still names it.
 */

export const MEMORY_IMPORT = { module: 'wasi_snapshot_preview1', name: 'memory' } as const;

export interface MemoryLimits {
  /** In 64 KiB pages. */
  initial: number;
  maximum: number | undefined;
}

const SECTION_IMPORT = 2;
const SECTION_MEMORY = 5;
const KIND_MEMORY = 2;

/** The module's bytes with its one memory imported, and that memory's limits; undefined for a layout it does not expect. */
export function importMemory(bytes: Uint8Array): { bytes: Uint8Array; limits: MemoryLimits } | undefined {
  if (bytes.length < 8 || bytes[0] !== 0 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d) return undefined;
  const sections: { id: number; start: number; payload: number; end: number }[] = [];
  let p = 8;
  while (p < bytes.length) {
    const start = p;
    const id = bytes[p++] as number;
    const size = readU32(bytes, p);
    if (size === undefined) return undefined;
    const payload = size.next;
    p = payload + size.value;
    if (p > bytes.length) return undefined;
    sections.push({ id, start, payload, end: p });
  }
  const memories = sections.filter((s) => s.id === SECTION_MEMORY);
  const imports = sections.filter((s) => s.id === SECTION_IMPORT);
  if (memories.length !== 1 || imports.length !== 1) return undefined;
  const memory = memories[0] as (typeof sections)[number];
  const imported = imports[0] as (typeof sections)[number];

  const count = readU32(bytes, memory.payload);
  if (count === undefined || count.value !== 1) return undefined;
  const limitsBytes = bytes.subarray(count.next, memory.end);
  // 0: minimum only, 1: minimum and maximum; shared or 64-bit memories are not expected.
  const flags = limitsBytes[0];
  if (flags !== 0 && flags !== 1) return undefined;
  const min = readU32(bytes, count.next + 1);
  if (min === undefined) return undefined;
  const max = flags === 1 ? readU32(bytes, min.next) : undefined;
  if (flags === 1 && max === undefined) return undefined;
  if ((max?.next ?? min.next) !== memory.end) return undefined;

  const importCount = readU32(bytes, imported.payload);
  if (importCount === undefined) return undefined;
  const payload = concat([
    u32(importCount.value + 1),
    bytes.subarray(importCount.next, imported.end),
    name(MEMORY_IMPORT.module),
    name(MEMORY_IMPORT.name),
    Uint8Array.of(KIND_MEMORY),
    limitsBytes,
  ]);
  const parts: Uint8Array[] = [bytes.subarray(0, 8)];
  for (const s of sections) {
    if (s.id === SECTION_MEMORY) continue;
    parts.push(s.id === SECTION_IMPORT ? concat([Uint8Array.of(SECTION_IMPORT), u32(payload.length), payload]) : bytes.subarray(s.start, s.end));
  }
  return { bytes: concat(parts), limits: { initial: min.value, maximum: max?.value } };
}

function readU32(bytes: Uint8Array, at: number): { value: number; next: number } | undefined {
  let value = 0;
  let shift = 0;
  let p = at;
  for (;;) {
    if (p >= bytes.length || shift > 28) return undefined;
    const b = bytes[p++] as number;
    value += (b & 0x7f) * 2 ** shift;
    shift += 7;
    if ((b & 0x80) === 0) return { value, next: p };
  }
}

function u32(n: number): Uint8Array {
  const out: number[] = [];
  let v = n;
  do {
    let b = v & 0x7f;
    v = Math.floor(v / 128);
    if (v !== 0) b |= 0x80;
    out.push(b);
  } while (v !== 0);
  return Uint8Array.from(out);
}

function name(text: string): Uint8Array {
  const b = new TextEncoder().encode(text);
  return concat([u32(b.length), b]);
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, a) => n + a.length, 0));
  let o = 0;
  for (const a of parts) {
    out.set(a, o);
    o += a.length;
  }
  return out;
}
