/**
 * Bounds a cache that lives across builds: keys used by the latest build of each root
 * manifest stay, every other key goes. One compiler may build several packages in turn (a
 * bundler importing two plugin.json files): building one must not evict the other's entries.
 *
 * A rebuild mostly uses the same keys in the same order as the build before it (the compiler
 * walks the same sorted files), so `use` first follows the previous build's keys and makes a new
 * set only where this build departs from them: a fresh set of 10,000 keys per build and cache
 * cost about 2.5 ms to grow, most of 13 ms of a 10,000-routine rebuild, against well under
 * 1 ms to follow the list.
 */
export class Sweeper {
  /** The keys of the latest build (of any root), in the order of their first use (`#last` lists them). */
  #lastSet = new Set<string>();
  #last: readonly string[] = [];
  /** Each of `#last`'s keys' position, made when a build first uses a key out of its order. */
  #lastIndex: Map<string, number> | undefined;
  /** How many of `#last`'s keys this build has used in order so far. */
  #followed = 0;
  /** This build's keys, once it departed from `#last`'s order (then `#followed` no longer counts). */
  #current: Set<string> | undefined;
  readonly #roots = new Map<string, Set<string>>();
  readonly #keys = new WeakMap<Set<string>, readonly string[]>();

  /** Whether the latest build of `root` used `key`. */
  usedBy(root: string, key: string): boolean {
    return this.#roots.get(root)?.has(key) ?? false;
  }

  /** The keys the latest build of `root` used, as one array while they stay the same set. */
  keysOf(root: string): readonly string[] {
    const used = this.#roots.get(root);
    return used === undefined ? [] : this.#listed(used);
  }

  use(key: string): void {
    const current = this.#current;
    if (current !== undefined) {
      current.add(key);
      return;
    }
    if (this.#last[this.#followed] === key) {
      this.#followed++;
      return;
    }
    const at = (this.#lastIndex ??= new Map(this.#last.map((k, i) => [k, i]))).get(key);
    // Used again, in the part already followed: nothing new.
    if (at !== undefined && at < this.#followed) return;
    this.#current = this.#followedSet().add(key);
  }

  sweep(root: string, entries: Map<string, unknown>): void {
    let used: Set<string>;
    if (this.#current === undefined && this.#followed === this.#last.length) used = this.#lastSet;
    else {
      used = this.#current ?? this.#followedSet();
      this.#lastSet = used;
      this.#last = this.#listed(used);
      this.#lastIndex = undefined;
    }
    this.#current = undefined;
    this.#followed = 0;
    this.#roots.set(root, used);
    const roots = [...this.#roots.values()];
    for (const key of entries.keys()) if (!roots.some((keys) => keys.has(key))) entries.delete(key);
  }

  /** `used`'s keys as one array, made once per set (`keysOf` and `#last` share it). */
  #listed(used: Set<string>): readonly string[] {
    let keys = this.#keys.get(used);
    if (keys === undefined) this.#keys.set(used, (keys = [...used]));
    return keys;
  }

  /** The keys this build has used so far while it followed `#last`. */
  #followedSet(): Set<string> {
    return new Set(this.#last.slice(0, this.#followed));
  }
}
