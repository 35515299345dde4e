import fc from 'fast-check';
import MagicString from 'magic-string';
import { describe, expect, it } from 'vitest';
import { mapBody } from '../src/code/body-map.js';

/** What mapBody gave when it cut the frontmatter out with magic-string: its output must stay byte for byte the same. */
function viaMagicString(text: string, bodyStart: number, sourcePath: string): unknown {
  const s = new MagicString(text);
  const cut = Math.max(0, Math.min(bodyStart, text.length));
  if (cut > 0) s.remove(0, cut);
  const m = s.generateMap({ source: sourcePath, includeContent: false, hires: false });
  const map: Record<string, unknown> = { version: 3, sources: [...m.sources], names: [...m.names], mappings: m.mappings };
  if (m.file !== undefined) map.file = m.file;
  return map;
}

function same(text: string, bodyStart: number, sourcePath: string): void {
  const mine = mapBody(text, bodyStart, sourcePath);
  expect(JSON.stringify(mine), JSON.stringify({ text, bodyStart, sourcePath })).toBe(JSON.stringify(viaMagicString(text, bodyStart, sourcePath)));
}

describe("a code routine's body map", () => {
  it('maps each body line to its line of the .md file, as magic-string did', () => {
    const routine = '---\nname: a.b\nlanguage: javascript\n---\nexport default function run() {\n\n  return 1;\n}\n';
    const bodyStart = routine.indexOf('export');
    expect(mapBody(routine, bodyStart, 'routines/a/b.md')).toEqual({ version: 3, sources: ['routines/a/b.md'], names: [], mappings: 'AAIA;;AAEA;AACA;' });
    same(routine, bodyStart, 'routines/a/b.md');
    // Edges: an empty body, no frontmatter cut, a cut inside a line, no final line break, a long way down (multi-digit VLQ), backslashes in the path.
    same(routine, routine.length, 'x.md');
    same(routine, 0, 'x.md');
    same(routine, 6, 'x.md');
    same(routine.trimEnd(), bodyStart, 'x.md');
    same('\n'.repeat(5000) + 'a\nb', 5000, 'dir\\x.md');
    same('abc', 99, '');
  });

  it('gives the bytes magic-string gave on generated texts and cuts', () => {
    const text = fc.stringMatching(/^[ab \n]{0,80}$/);
    fc.assert(
      fc.property(text, fc.nat({ max: 90 }), fc.constantFrom('r/x.md', 'a\\b/c.md', '', 'x'), (t, cut, source) => same(t, cut, source)),
      { seed: 20261201, numRuns: 3000 },
    );
  });
});
