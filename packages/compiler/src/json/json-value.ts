import type { YNode } from '../source/yaml-tree.js';

/**
 * The JSON value of a parsed manifest node. Iterative, and keys become own properties
 * even when named `__proto__`, so manifest metadata copies into a bundle unchanged.
 */
export function jsonValue(node: YNode): unknown {
  const result: { value: unknown } = { value: undefined };
  const work: { node: YNode; store: (value: unknown) => void }[] = [{ node, store: (v) => (result.value = v) }];
  while (work.length > 0) {
    const { node: n, store } = work.pop()!;
    if (n.kind === 'scalar') store(n.value);
    else if (n.kind === 'seq') {
      const out: unknown[] = new Array<unknown>(n.items.length);
      store(out);
      n.items.forEach((item, index) => work.push({ node: item, store: (v) => (out[index] = v) }));
    } else {
      const out: Record<string, unknown> = {};
      store(out);
      // Defined now, in order, so the key order survives the stack's reverse processing.
      const define = (key: string, value: unknown) => Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
      for (const e of n.entries) {
        define(e.key, undefined);
        work.push({ node: e.value, store: (v) => define(e.key, v) });
      }
    }
  }
  return result.value;
}
