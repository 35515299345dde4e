import { describe, expect, it } from 'vitest';
import { NameCheckCache } from '../src/package/cache/name-check-cache.js';
import { checkSource, type RoutineSource } from '../src/routine/check-routine.js';

const MANIFEST = '/pkg/plugin.json';

function routine(file: string, name: string, body = 'Say hello.'): RoutineSource {
  const text = `---\nname: ${name}\ndescription: A routine.\n---\n${body}\n`;
  const checked = checkSource(file, text);
  if (!checked.routine) throw new Error(`not a routine: ${JSON.stringify(checked.diagnostics)}`);
  return checked.routine;
}

describe('NameCheckCache (SRC-9 across rebuilds)', () => {
  it('answers a rebuild with the same names in the same files like a fresh check', () => {
    const cache = new NameCheckCache();
    const a = routine('/pkg/a.md', 'a');
    const b = routine('/pkg/b.md', 'b');
    const first = cache.check(MANIFEST, [a, b]);
    expect(first.diagnostics).toEqual([]);
    expect(first.unique).toEqual([a, b]);
    expect([...first.byName]).toEqual([
      ['a', a],
      ['b', b],
    ]);
    // b's body changed: a new object with the same name and file.
    const b2 = routine('/pkg/b.md', 'b', 'Say goodbye.');
    const again = cache.check(MANIFEST, [a, b2]);
    expect(again.diagnostics).toEqual([]);
    expect(again.unique).toEqual([a, b2]);
    expect(again.unique[1]).toBe(b2);
    expect(again.byName.get('b')).toBe(b2);
    expect([...again.byName.keys()]).toEqual(['a', 'b']);
  });

  it('sees a rename that makes a duplicate, and a file name that stops matching', () => {
    const cache = new NameCheckCache();
    const a = routine('/pkg/a.md', 'a');
    const b = routine('/pkg/b.md', 'b');
    cache.check(MANIFEST, [a, b]);
    const duplicate = cache.check(MANIFEST, [a, routine('/pkg/b.md', 'a')]);
    expect(duplicate.diagnostics.map((d) => d.code).sort()).toEqual(['BP1090', 'BP1091']);
    expect(duplicate.unique).toEqual([a]);
    expect([...duplicate.byName]).toEqual([['a', a]]);
    // Fixed again: the answer goes back to none, and the one after that is reused.
    const b3 = routine('/pkg/b.md', 'b');
    const fixed = cache.check(MANIFEST, [a, b3]);
    expect(fixed.diagnostics).toEqual([]);
    expect(fixed.byName.get('b')).toBe(b3);
    expect(cache.check(MANIFEST, [a, routine('/pkg/c.md', 'b')]).diagnostics.map((d) => d.code)).toEqual(['BP1091']);
  });

  it('hands out copies of the diagnostics', () => {
    const cache = new NameCheckCache();
    const routines = [routine('/pkg/x.md', 'y')];
    const first = cache.check(MANIFEST, routines);
    first.diagnostics[0]!.file = 'rewritten';
    expect(cache.check(MANIFEST, routines).diagnostics[0]!.file).toBe('/pkg/x.md');
  });
});
