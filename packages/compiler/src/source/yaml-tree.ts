import type { Span } from '../diagnostics/reporter.js';

/** A JSON-shaped view of the frontmatter that keeps every node's span in the file. */
export type YNode = YScalar | YMap | YSeq;

export type ScalarStyle = 'plain' | 'single' | 'double' | 'literal' | 'folded';

export interface YScalar {
  kind: 'scalar';
  span: Span;
  value: string | number | boolean | null;
  style: ScalarStyle;
  /** `!ref name`: a captured address, only allowed where REF-4 says. */
  ref: boolean;
  /** True when the value was absent (`key:` with nothing after it). */
  empty: boolean;
}

export interface YEntry {
  key: string;
  keySpan: Span;
  value: YNode;
  /** From the key to the end of the value. */
  span: Span;
}

export interface YMap {
  kind: 'map';
  span: Span;
  flow: boolean;
  entries: YEntry[];
}

export interface YSeq {
  kind: 'seq';
  span: Span;
  flow: boolean;
  items: YNode[];
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
