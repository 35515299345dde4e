import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isScalar, Schema, type ScalarTag } from 'yaml';
import { coreScalar } from '../src/source/core-scalars.js';

// coreScalar stands in for yaml's Core schema so a plain-style frontmatter never loads yaml: it
// must resolve every plain scalar exactly as yaml's own default tags do, in their order.
const TAGS = new Schema({ schema: 'core' }).tags.filter((tag): tag is ScalarTag => tag.default === true && 'test' in tag && tag.test !== undefined);

function yamlScalar(source: string): unknown {
  for (const tag of TAGS) {
    if (!tag.test!.test(source)) continue;
    const resolved = tag.resolve(source, () => {}, {});
    return isScalar(resolved) ? resolved.value : resolved;
  }
  return undefined;
}

function same(source: string): void {
  expect(coreScalar(source), JSON.stringify(source)).toStrictEqual(yamlScalar(source));
}

describe('coreScalar', () => {
  it('resolves null, bool, int (decimal, octal, hex) and float (exponent, NaN, infinities) as yaml does', () => {
    const cases = ['', '~', 'null', 'Null', 'NULL', 'nULL', 'true', 'True', 'TRUE', 'tRue', 'false', 'FALSE', 'yes', 'on'];
    cases.push('0', '-0', '+12', '007', '2000', '99999999999999999999', '0o17', '0o8', '0O17', '0x1F', '0xg', '0X1F', '-0x1');
    cases.push('1.5', '-.5', '+1.', '.', '1e3', '1E-3', '.5e+2', '1.5e', '.inf', '-.Inf', '+.INF', '.nan', '.NaN', '.NAN', '-.nan', '1_000', '12:30');
    for (const source of cases) same(source);
    expect(coreScalar('2000')).toBe(2000);
    expect(coreScalar('0o17')).toBe(15);
    expect(coreScalar('TRUE')).toBe(true);
    expect(coreScalar('yes')).toBeUndefined();
  });

  it('agrees with yaml on generated scalar-like text', () => {
    const alphabet = fc.constantFrom(...'0123456789+-.eExXoOabcdfnNtTuUlLrRsSiI~_ '.split(''));
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 12 }), (chars) => same(chars.join(''))),
      { numRuns: 5000 },
    );
  });
});
