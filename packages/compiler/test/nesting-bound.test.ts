import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lexedNesting, MAX_YAML_DEPTH, nestingBound } from '../src/source/yaml-depth.js';

// The cheap scan decides whether the lexer-based depth check runs at all: it must never be
// below the depth the lexer finds, or deep input would reach the recursive parser unchecked.
const yamlish = fc.string({
  unit: fc.constantFrom(' ', ' ', '-', '?', '[', ']', '{', '}', '\n', '\r', ':', 'a', '"', "'", '|', '>', '#', ',', '\t'),
  maxLength: 400,
});

describe('nestingBound', () => {
  it('is at least the lexed nesting depth of any text', () => {
    fc.assert(
      fc.property(yamlish, (yaml) => {
        expect(nestingBound(yaml)).toBeGreaterThanOrEqual(lexedNesting(yaml).depth);
      }),
      { seed: 20261130, numRuns: 3000 },
    );
  });

  it('bounds deep block, indicator and flow nesting, and lets ordinary frontmatter skip the lexer', () => {
    const block = Array.from({ length: 300 }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n');
    const indicators = `${'- '.repeat(300)}x`;
    const flow = `${'['.repeat(300)}${']'.repeat(300)}`;
    for (const deep of [block, indicators, flow]) {
      expect(lexedNesting(deep).depth).toBeGreaterThan(MAX_YAML_DEPTH);
      expect(nestingBound(deep)).toBeGreaterThanOrEqual(lexedNesting(deep).depth);
    }
    const ordinary =
      'name: notes.compose\ndescription: Drafts a well-known kind of note\ninput:\n  type: object\n  properties:\n    text: { type: string }\ntools: [notes.search, notes.save]\n';
    expect(nestingBound(ordinary)).toBeLessThanOrEqual(MAX_YAML_DEPTH);
  });
});
