import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { relativePosix } from '../src/package/steps/paths.js';

describe('relativePosix', () => {
  const slow = (dir: string, file: string) => path.relative(dir, file).split(path.sep).join('/');

  it('answers as path.relative for files below, beside, above and odd-shaped', () => {
    const dirs = ['/pkg', '/pkg/', '/pkg/sub', '/p.kg', '/pkg/./x', '/pkg//x', '/', '/a/..', '/.hidden/pkg'];
    const files = [
      '/pkg/a.md',
      '/pkg/routines/ns0/r1.md',
      '/pkg/.dot/a.md',
      '/pkg/a/../b.md',
      '/pkg/./a.md',
      '/pkg//a.md',
      '/pkg/a/',
      '/pkg/sub',
      '/pkgx/a.md',
      '/pkg',
      '/other/a.md',
      '/p.kg/a.md',
      '/pkg/x/y.js',
      '/.hidden/pkg/a.md',
      '/pkg/ü/ë.md',
    ];
    for (const dir of dirs) for (const file of files) expect(relativePosix(dir, file), `${dir} ${file}`).toBe(slow(dir, file));
    expect(relativePosix('/pkg', '/pkg/routines/ns0/r1.md')).toBe('routines/ns0/r1.md');
  });
});
