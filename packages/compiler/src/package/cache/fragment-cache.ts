import { canonicalJson, RawJson } from '../../bundle/canonical-json.js';
import { Sweeper } from './sweeper.js';

/**
 * Bundle entries built from their inputs, kept with their canonical JSON across builds. An
 * entry is rebuilt only when one of its inputs is not the very object it was built from (the
 * per-file caches hand out the same objects for unchanged files), so an unchanged entry of a
 * rebuild costs a few identity checks, and a cold build serializes each entry exactly once.
 */
export class FragmentCache {
  private readonly entries = new Map<string, { inputs: readonly unknown[]; value: unknown }>();
  private readonly live = new Sweeper();
  serialized = 0;
  reused = 0;

  /** `make()`, or what it returned for the same `key` when every input is identical (`===`). */
  memo<T>(key: string, inputs: readonly unknown[], make: () => T): T {
    this.live.use(key);
    const known = this.entries.get(key);
    if (known && known.inputs.length === inputs.length && known.inputs.every((v, i) => v === inputs[i])) {
      this.reused++;
      return known.value as T;
    }
    this.serialized++;
    const value = make();
    this.entries.set(key, { inputs, value });
    return value;
  }

  /** Drops entries the latest build of no root used. */
  sweep(root: string): void {
    this.live.sweep(root, this.entries);
  }
}

/** A value with its canonical text, spliced verbatim into the bundle. */
export function fragmentOf(value: unknown): RawJson {
  return new RawJson(canonicalJson(value));
}
