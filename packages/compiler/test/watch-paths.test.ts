import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { subtreeWatchPaths } from '../src/internal-adapter.js';

describe('subtreeWatchPaths', () => {
  const root = path.resolve('/pkg');
  const at = (...parts: string[]) => path.join(root, ...parts);

  it('keeps the outermost listed directories and the files outside all of them', () => {
    const directories = [at('routines'), at('routines', 'lib'), at('routines', 'ns0'), at('routines', 'ns0', 'deep'), at('docs')];
    const files = [at('plugin.json'), at('routines', 'a.md'), at('routines', 'ns0', 'deep', 'b.md'), at('docs', 'c.md'), at('assets', 'r0.txt')];
    expect(subtreeWatchPaths(files, directories)).toEqual([at('routines'), at('docs'), at('plugin.json'), at('assets', 'r0.txt')]);
  });

  it('keeps a directory whose parent is not listed, and everything when nothing is listed', () => {
    expect(subtreeWatchPaths([at('x', 'y', 'z.md')], [at('x', 'y')])).toEqual([at('x', 'y')]);
    expect(subtreeWatchPaths([at('a.md'), at('b', 'c.md')], [])).toEqual([at('a.md'), at('b', 'c.md')]);
  });
});
