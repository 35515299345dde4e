import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFilter } from '../src/filter.js';
import { resolveOptions } from '../src/options.js';

describe('resolveOptions', () => {
  it('fills in the defaults', () => {
    expect(resolveOptions(undefined)).toEqual({ include: undefined, exclude: undefined, catalog: undefined, store: undefined, emit: true, strict: false, namedExports: false });
  });

  it('throws one plain message per mistake', () => {
    const cases: [unknown, string][] = [
      ['strict', 'Unexpected options "strict", expected an object'],
      [[], 'Unexpected options array, expected an object'],
      [{ named: true }, 'Unexpected option `named`, expected one of `include`, `exclude`, `catalog`, `store`, `emit`, `strict`, `namedExports`'],
      [{ include: 3 }, 'Unexpected `include` 3, expected a glob, a RegExp or a list of them'],
      [{ exclude: ['*.md', 1] }, 'Unexpected `exclude` array, expected a glob, a RegExp or a list of them'],
      [{ strict: 'yes' }, 'Unexpected `strict` "yes", expected a boolean'],
      [{ namedExports: 1 }, 'Unexpected `namedExports` 1, expected a boolean'],
      [{ store: '' }, 'Unexpected `store` "", expected a nonempty path'],
      [{ catalog: 7 }, 'Unexpected `catalog` 7, expected an object or the path of a JSON file'],
      [{ catalog: { models: {} } }, 'Unexpected `catalog`: Unexpected `models`, expected a list'],
      [{ catalog: 'missing-catalog.json' }, 'Unexpected `catalog` missing-catalog.json: ENOENT, expected a readable JSON file'],
    ];
    for (const [options, message] of cases) expect(() => resolveOptions(options), message).toThrow(new Error(message));
  });

  it('reads a catalog file relative to the current directory', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'berrypack-options-'));
    writeFileSync(path.join(dir, 'catalog.json'), JSON.stringify({ tools: [{ name: 'web.search' }] }));
    expect(resolveOptions({ catalog: 'catalog.json' }, dir).catalog).toEqual({ models: [], tools: [{ name: 'web.search' }] });
  });
});

describe('createFilter', () => {
  it('matches like @rollup/pluginutils: exclude first, relative globs against cwd, RegExps on / paths', () => {
    const filter = createFilter(['src/**/*.md', /plugin\.json$/g], '**/drafts/**', '/work/app');
    expect(filter('/work/app/src/a/b.md')).toBe(true);
    expect(filter('/work/app/src/.hidden.md')).toBe(true);
    expect(filter('/work/app/other/b.md')).toBe(false);
    expect(filter('/work/app/src/drafts/b.md')).toBe(false);
    // A global RegExp keeps lastIndex between calls; the filter resets it.
    expect(filter('/elsewhere/plugin.json')).toBe(true);
    expect(filter('/elsewhere/plugin.json')).toBe(true);
    expect(createFilter(undefined, undefined, '/')('/any/file.md')).toBe(true);
    expect(createFilter('{a,b}/?.md', null, '/r')('/r/b/x.md')).toBe(true);
    expect(createFilter('{a,b}/?.md', null, '/r')('/r/c/x.md')).toBe(false);
  });
});
