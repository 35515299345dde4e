import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const DOC = path.join(ROOT, 'docs/methods.md');
// Inside the repository, so that the workspace packages resolve (their dist/, built by `npm test`).
const cache = path.join(ROOT, 'node_modules/.cache');
mkdirSync(cache, { recursive: true });
const dir = mkdtempSync(path.join(cache, 'berrypack-method-docs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('docs/methods.md', () => {
  it('MTH-18: runs the embedding example as written and prints what the doc says', () => {
    const text = readFileSync(DOC, 'utf8');
    const at = text.indexOf('<!-- example: method-embedding -->');
    expect(at).toBeGreaterThan(0);
    const fence = /```[a-z]*\n([\s\S]*?)\n```/g;
    fence.lastIndex = at;
    const code = fence.exec(text)![1]!;
    const printed = fence.exec(text)![1]!;
    for (const name of ['weekly-report.method.yaml', 'weekly-report.script.json'])
      copyFileSync(path.join(ROOT, 'fixtures/methods', name), path.join(dir, name));
    writeFileSync(path.join(dir, 'example.mjs'), code);
    const result = spawnSync(process.execPath, ['example.mjs'], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout.trimEnd()).toBe(printed);
  });
});
