import { describe, expect, it } from 'vitest';
import { FragmentCache } from '../src/package/cache/fragment-cache.js';

describe('FragmentCache', () => {
  it('memoizes by kind and key while every input is the same object', () => {
    const cache = new FragmentCache();
    const input = { a: 1 };
    let made = 0;
    const make = () => ({ made: ++made });
    const first = cache.memo('source', 'a.md', [input, 'x'], make);
    expect(cache.memo('source', 'a.md', [input, 'x'], make)).toBe(first);
    // The same key under another kind is another entry.
    expect(cache.memo('file', 'a.md', [input, 'x'], make)).not.toBe(first);
    // An equal but new input object is a change.
    expect(cache.memo('source', 'a.md', [{ a: 1 }, 'x'], make)).toEqual({ made: 3 });
    expect([cache.serialized, cache.reused]).toEqual([3, 1]);
  });

  it('drops what the latest build of a root did not use, and keeps what another root used', () => {
    const cache = new FragmentCache();
    let made = 0;
    const make = () => ++made;
    cache.memo('source', 'a', [], make);
    cache.sweep('/one');
    cache.memo('source', 'b', [], make);
    cache.sweep('/two');
    cache.memo('source', 'c', [], make);
    cache.sweep('/one');
    // `a` was used by /one's first build only; `b` stays for /two.
    expect(cache.memo('source', 'b', [], make)).toBe(2);
    expect(cache.memo('source', 'a', [], make)).toBe(4);
  });

  it('keeps a fragment for the same object, and for a new object with the same canonical text', () => {
    const cache = new FragmentCache();
    const list = { tools: ['a', 'b'] };
    const first = cache.fragment('requirements', '/pkg', list);
    expect(first.text).toBe('{"tools":["a","b"]}');
    expect(cache.fragment('requirements', '/pkg', list)).toBe(first);
    expect(cache.fragment('requirements', '/pkg', { tools: ['a', 'b'] })).toBe(first);
    const changed = cache.fragment('requirements', '/pkg', { tools: ['a'] });
    expect(changed.text).toBe('{"tools":["a"]}');
    expect([cache.serialized, cache.reused]).toEqual([2, 2]);
  });

  it('keeps an entry a build found unchanged itself (keep) through the sweep, and the last ordered list per scope', () => {
    const cache = new FragmentCache();
    let made = 0;
    const make = () => ++made;
    cache.memo('source', 'a', [], make);
    cache.memo('source', 'b', [], make);
    cache.sweep('/one');
    // The next build walks its last list itself: `a` is kept without a memo lookup, `b` is not used.
    cache.keep('source', 'a', true);
    cache.keepEntries('/one', [[1], [2]], ['x', 'y']);
    cache.sweep('/one');
    expect(cache.memo('source', 'a', [], make)).toBe(1);
    expect(cache.memo('source', 'b', [], make)).toBe(3);
    expect(cache.lastEntries('/one')).toEqual({ inputs: [[1], [2]], entries: ['x', 'y'] });
    expect(cache.lastEntries('/two')).toBeUndefined();
  });

  it('sorts by key, reusing the order found for the same keys in the same sequence', () => {
    const cache = new FragmentCache();
    const names = (items: { name: string }[]) => items.map((i) => i.name);
    const items = ['b', 'c', 'a'].map((name) => ({ name }));
    expect(names(cache.sorted('routines', items, (i) => i.name))).toEqual(['a', 'b', 'c']);
    // Same keys, same sequence, new objects: the new objects in the known order.
    const again = ['b', 'c', 'a'].map((name) => ({ name, again: true }));
    const sorted = cache.sorted('routines', again, (i) => i.name);
    expect(names(sorted)).toEqual(['a', 'b', 'c']);
    expect(sorted.every((i) => i.again)).toBe(true);
    // A key added, or the sequence changed: sorted again.
    expect(names(cache.sorted('routines', [...items, { name: 'ab' }], (i) => i.name))).toEqual(['a', 'ab', 'b', 'c']);
    expect(names(cache.sorted('routines', [items[2]!, items[1]!, items[0]!], (i) => i.name))).toEqual(['a', 'b', 'c']);
    // UTF-16 code unit order, as canonical JSON sorts keys.
    expect(
      names(
        cache.sorted(
          'other',
          ['é', 'z', 'Z', '\u{1F600}'].map((name) => ({ name })),
          (i) => i.name,
        ),
      ),
    ).toEqual(['Z', 'z', 'é', '\u{1F600}']);
  });
});
