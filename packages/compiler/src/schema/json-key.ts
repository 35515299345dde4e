import type { YNode } from '../source/yaml-tree.js';

/** Deeper than any tree the YAML parser builds in practice; past it values count as distinct. */
const MAX_DEPTH = 2000;
let distinct = 0;

/**
 * A string equal for two nodes exactly when their JSON values are equal (SCH-8): object
 * keys sorted, numbers by value (`1` and `1.0` are one number). A `!ref` is kept apart
 * from a literal `{"!ref": …}` mapping, since one is an address and the other data.
 */
export function jsonKey(node: YNode): string {
  const key = (n: YNode, depth: number): string => {
    if (depth > MAX_DEPTH) return `\u0000${distinct++}`;
    switch (n.kind) {
      case 'scalar':
        return n.ref ? `!${JSON.stringify(String(n.value))}` : JSON.stringify(n.value);
      case 'seq':
        return `[${n.items.map((item) => key(item, depth + 1)).join(',')}]`;
      case 'map': {
        const entries = [...n.entries].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
        return `{${entries.map((e) => `${JSON.stringify(e.key)}:${key(e.value, depth + 1)}`).join(',')}}`;
      }
    }
  };
  return key(node, 0);
}
