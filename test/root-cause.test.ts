// Diagnostics lead with the root cause (issue #15): a routine whose frontmatter does not parse
// still registers its name, so what refers to it is not reported as unknown.
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createCompiler } from '@berrypack/compiler';
import { cleanup, tempDir, writeFiles } from './support/temp.js';

const dirs: string[] = [];
afterAll(() => cleanup(...dirs));

const MANIFEST = JSON.stringify({
  $schema: 'https://agent-plugins.org/schemas/1.0.0/plugin.schema.json',
  name: 'example.cause',
  version: '1',
  extensions: { 'ai.strawberry.berry': { sources: 'r', agents: { main: { title: 'Main', description: 'Greets.', entry: 'greet' } }, exports: ['count'] } },
});
const GREET = '---\nname: greet\ndescription: Greets.\nmodel:\n  select:\n    operation: generation\ntools:\n  - count\nnext:\n  to: count\n---\nGreet.\n';
const BROKEN_COUNT = '---\nname: count\ndescription: Counts: the words.\nlanguage: javascript\n---\nexport default function count() { return 1; }\n';

describe('a routine that fails to parse', () => {
  it('is the only error: its `next`, tool and export references are not unknown names; once gone, they are', () => {
    const dir = tempDir();
    dirs.push(dir);
    writeFiles(dir, { 'plugin.json': MANIFEST, 'r/greet.md': GREET, 'r/count.md': BROKEN_COUNT });
    const compiler = createCompiler();
    const manifest = path.join(dir, 'plugin.json');
    const first = compiler.build(manifest);
    expect(first.ok).toBe(false);
    expect(first.diagnostics.filter((d) => d.severity === 'error').map((d) => [d.code, path.relative(dir, d.file), d.line])).toEqual([
      ['BP1050', 'r/count.md', 3],
    ]);

    // Deleted: now the references are unknown, reported in the same compiler (no stale reuse).
    rmSync(path.join(dir, 'r/count.md'));
    const second = compiler.build(manifest);
    expect(
      second.diagnostics
        .filter((d) => d.severity === 'error')
        .map((d) => d.code)
        .sort(),
    ).toEqual(expect.arrayContaining(['BP2110', 'BP2115']));

    // Fixed: it builds.
    writeFileSync(path.join(dir, 'r/count.md'), BROKEN_COUNT.replace('Counts: the words.', '"Counts: the words."'));
    const third = compiler.build(manifest);
    expect(third.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });
});
