import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HashChain } from '../src/bundle/hash-chain.js';
import { HashChainCache } from '../src/package/cache/hash-chain-cache.js';

const sha256 = (parts: readonly Uint8Array[]) => {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return hash.digest('hex');
};
const bytes = (text: string) => new TextEncoder().encode(text);

describe('HashChain', () => {
  it('gives the SHA-256 of the concatenation, call after call, wherever the parts change', () => {
    // Each step edits the previous parts: a part replaced (same or other length, same bytes in a
    // new object), inserted or removed, anywhere, so the reused prefix ends everywhere in turn.
    const part = fc.uint8Array({ minLength: 0, maxLength: 40 });
    const step = fc.record({ at: fc.nat(), kind: fc.constantFrom('replace', 'copy', 'insert', 'remove', 'same'), with: part });
    fc.assert(
      fc.property(fc.array(part, { minLength: 1, maxLength: 12 }), fc.array(step, { maxLength: 12 }), (first, steps) => {
        const chain = new HashChain(true);
        let parts: Uint8Array[] = first;
        expect(chain.digest(parts)).toBe(sha256(parts));
        for (const s of steps) {
          parts = [...parts];
          const i = parts.length === 0 ? 0 : s.at % parts.length;
          if (s.kind === 'replace' && parts.length > 0) parts[i] = s.with;
          else if (s.kind === 'copy' && parts.length > 0) parts[i] = Uint8Array.from(parts[i]!);
          else if (s.kind === 'insert') parts.splice(i, 0, s.with);
          else if (s.kind === 'remove') parts.splice(i, 1);
          expect(chain.digest(parts)).toBe(sha256(parts));
        }
      }),
      { numRuns: 300, seed: 21 },
    );
  });

  it('tells apart parts of the same length with other bytes, and a change moved across a part boundary', () => {
    const chain = new HashChain(true);
    const a = [bytes('{"a":'), bytes('1111'), bytes('}')];
    expect(chain.digest(a)).toBe(sha256(a));
    // Same lengths, other bytes in the middle part.
    const b = [bytes('{"a":'), bytes('1112'), bytes('}')];
    expect(chain.digest(b)).toBe(sha256(b));
    // The same concatenation cut differently.
    const c = [bytes('{"a":1'), bytes('112'), bytes('}')];
    expect(chain.digest(c)).toBe(sha256(c));
    expect(sha256(c)).toBe(sha256(b));
    // Back to the first parts, then no parts at all.
    expect(chain.digest(a)).toBe(sha256(a));
    expect(chain.digest([])).toBe(sha256([]));
  });
});

describe('HashChainCache', () => {
  it('keeps one chain per package while a build of some root uses it', () => {
    const cache = new HashChainCache(false);
    const a = cache.chainFor('/p/a/plugin.json');
    const imported = cache.chainFor('/p/b/plugin.json');
    cache.sweep('/p/a/plugin.json');
    expect(cache.chainFor('/p/a/plugin.json')).toBe(a);
    expect(cache.chainFor('/p/b/plugin.json')).toBe(imported);
    cache.sweep('/p/a/plugin.json');
    // A build of the root that no longer imports b drops b's chain.
    cache.chainFor('/p/a/plugin.json');
    cache.sweep('/p/a/plugin.json');
    expect(cache.chainFor('/p/b/plugin.json')).not.toBe(imported);
  });
});
