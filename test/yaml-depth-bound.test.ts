import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { deepestNesting, lexedNesting, MAX_YAML_DEPTH, nestingBound, quickBound } from '../packages/compiler/src/source/yaml-depth.js';

const frontmatters = (readdirSync('fixtures', { recursive: true }) as string[])
  .filter((f) => f.endsWith('.md'))
  .map((f) => readFileSync(path.join('fixtures', f), 'utf8'))
  .flatMap((text) => {
    const end = text.indexOf('\n---', 4);
    return text.startsWith('---\n') && end !== -1 ? [text.slice(4, end + 1)] : [];
  });

const crafted = [
  '',
  'a: 1',
  '- - - - x\n',
  '? a\n: b\r\n  c: [ {d: e} ]\r',
  `${'  '.repeat(140)}deep: 1\n`,
  `x: ${'['.repeat(300)}${']'.repeat(300)}\n`,
  Array.from({ length: 300 }, (_, i) => `${'  '.repeat(i)}k${i}:`).join('\n') + ' 1\n',
  Array.from({ length: 300 }, (_, i) => `${'  '.repeat(i)}- `).join('\n') + 'x\n',
];

describe('the quick nesting bound (yaml-depth.ts)', () => {
  it('is never below the character bound, on every fixture frontmatter and crafted deep text', () => {
    expect(frontmatters.length).toBeGreaterThan(20);
    for (const yaml of [...frontmatters, ...crafted]) {
      expect(quickBound(yaml), yaml.slice(0, 40)).toBeGreaterThanOrEqual(nestingBound(yaml));
      expect(nestingBound(yaml)).toBeGreaterThanOrEqual(lexedNesting(yaml).depth);
    }
  });

  it('decides the fixtures alone, and deep text still reaches the lexer', () => {
    for (const yaml of frontmatters) expect(quickBound(yaml)).toBeLessThanOrEqual(MAX_YAML_DEPTH);
    for (const yaml of crafted.slice(5)) expect(deepestNesting(yaml).depth).toBeGreaterThan(MAX_YAML_DEPTH);
    // Deeply indented but one level: the lexer says so, and it is not refused.
    expect(deepestNesting(crafted[4]!).depth).toBe(1);
  });
});
