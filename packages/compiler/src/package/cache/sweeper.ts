/**
 * Bounds a cache that lives across builds: keys used by the latest build of each root
 * manifest stay, every other key goes. One compiler may build several packages in turn (a
 * bundler importing two plugin.json files): building one must not evict the other's entries.
 */
export class Sweeper {
  #current = new Set<string>();
  readonly #roots = new Map<string, Set<string>>();

  /** Whether the latest build of `root` used `key`. */
  usedBy(root: string, key: string): boolean {
    return this.#roots.get(root)?.has(key) ?? false;
  }

  /** The keys the latest build of `root` used, as one array while they stay the same set. */
  keysOf(root: string): readonly string[] {
    const used = this.#roots.get(root);
    if (used === undefined) return [];
    let keys = this.#keys.get(used);
    if (keys === undefined) this.#keys.set(used, (keys = [...used]));
    return keys;
  }

  readonly #keys = new WeakMap<Set<string>, readonly string[]>();

  use(key: string): void {
    this.#current.add(key);
  }

  sweep(root: string, entries: Map<string, unknown>): void {
    this.#roots.set(root, this.#current);
    this.#current = new Set();
    const roots = [...this.#roots.values()];
    for (const key of entries.keys()) if (!roots.some((used) => used.has(key))) entries.delete(key);
  }
}
