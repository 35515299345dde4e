import { describe, expect, it } from 'vitest';
import { checkCompact } from '../packages/compiler/src/package/cache/source-cache.js';
import { reviveChecked, routineWire } from '../packages/compiler/src/package/routine-wire.js';

// What a cold build's worker sends for a clean source (routine-wire.ts): JSON must give back
// exactly the checked source this thread would have made from the bytes, or nothing at all.

const source = (properties: string, extra = ''): Uint8Array =>
  Buffer.from(
    `---\nname: ns0.model0\ntitle: plan\ndescription: rank task\nmodel:\n  select:\n    operation: generation\n` +
      `input:\n  type: object\n  properties:\n    goal:\n      type: string\n${properties}${extra}---\nYou are a routine.\n\nGoal: {{ $.input.goal }}\n`,
  );

/** The wire as it crosses threads (JSON text), revived; undefined where the worker leaves the source to this thread. */
function roundTrip(file: string, bytes: Uint8Array) {
  const checked = checkCompact(file, bytes, 'digest');
  const wire = routineWire(checked);
  return { checked, revived: wire && reviveChecked(file, bytes, JSON.parse(JSON.stringify(wire)), 'digest') };
}

describe('a clean source as a worker sends it', () => {
  it('is revived exactly: facts, kept tree nodes with spans, text, name and body', () => {
    const { checked, revived } = roundTrip('/p/a.md', source('', 'visibility: private\ntools:\n  - ns9.code9\nnext: ns0.model1\n'));
    expect(checked.diagnostics).toEqual([]);
    expect(revived).toBeDefined();
    expect(revived).toStrictEqual(checked);
    // Spans are getters of the tree's nodes: compared where resolution reads them.
    const names = (r: typeof checked) => r.routine!.frontmatter.entries.map((e) => [e.key, e.keySpan, e.value.span]);
    expect(names(revived!)).toEqual(names(checked));
  });

  it('is left to this thread where JSON would not give back the same: -0, a key __proto__', () => {
    const number = (value: string) => source(`    count:\n      type: number\n      minimum: ${value}\n`);
    for (const bytes of [number('-0'), source('    __proto__:\n      type: string\n')]) {
      const { checked, revived } = roundTrip('/p/c.md', bytes);
      expect(checked.status).toBe('source');
      expect(checked.diagnostics).toEqual([]);
      expect(revived).toBeUndefined();
    }
    // The same source with a plain number travels.
    expect(roundTrip('/p/c.md', number('0')).revived).toStrictEqual(roundTrip('/p/c.md', number('0')).checked);
  });

  it('is left to this thread when the source has any diagnostic, so diagnostics are made from what was written', () => {
    // A non-finite number is an error (BP1016), so it never reaches the wire either.
    for (const broken of [source('', 'visibility: hidden\n'), source('    count:\n      type: number\n      minimum: .inf\n')]) {
      const { checked, revived } = roundTrip('/p/e.md', broken);
      expect(checked.diagnostics.length).toBeGreaterThan(0);
      expect(revived).toBeUndefined();
    }
  });
});
