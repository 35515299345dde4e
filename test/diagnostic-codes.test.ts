import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CODES } from '../packages/compiler/src/diagnostics/codes.js';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { createCompiler } from '../packages/compiler/src/package/compile-package.js';
import { ROOT } from './support/cli.js';
import { renderDiagnosticsDoc } from './support/diagnostics-doc.js';

const RULE_IDS = /^(SRC|NAME|KIND|SCH|MDL|CLS|TOOL|NEXT|PATH|PORT|MISC|REF|TPL|CODE|MAN|BND|RUN|MTH)-\d+$/;
const entries = Object.entries(CODES);
const MANIFEST = JSON.stringify({
  $schema: 'https://agent-plugins.org/schemas/1.0.0/plugin.schema.json',
  name: 'docs.example',
  version: '1',
  extensions: { 'ai.strawberry.berry': {} },
});

describe('diagnostic codes', () => {
  it('are BPnnnn codes with a catalogue rule, a title and an example or a stated need', () => {
    for (const [code, info] of entries) {
      expect(code).toMatch(/^BP\d{4}$/);
      expect(info.rule, code).toMatch(RULE_IDS);
      expect(info.title.length, code).toBeGreaterThan(5);
      expect('example' in info !== 'needs' in info, `${code} needs exactly one of example/needs`).toBe(true);
    }
  });
  // Each example is built as the only source of a real package on disk, as a user would.
  it.each(entries.filter(([, info]) => 'example' in info))('%s: its documented example reports it', (code, info) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'berrypack-example-'));
    try {
      writeFileSync(path.join(dir, 'plugin.json'), MANIFEST);
      writeFileSync(path.join(dir, 'example.md'), (info as { example: string }).example);
      const result = createCompiler().build(path.join(dir, 'plugin.json'));
      expect(result.diagnostics.map((d) => d.code)).toContain(code);
      expect(result.diagnostics.find((d) => d.code === code)!.rule).toBe(info.rule);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it('docs/diagnostics.md lists every code as the registry says (npm run docs regenerates it)', () => {
    const file = path.join(ROOT, 'docs/diagnostics.md');
    const expected = renderDiagnosticsDoc(CODES);
    if (process.env.UPDATE_DOCS) writeFileSync(file, expected);
    expect(existsSync(file)).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe(expected);
  });
});
