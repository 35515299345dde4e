import { createHash, type Hash } from 'node:crypto';
import { sameBytes } from '../text/same-bytes.js';

/**
 * The SHA-256 of a bundle's content, computed as a chain over its parts, keeping the hash's
 * state after each part: the next digest of the same package hashes only from the first part
 * that differs. SHA-256 reads its input in order, so the state after an unchanged prefix is the
 * same whatever follows; at N = 10,000 the content is 26 MB and its hash about a quarter of a
 * rebuild, so an edit late in the content (files and sources are in path and name order)
 * rehashes little. An edit in the first part still hashes everything, as without a chain.
 *
 * A chain holds the parts of its latest digest (the compiler's runs of fragments, which its
 * caches keep anyway, and the short texts between them). Parts are compared by identity, then
 * by bytes: texts are encoded again on every build. A chain made with `keep: false` keeps
 * nothing (a one-shot compiler's) and only counts.
 */
export class HashChain {
  #parts: readonly Uint8Array[] = [];
  // #states[i]: the hash after #parts[0..i], never finalized (copies are).
  #states: Hash[] = [];

  /** @param counted told the bytes each digest hashed and the bytes it took from the previous digest's states. */
  constructor(
    private readonly keep: boolean,
    private readonly counted?: (hashed: number, reused: number) => void,
  ) {}

  /** Hex SHA-256 of the parts' concatenation. */
  digest(parts: readonly Uint8Array[]): string {
    const shared = this.keep ? sharedPrefix(parts, this.#parts) : 0;
    const states = this.#states.slice(0, shared);
    const hash = shared === 0 ? createHash('sha256') : states[shared - 1]!.copy();
    let hashed = 0;
    for (let i = shared; i < parts.length; i++) {
      hash.update(parts[i]!);
      hashed += parts[i]!.length;
      if (this.keep) states.push(hash.copy());
    }
    if (this.keep) {
      this.#parts = parts;
      this.#states = states;
    }
    this.counted?.(hashed, byteLength(parts, shared));
    return hash.digest('hex');
  }
}

/** How many leading parts of `a` and `b` hold the same bytes. */
function sharedPrefix(a: readonly Uint8Array[], b: readonly Uint8Array[]): number {
  const end = Math.min(a.length, b.length);
  let i = 0;
  while (i < end && sameBytes(a[i]!, b[i]!)) i++;
  return i;
}

/** The length of the first `count` parts together. */
function byteLength(parts: readonly Uint8Array[], count: number): number {
  let length = 0;
  for (let i = 0; i < count; i++) length += parts[i]!.length;
  return length;
}
