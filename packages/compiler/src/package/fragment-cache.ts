import { canonicalJson, RawJson } from '../bundle/canonical-json.js';
import { sha256Hex } from '../bundle/digest.js';

/**
 * Canonical JSON fragments of bundle entries, keyed by a digest of their plain JSON:
 * JSON.stringify is ~2.5× faster than canonical serialization, so an unchanged entry of a
 * rebuild costs one stringify and a hash, not a canonical serialization.
 */
export class FragmentCache {
  private readonly fragments = new Map<string, RawJson>();
  private live = new Set<string>();
  serialized = 0;
  reused = 0;

  fragment(value: unknown): RawJson {
    const key = sha256Hex(JSON.stringify(value));
    this.live.add(key);
    const hit = this.fragments.get(key);
    if (hit) {
      this.reused++;
      return hit;
    }
    this.serialized++;
    const raw = new RawJson(canonicalJson(value));
    this.fragments.set(key, raw);
    return raw;
  }

  /** Drops fragments no build used since the last sweep. */
  sweep(): void {
    for (const key of this.fragments.keys()) if (!this.live.has(key)) this.fragments.delete(key);
    this.live = new Set();
  }
}
