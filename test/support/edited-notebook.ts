import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createCompiler } from '@berrypack/compiler';
import { copyFixture, tempDir, writeFiles } from './temp.js';

/**
 * The notebook fixture in `dir` (a fresh temp dir by default), imported by main.js; an edit of
 * compose.md; and what the package builds to before and after it, from a compiler of its own.
 */
export function editedNotebook(dir = tempDir('berrypack-hand-over-')) {
  const notebook = copyFixture('notebook', dir);
  writeFiles(dir, { 'main.js': "export { default } from './notebook/plugin.json';\n" });
  const compose = path.join(notebook, 'routines/notes/compose.md');
  const original = readFileSync(compose, 'utf8');
  const edited = original.replace('house style.', 'house style, briefly.');
  const expected = (text: string) => {
    writeFileSync(compose, text);
    return createCompiler().build(path.join(notebook, 'plugin.json')).bundle!;
  };
  const after = expected(edited);
  const before = expected(original);
  return { dir, compose, original, edited, before, after };
}
