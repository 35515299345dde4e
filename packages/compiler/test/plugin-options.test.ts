import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createFilter } from '@rollup/pluginutils';
import { filterWithoutPatterns, resolvePluginOptions } from '../src/package/plugin-options.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'berrypack-plugin-options-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const DEFAULTS = { include: undefined, exclude: undefined, compiler: {}, emit: true, strict: false, namedExports: false };

describe('resolvePluginOptions', () => {
  it('fills in the defaults; undefined and null mean "not given"', () => {
    for (const options of [undefined, null, {}]) expect(resolvePluginOptions(options)).toEqual(DEFAULTS);
    const nulls = { include: null, exclude: null, catalog: null, store: null, emit: null, strict: null, namedExports: null };
    expect(resolvePluginOptions(nulls)).toEqual(DEFAULTS);
  });

  it('keeps what was given and resolves `store` against the current directory', () => {
    const catalog = { models: [{ id: 'm', provider: 'p' }], tools: [{ name: 'web.search' }] };
    const options = {
      include: ['**/plugin.json', /\.md$/],
      exclude: '**/README.md',
      catalog,
      store: 'cache/store',
      emit: false,
      strict: true,
      namedExports: true,
    };
    expect(resolvePluginOptions(options, '/work/app')).toEqual({
      include: ['**/plugin.json', /\.md$/],
      exclude: '**/README.md',
      compiler: { catalog, store: path.resolve('/work/app', 'cache/store') },
      emit: false,
      strict: true,
      namedExports: true,
    });
    expect(resolvePluginOptions({ store: '/abs/store' }, '/work/app').compiler).toEqual({ store: path.resolve('/abs/store') });
    expect(resolvePluginOptions({ store: 'store' }).compiler).toEqual({ store: path.resolve('store') });
  });

  it('throws one plain message naming the first problem', () => {
    const cases: [unknown, string][] = [
      ['yes', 'Unexpected options of type string, expected an object'],
      [[], 'Unexpected options of type array, expected an object'],
      [7, 'Unexpected options of type number, expected an object'],
      [{ strictt: true }, 'Unexpected option `strictt`, expected one of `include`, `exclude`, `catalog`, `store`, `emit`, `strict`, `namedExports`'],
      [{ emit: 'no' }, 'Unexpected type string for option `emit`, expected a boolean'],
      [{ strict: 1 }, 'Unexpected type number for option `strict`, expected a boolean'],
      [{ namedExports: {} }, 'Unexpected type object for option `namedExports`, expected a boolean'],
      [{ include: 42 }, 'Unexpected type number for option `include`, expected a string, a RegExp or an array of them'],
      [{ include: { glob: '*.md' } }, 'Unexpected type object for option `include`, expected a string, a RegExp or an array of them'],
      [{ exclude: ['**/*.md', 7] }, 'Unexpected type array for option `exclude`, expected a string, a RegExp or an array of them'],
      [{ store: false }, 'Unexpected type boolean for option `store`, expected a directory path'],
      [{ store: '' }, 'Unexpected blank string for option `store`, expected a directory path'],
      [{ store: '  ' }, 'Unexpected blank string for option `store`, expected a directory path'],
      [{ catalog: 3 }, 'Unexpected type number for option `catalog`, expected a catalog object or the path of a catalog JSON file'],
      [{ catalog: [] }, 'Unexpected type array for option `catalog`, expected a catalog object or the path of a catalog JSON file'],
      [{ catalog: { models: {} } }, 'Invalid option `catalog`: Unexpected `models`, expected a list'],
      [{ catalog: { tools: [{}] } }, 'Invalid option `catalog`: Unexpected tools[0], expected an object with a string `name`'],
      [{ catalog: { models: [{ id: 'm' }] } }, 'Invalid option `catalog`: Unexpected models[0], expected an object with string `id` and `provider`'],
    ];
    for (const [options, message] of cases) expect(() => resolvePluginOptions(options), message).toThrow(new Error(message));
  });

  it('reads a catalog file relative to the current directory, and names it when it cannot be used', () => {
    writeFileSync(path.join(dir, 'catalog.json'), JSON.stringify({ tools: [{ name: 'web.search' }] }));
    expect(resolvePluginOptions({ catalog: 'catalog.json' }, dir).compiler).toEqual({ catalog: { models: [], tools: [{ name: 'web.search' }] } });
    expect(resolvePluginOptions({ catalog: path.join(dir, 'catalog.json') }, '/').compiler.catalog).toEqual({ models: [], tools: [{ name: 'web.search' }] });

    writeFileSync(path.join(dir, 'invalid.json'), '{"tools": 1}');
    writeFileSync(path.join(dir, 'broken.json'), '{"tools": [');
    let syntax = '';
    try {
      JSON.parse('{"tools": [');
    } catch (error) {
      syntax = (error as Error).message.split('\n')[0]!;
    }
    expect(syntax).toMatch(/JSON/);
    const cases: [string, string][] = [
      ['missing.json', 'Invalid option `catalog` (missing.json): ENOENT'],
      ['.', 'Invalid option `catalog` (.): EISDIR'],
      ['invalid.json', 'Invalid option `catalog` (invalid.json): Unexpected `tools`, expected a list'],
      ['broken.json', `Invalid option \`catalog\` (broken.json): ${syntax}`],
    ];
    for (const [catalog, message] of cases) expect(() => resolvePluginOptions({ catalog }, dir), message).toThrow(new Error(message));
  });
});

describe('filterWithoutPatterns', () => {
  const ids: unknown[] = ['/a/plugin.json', 'C:/a/b.md', '\0virtual', '/a/\0b.md', '', 42, undefined, null, {}];

  it('answers as createFilter does when neither include nor exclude has a pattern', () => {
    for (const [include, exclude] of [
      [undefined, undefined],
      [null, null],
      [[], []],
      [undefined, []],
    ] as const) {
      const quick = filterWithoutPatterns(include, exclude);
      const reference = createFilter(include, exclude);
      expect(quick).toBeTypeOf('function');
      expect(ids.map((id) => quick!(id))).toEqual(ids.map((id) => reference(id)));
    }
  });

  it('leaves any pattern to createFilter', () => {
    for (const [include, exclude] of [
      ['**/plugin.json', undefined],
      [undefined, /README\.md$/],
      [[''], undefined],
      ['', undefined],
      [undefined, [/x/]],
    ] as const)
      expect(filterWithoutPatterns(include, exclude)).toBeUndefined();
  });
});
