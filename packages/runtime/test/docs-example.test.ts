import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createCompiler } from '../../compiler/src/index.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const DOC = path.join(ROOT, 'docs/runtime.md');
// Inside the repository, so that `@berrypack/runtime` resolves to the workspace package (its dist/, built by `npm test`).
const cache = path.join(ROOT, 'node_modules/.cache');
mkdirSync(cache, { recursive: true });
const dir = mkdtempSync(path.join(cache, 'berrypack-docs-example-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The fenced block right after `marker`, and the first fenced block after that one. */
function blocks(text: string, marker: string): { code: string; printed: string } {
  const at = text.indexOf(marker);
  expect(at, `${marker} in docs/runtime.md`).toBeGreaterThan(0);
  const fence = /```[a-z]*\n([\s\S]*?)\n```/g;
  fence.lastIndex = at;
  const code = fence.exec(text);
  const printed = fence.exec(text);
  return { code: code![1]!, printed: printed![1]! };
}

describe('docs/runtime.md', () => {
  it('runs the embedding example exactly as written and prints what the doc says', () => {
    const { code, printed } = blocks(readFileSync(DOC, 'utf8'), '<!-- example: embedding -->');
    const built = createCompiler({}).build(path.join(ROOT, 'fixtures/notebook/plugin.json'));
    expect(built.ok).toBe(true);
    writeFileSync(path.join(dir, 'notebook.berry.json'), built.bundle!.bytes);
    writeFileSync(path.join(dir, 'example.mjs'), code);
    const result = spawnSync(process.execPath, ['example.mjs'], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout.trimEnd()).toBe(printed);
  });

  it('runs the conversation example exactly as written and prints what the doc says', () => {
    const { code, printed } = blocks(readFileSync(DOC, 'utf8'), '<!-- example: conversation -->');
    const built = createCompiler({}).build(path.join(ROOT, 'fixtures/conversation/plugin.json'));
    expect(built.ok).toBe(true);
    writeFileSync(path.join(dir, 'conversation.berry.json'), built.bundle!.bytes);
    writeFileSync(path.join(dir, 'conversation.mjs'), code);
    const result = spawnSync(process.execPath, ['conversation.mjs'], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout.trimEnd()).toBe(printed);
  });
});
