import { canonicalJson, RawJson } from '../../bundle/canonical-json.js';
import { KeptOrders, sameItems } from './kept-order.js';
import { Sweeper } from './sweeper.js';

interface Memo {
  inputs: readonly unknown[];
  value: unknown;
}

/**
 * Bundle entries built from their inputs, kept with their canonical JSON across builds. An
 * entry is rebuilt only when one of its inputs is not the very object it was built from (the
 * per-file caches hand out the same objects for unchanged files), so an unchanged entry of a
 * rebuild costs a few identity checks, and a cold build serializes each entry exactly once.
 */
export class FragmentCache {
  /** Entries by kind, then by key: the keys are the files' own strings, never built again per build. */
  private readonly kinds = new Map<string, { entries: Map<string, Memo>; live: Sweeper }>();
  private readonly orders = new KeptOrders();
  private readonly lists = new Map<string, { inputs: readonly (readonly unknown[])[]; entries: readonly unknown[] }>();
  serialized = 0;
  reused = 0;

  /** `make()`, or what it returned for the same `kind` and `key` when every input is identical (`===`). */
  memo<T>(kind: string, key: string, inputs: readonly unknown[], make: () => T): T {
    const cached = this.#used(kind, key);
    const known = cached.entries.get(key);
    if (known !== undefined && sameItems(known.inputs, inputs)) {
      this.reused++;
      return known.value as T;
    }
    this.serialized++;
    const value = make();
    cached.entries.set(key, { inputs, value });
    return value;
  }

  /**
   * `value`'s fragment, kept while `value` is the same object; a new object with the same
   * canonical text keeps the fragment too (its bytes, and the joined runs around it, stay
   * the same objects), so only a change of content counts as serialized.
   */
  fragment(kind: string, key: string, value: unknown): RawJson {
    const cached = this.#used(kind, key);
    const known = cached.entries.get(key);
    if (known !== undefined && known.inputs[0] === value) {
      this.reused++;
      return known.value as RawJson;
    }
    const made = fragmentOf(value);
    const same = known !== undefined && (known.value as RawJson).text === made.text;
    if (same) this.reused++;
    else this.serialized++;
    const fragment = same ? (known.value as RawJson) : made;
    cached.entries.set(key, { inputs: [value], value: fragment });
    return fragment;
  }

  /** The entries of `kind`, with `key` marked as used by this build. */
  #used(kind: string, key: string): { entries: Map<string, Memo>; live: Sweeper } {
    let cached = this.kinds.get(kind);
    if (cached === undefined) this.kinds.set(kind, (cached = { entries: new Map(), live: new Sweeper() }));
    cached.live.use(key);
    return cached;
  }

  /**
   * Marks the entry of `kind` and `key` as used by this build, as `memo` does, when a caller found
   * it unchanged itself; `counted` when it stands for a `memo` call that would have been a reuse.
   */
  keep(kind: string, key: string, counted: boolean): void {
    this.kinds.get(kind)?.live.use(key);
    if (counted) this.reused++;
  }

  /** One ordered list of entries per scope with the inputs each was made from, for the next build's walk in the same order. */
  lastEntries(scope: string): { inputs: readonly (readonly unknown[])[]; entries: readonly unknown[] } | undefined {
    return this.lists.get(scope);
  }

  keepEntries(scope: string, inputs: readonly (readonly unknown[])[], entries: readonly unknown[]): void {
    this.lists.set(scope, { inputs, entries });
  }

  /**
   * `items` ordered by `keyOf` (distinct keys). The order found for `scope` is kept: a rebuild
   * whose items come with the same keys in the same sequence reuses it instead of sorting again.
   */
  sorted<T>(scope: string, items: readonly T[], keyOf: (item: T) => string): T[] {
    return this.orders.sorted(scope, items, keyOf);
  }

  /** Drops entries the latest build of no root used. */
  sweep(root: string): void {
    for (const { entries, live } of this.kinds.values()) live.sweep(root, entries);
  }
}

/** A value with its canonical text, spliced verbatim into the bundle. */
export function fragmentOf(value: unknown): RawJson {
  return new RawJson(canonicalJson(value));
}
