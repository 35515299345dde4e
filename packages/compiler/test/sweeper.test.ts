import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Sweeper } from '../src/package/cache/sweeper.js';

/** What a sweeper means, kept plainly: per root, the set of keys its latest build used. */
class Model {
  current = new Set<string>();
  readonly roots = new Map<string, Set<string>>();
  use(key: string): void {
    this.current.add(key);
  }
  sweep(root: string, entries: Map<string, unknown>): void {
    this.roots.set(root, this.current);
    this.current = new Set();
    for (const key of entries.keys()) if (![...this.roots.values()].some((used) => used.has(key))) entries.delete(key);
  }
  usedBy(root: string, key: string): boolean {
    return this.roots.get(root)?.has(key) ?? false;
  }
}

const KEYS = ['a', 'b', 'c', 'd', 'e', 'f'];
const ROOTS = ['r1', 'r2', 'r3'];
const op = fc.oneof(
  fc.record({ kind: fc.constant('use' as const), key: fc.constantFrom(...KEYS) }),
  fc.record({ kind: fc.constant('sweep' as const), root: fc.constantFrom(...ROOTS), add: fc.subarray(KEYS) }),
  fc.record({ kind: fc.constant('ask' as const), root: fc.constantFrom(...ROOTS), key: fc.constantFrom(...KEYS) }),
);

describe('Sweeper', () => {
  it('keeps, answers and lists what the latest build of each root used, builds of several roots interleaved', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 80 }), (ops) => {
        const sweeper = new Sweeper();
        const model = new Model();
        // The same cache entries on both sides; each sweep may find new ones stored meanwhile.
        const entries = new Map<string, unknown>();
        const expected = new Map<string, unknown>();
        for (const o of ops) {
          if (o.kind === 'use') {
            sweeper.use(o.key);
            model.use(o.key);
          } else if (o.kind === 'sweep') {
            for (const key of o.add) {
              entries.set(key, 1);
              expected.set(key, 1);
            }
            sweeper.sweep(o.root, entries);
            model.sweep(o.root, expected);
            expect([...entries.keys()].sort()).toEqual([...expected.keys()].sort());
          } else {
            expect(sweeper.usedBy(o.root, o.key), `${o.key} used by ${o.root}`).toBe(model.usedBy(o.root, o.key));
            expect([...sweeper.keysOf(o.root)].sort()).toEqual([...(model.roots.get(o.root) ?? [])].sort());
          }
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('follows builds that mostly repeat the one before: keys dropped, added, moved and used twice', () => {
    // Each build is the previous one's keys with a few edits, as a rebuild's are; the roots alternate now and then.
    const edit = fc.record({ kind: fc.constantFrom('drop', 'add', 'move', 'twice'), at: fc.nat(), key: fc.constantFrom(...KEYS, 'g', 'h') });
    const build = fc.record({ root: fc.constantFrom('r1', 'r1', 'r1', 'r2'), edits: fc.array(edit, { maxLength: 3 }) });
    fc.assert(
      fc.property(fc.array(build, { minLength: 1, maxLength: 12 }), (builds) => {
        const sweeper = new Sweeper();
        const model = new Model();
        const entries = new Map<string, unknown>();
        const expected = new Map<string, unknown>();
        let keys = [...KEYS];
        for (const { root, edits } of builds) {
          keys = [...keys];
          for (const e of edits) {
            const i = keys.length === 0 ? 0 : e.at % keys.length;
            if (e.kind === 'drop') keys.splice(i, 1);
            else if (e.kind === 'add') keys.splice(i, 0, e.key);
            else if (e.kind === 'move' && keys.length > 0) keys.splice(e.at % (keys.length + 1), 0, keys.splice(i, 1)[0]!);
            else if (keys.length > 0) keys.splice(i, 0, keys[e.at % keys.length]!);
          }
          for (const key of keys) {
            sweeper.use(key);
            model.use(key);
            entries.set(key, 1);
            expected.set(key, 1);
          }
          sweeper.sweep(root, entries);
          model.sweep(root, expected);
          expect([...entries.keys()].sort()).toEqual([...expected.keys()].sort());
          for (const r of ['r1', 'r2']) {
            for (const key of [...KEYS, 'g', 'h']) expect(sweeper.usedBy(r, key), `${key} used by ${r}`).toBe(model.usedBy(r, key));
            expect([...sweeper.keysOf(r)].sort()).toEqual([...(model.roots.get(r) ?? [])].sort());
          }
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('answers for a key a root shared with builds of two other roots since', () => {
    const sweeper = new Sweeper();
    const entries = new Map<string, unknown>([['k', 1]]);
    for (const root of ['r1', 'r2', 'r3']) {
      sweeper.use('k');
      sweeper.sweep(root, entries);
    }
    sweeper.sweep('r2', entries);
    sweeper.sweep('r3', entries);
    expect(sweeper.usedBy('r1', 'k')).toBe(true);
    expect(sweeper.usedBy('r2', 'k')).toBe(false);
    expect(sweeper.keysOf('r1')).toEqual(['k']);
    expect([...entries.keys()]).toEqual(['k']);
    sweeper.sweep('r1', entries);
    expect(sweeper.usedBy('r1', 'k')).toBe(false);
    expect([...entries.keys()]).toEqual([]);
  });
});
