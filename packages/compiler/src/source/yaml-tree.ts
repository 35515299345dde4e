import type { Span } from '../diagnostics/reporter.js';

/** A JSON-shaped view of the frontmatter that keeps every node's span in the file. */
export type YNode = YScalar | YMap | YSeq;

export type ScalarStyle = 'plain' | 'single' | 'double' | 'literal' | 'folded';

export interface YScalar {
  kind: 'scalar';
  readonly span: Span;
  value: string | number | boolean | null;
  style: ScalarStyle;
  /** `!ref name`: a captured address, only allowed where REF-4 says. */
  ref: boolean;
  /** True when the value was absent (`key:` with nothing after it). */
  empty: boolean;
}

export interface YEntry {
  key: string;
  readonly keySpan: Span;
  value: YNode;
  /** From the key to the end of the value. */
  readonly span: Span;
}

export interface YMap {
  kind: 'map';
  readonly span: Span;
  flow: boolean;
  entries: YEntry[];
}

export interface YSeq {
  kind: 'seq';
  readonly span: Span;
  flow: boolean;
  items: YNode[];
}

/*
 * What the readers of frontmatter (yaml.ts, fast-frontmatter.ts, parse-json.ts) build: each
 * node keeps its span as two numbers, and a `Span` is made when one is read. A cold build keeps
 * every located tree alive to the end, and a span object per node plus two per entry were about
 * a third of its heap objects (docs/performance.md, round five, wt-cold). Spans are read for
 * diagnostics and a few names, not per node in a clean build.
 */

/** A node's span as two numbers, made into a `Span` when read. */
abstract class Located {
  constructor(
    public start: number,
    public end: number,
  ) {}

  get span(): Span {
    return { start: this.start, end: this.end };
  }
}

export class ScalarNode extends Located implements YScalar {
  readonly kind = 'scalar';
  constructor(
    start: number,
    end: number,
    public value: YScalar['value'],
    public style: ScalarStyle,
    public ref: boolean,
    public empty: boolean,
  ) {
    super(start, end);
  }
}

export class MapNode extends Located implements YMap {
  readonly kind = 'map';
  constructor(
    start: number,
    end: number,
    public flow: boolean,
    public entries: YEntry[],
  ) {
    super(start, end);
  }
}

export class SeqNode extends Located implements YSeq {
  readonly kind = 'seq';
  constructor(
    start: number,
    end: number,
    public flow: boolean,
    public items: YNode[],
  ) {
    super(start, end);
  }
}

export class EntryNode implements YEntry {
  constructor(
    public key: string,
    public keyStart: number,
    public keyEnd: number,
    public value: YNode,
  ) {}

  get keySpan(): Span {
    return { start: this.keyStart, end: this.keyEnd };
  }

  get span(): Span {
    return { start: this.keyStart, end: Math.max(this.keyEnd, this.value.span.end) };
  }
}

export function entry(map: YMap, key: string): YEntry | undefined {
  return map.entries.find((e) => e.key === key);
}

export function isString(node: YNode | undefined): node is YScalar & { value: string } {
  return node?.kind === 'scalar' && typeof node.value === 'string' && !node.ref;
}

/** Marker object a `!ref` scalar becomes in JSON data, so it is never confused with `{$ref}`. */
export interface RefValue {
  '!ref': string;
}

/** The JSON value of a node; `!ref` scalars become `{"!ref": name}`. */
export function toJson(node: YNode): unknown {
  switch (node.kind) {
    case 'scalar':
      return node.ref ? ({ '!ref': String(node.value) } satisfies RefValue) : node.value;
    case 'seq':
      return node.items.map(toJson);
    case 'map': {
      const out: Record<string, unknown> = {};
      for (const e of node.entries) out[e.key] = toJson(e.value);
      return out;
    }
  }
}

export function describeNode(node: YNode): string {
  if (node.kind === 'map') return 'a mapping';
  if (node.kind === 'seq') return 'a list';
  if (node.ref) return 'a `!ref`';
  if (node.value === null) return node.empty ? 'nothing (null)' : 'null';
  if (typeof node.value === 'string') return 'a string';
  if (typeof node.value === 'boolean') return 'a boolean';
  return 'a number';
}
