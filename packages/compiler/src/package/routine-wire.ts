import { LineIndex } from '../diagnostics/line-index.js';
import type { RoutineSource } from '../routine/check-routine.js';
import type { SourceKind } from '../routine/context.js';
import type { CopiedField } from '../routine/routine-facts.js';
import { decodeSourceText } from '../source/normalize-text.js';
import { EntryNode, MapNode, ScalarNode, SeqNode, type ScalarStyle, type YEntry, type YMap, type YNode } from '../source/yaml-tree.js';
import type { CheckedSource } from './cache/source-cache.js';

/*
 * A clean source as a cold build's worker checked it, in a form JSON carries exactly: what the
 * build keeps of it (compact-routine.ts: the routine facts and the few tree nodes resolution
 * reads, with their spans), never the text, which the receiving thread decodes from the bytes it
 * gets beside. Round six measured a whole located tree as JSON cost more to receive than to
 * check; the compacted routine is a fraction of it (docs/performance.md, round nine, wt-par).
 */

/** A node: scalar `[0, start, end, value, style, ref, empty]`, map `[1, start, end, flow, key, keyStart, keyEnd, node, …]`, sequence `[2, start, end, flow, node, …]`. */
type NodeWire = unknown[];

export interface RoutineWire {
  kind: SourceKind;
  name?: string;
  nameSpan: [number, number];
  bodyStart: number;
  fenceSpan: [number, number];
  frontmatter: NodeWire;
  /** `[key, keyStart, keyEnd, plain, wire]` per copied field. */
  copied: [string, number, number, unknown, string][];
  selection?: unknown;
  calls: readonly string[];
  classification: boolean;
}

const STYLES: readonly ScalarStyle[] = ['plain', 'single', 'double', 'literal', 'folded'];

/**
 * The wire form of a checked source, or undefined where JSON would not give back the same: a
 * source with any diagnostic or without facts (the receiving thread checks it from the bytes,
 * so its diagnostics are made where they always are), `-0`, a non-finite number, a key that
 * sets a prototype (`__proto__`), `undefined` inside a value, a field only the whole entry's
 * canonical JSON may write.
 */
export function routineWire(checked: CheckedSource): RoutineWire | undefined {
  const r = checked.routine;
  if (checked.status !== 'source' || checked.diagnostics.length > 0 || r === undefined || r.facts === undefined) return undefined;
  const frontmatter = nodeWire(r.frontmatter);
  if (frontmatter === undefined) return undefined;
  const copied: RoutineWire['copied'] = [];
  for (const f of r.facts.copied) {
    if (f.wire === undefined || !plainJson(f.plain)) return undefined;
    copied.push([f.key, f.keyStart, f.keyEnd, f.plain, f.wire]);
  }
  const { selection, calls, classification } = r.facts;
  if (selection !== undefined && !plainJson(selection)) return undefined;
  return {
    kind: r.kind,
    ...(r.name === undefined ? {} : { name: r.name }),
    nameSpan: [r.nameSpan.start, r.nameSpan.end],
    bodyStart: r.bodyStart,
    fenceSpan: [r.fenceSpan.start, r.fenceSpan.end],
    frontmatter,
    copied,
    ...(selection === undefined ? {} : { selection }),
    calls,
    classification,
  };
}

/** The checked source `routineWire` described, for the bytes it was made from; `digest` as the source cache keeps it. */
export function reviveChecked(file: string, bytes: Uint8Array, wire: RoutineWire, digest: string): CheckedSource | undefined {
  const decoded = decodeSourceText(bytes);
  if (!decoded.ok) return undefined;
  const text = decoded.text;
  const copied: CopiedField[] = wire.copied.map(([key, keyStart, keyEnd, plain, w]) => ({ key, keyStart, keyEnd, plain, wire: w }));
  const routine: RoutineSource = {
    file,
    text,
    lines: new LineIndex(text),
    frontmatter: reviveNode(wire.frontmatter) as YMap,
    body: text.slice(wire.bodyStart),
    bodyStart: wire.bodyStart,
    fenceSpan: { start: wire.fenceSpan[0], end: wire.fenceSpan[1] },
    kind: wire.kind,
    name: wire.name,
    nameSpan: { start: wire.nameSpan[0], end: wire.nameSpan[1] },
    facts: { copied, selection: wire.selection, calls: wire.calls, classification: wire.classification },
  };
  return { status: 'source', routine, diagnostics: [], digest };
}

function nodeWire(node: YNode): NodeWire | undefined {
  const { start, end } = node.span;
  if (node.kind === 'scalar') {
    if (typeof node.value === 'number' && !plainNumber(node.value)) return undefined;
    return [0, start, end, node.value, STYLES.indexOf(node.style), node.ref, node.empty];
  }
  const out: unknown[] = [node.kind === 'map' ? 1 : 2, start, end, node.flow];
  if (node.kind === 'map') {
    for (const e of node.entries) {
      const value = nodeWire(e.value);
      if (value === undefined) return undefined;
      out.push(e.key, e.keySpan.start, e.keySpan.end, value);
    }
  } else {
    for (const item of node.items) {
      const value = nodeWire(item);
      if (value === undefined) return undefined;
      out.push(value);
    }
  }
  return out;
}

function reviveNode(w: NodeWire): YNode {
  const start = w[1] as number;
  const end = w[2] as number;
  if (w[0] === 0) return new ScalarNode(start, end, w[3] as ScalarNode['value'], STYLES[w[4] as number]!, w[5] as boolean, w[6] as boolean);
  if (w[0] === 1) {
    const entries: YEntry[] = [];
    for (let i = 4; i < w.length; i += 4) entries.push(new EntryNode(w[i] as string, w[i + 1] as number, w[i + 2] as number, reviveNode(w[i + 3] as NodeWire)));
    return new MapNode(start, end, w[3] as boolean, entries);
  }
  const items: YNode[] = [];
  for (let i = 4; i < w.length; i++) items.push(reviveNode(w[i] as NodeWire));
  return new SeqNode(start, end, w[3] as boolean, items);
}

/** Whether JSON text gives back exactly this value: plain objects and arrays, strings, booleans, null, finite numbers other than -0. */
function plainJson(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return plainNumber(value);
    case 'object':
      if (value === null) return true;
      if (Array.isArray(value)) {
        // A loop, not `every`: a hole, which JSON gives back as null, is not plain.
        for (let i = 0; i < value.length; i++) if (!(i in value) || !plainJson(value[i])) return false;
        return true;
      }
      if (Object.getPrototypeOf(value) !== Object.prototype) return false;
      for (const key in value) {
        if (key === '__proto__' || !Object.hasOwn(value, key) || !plainJson((value as Record<string, unknown>)[key])) return false;
      }
      return true;
    default:
      return false;
  }
}

function plainNumber(n: number): boolean {
  return Number.isFinite(n) && !Object.is(n, -0);
}
