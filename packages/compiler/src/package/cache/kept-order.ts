/** Element-wise identity (`===`) of two lists. */
export function sameItems(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** `items` whose key is defined, ordered by key (a stable sort: equal keys keep their order). */
export function sortedByKey<T>(items: readonly T[], keyOf: (item: T) => string | undefined): T[] {
  return orderOf(items.map(keyOf)).map((i) => items[i]!);
}

/**
 * Orders kept per scope: a rebuild whose items come with the same keys in the same sequence
 * reuses the order found before instead of sorting again.
 */
export class KeptOrders {
  readonly #orders = new Map<string, { keys: readonly (string | undefined)[]; order: readonly number[] }>();

  /** As `sortedByKey`, with the order kept for `scope`. */
  sorted<T>(scope: string, items: readonly T[], keyOf: (item: T) => string | undefined): T[] {
    const keys = items.map(keyOf);
    const known = this.#orders.get(scope);
    let order = known?.order;
    if (known === undefined || !sameItems(known.keys, keys)) {
      order = orderOf(keys);
      this.#orders.set(scope, { keys, order });
    }
    return order!.map((i) => items[i]!);
  }
}

function orderOf(keys: readonly (string | undefined)[]): number[] {
  const order: number[] = [];
  for (let i = 0; i < keys.length; i++) if (keys[i] !== undefined) order.push(i);
  return order.sort((a, b) => {
    const x = keys[a]!;
    const y = keys[b]!;
    return x < y ? -1 : x > y ? 1 : 0;
  });
}
