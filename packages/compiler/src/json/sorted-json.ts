import type { YEntry, YNode } from '../source/yaml-tree.js';

/** What `sortedJson` answers for a tree only the exact serializer may write. */
export const NOT_SORTABLE: unique symbol = Symbol('not sortable');

/** Below canonicalJson's MAX_JSON_DEPTH with room for the containers around a tree. */
const SHALLOW = 512;

/** Digits-only keys that JavaScript objects always enumerate first, in numeric order. */
const ARRAY_INDEX = /^(?:0|[1-9][0-9]{0,9})$/;

/**
 * `toJson(node)` (`!ref` scalars as `{"!ref": name}`) with every mapping's keys set in
 * canonical order (UTF-16 code units, RFC 8785), so `JSON.stringify` of it is its canonical
 * JSON text with no sorted copies and no check of each value on the way: the tree is made of
 * scalars, lists and mappings only. `NOT_SORTABLE` for what `JSON.stringify` would write
 * otherwise than `canonicalJson`: a number that is not finite, a key JavaScript enumerates
 * before the others (an array index) or cannot create by assignment (`__proto__`). Lone
 * surrogates are the caller's to find in the text (`trustedJson`).
 */
export function sortedJson(node: YNode, depth = 0): unknown {
  // Frontmatter nests at most 256 levels (MAX_YAML_DEPTH); far deeper is canonicalJson's to refuse.
  if (depth >= SHALLOW) return NOT_SORTABLE;
  switch (node.kind) {
    case 'scalar': {
      if (node.ref) return { '!ref': String(node.value) };
      const value = node.value;
      return typeof value === 'number' && value - value !== 0 ? NOT_SORTABLE : value;
    }
    case 'seq': {
      const items = node.items;
      const out = new Array<unknown>(items.length);
      for (let i = 0; i < items.length; i++) {
        const item = sortedJson(items[i]!, depth + 1);
        if (item === NOT_SORTABLE) return NOT_SORTABLE;
        out[i] = item;
      }
      return out;
    }
    case 'map': {
      const written = node.entries;
      const n = written.length;
      let sorted = true;
      for (let i = 0; i < n; i++) {
        const key = written[i]!.key;
        if (key === '__proto__' || (key.charCodeAt(0) <= 0x39 && ARRAY_INDEX.test(key))) return NOT_SORTABLE;
        if (i > 0 && written[i - 1]!.key > key) sorted = false;
      }
      const entries = sorted ? written : byKey(written);
      const out: Record<string, unknown> = {};
      for (let i = 0; i < n; i++) {
        const e = entries[i]!;
        const value = sortedJson(e.value, depth + 1);
        if (value === NOT_SORTABLE) return NOT_SORTABLE;
        // A repeated key keeps its first place and its last value, as in `toJson`.
        out[e.key] = value;
      }
      return out;
    }
  }
}

/**
 * The entries in key order by an insertion sort, as `canonicalJson` sorts keys: mappings have a
 * handful of keys, and a cold process sorts them several times faster than with a
 * comparator. Stable, so a repeated key's last value is the one assigned last.
 */
function byKey(entries: readonly YEntry[]): YEntry[] {
  const out = entries.slice();
  for (let i = 1; i < out.length; i++) {
    const e = out[i]!;
    let j = i - 1;
    while (j >= 0 && out[j]!.key > e.key) {
      out[j + 1] = out[j]!;
      j--;
    }
    out[j + 1] = e;
  }
  return out;
}
