import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkDirectory } from '../packages/compiler/src/check-directory.js';
import { ROOT } from './support/cli.js';

const broken = path.join(ROOT, 'fixtures/broken');
const cases = readdirSync(broken)
  .filter((name) => statSync(path.join(broken, name)).isDirectory())
  .sort();

describe('fixtures', () => {
  it('the example package checks clean', () => {
    const result = checkDirectory(path.join(ROOT, 'fixtures/notebook/routines'));
    expect(result.diagnostics.filter((d) => d.severity !== 'info')).toEqual([]);
    expect(result.routines.map((r) => `${r.kind} ${r.name}`).sort()).toEqual([
      'code notes.count',
      'code search.rank',
      'instructions notes.style',
      'model converse',
      'model notes.compose',
      'model notes.triage',
      'model search.answer',
    ]);
  });
  it.each(cases)('broken/%s reports exactly the expected rules', (name) => {
    const expected = JSON.parse(readFileSync(path.join(broken, name, 'expected.json'), 'utf8')) as { rules: string[] };
    const result = checkDirectory(path.join(broken, name));
    const rules = [...new Set(result.diagnostics.filter((d) => d.severity === 'error').map((d) => d.rule))].sort();
    expect(rules).toEqual([...expected.rules].sort());
  });
});
