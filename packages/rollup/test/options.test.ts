import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Plugin, PluginContext } from 'rollup';
import { describe, expect, it } from 'vitest';
import berrypack, { type Options } from '../src/index.js';

type Handler = (this: PluginContext, ...args: unknown[]) => unknown;

function handler(plugin: Plugin, hook: 'resolveId' | 'load'): Handler {
  const value = plugin[hook] as { handler: Handler; filter: { id: RegExp } };
  return value.handler;
}

describe('berrypack() options', () => {
  it('has the canonical shape', () => {
    const plugin = berrypack();
    expect(plugin.name).toBe('berrypack');
    expect(plugin).toMatchObject({ enforce: 'pre', resolveId: { order: 'pre', filter: { id: expect.any(RegExp) } }, load: { order: 'pre', filter: { id: expect.any(RegExp) } } });
  });

  it('refuses unknown options and wrong types with a message naming the problem', () => {
    const cases: [unknown, string][] = [
      ['yes', 'Unexpected options of type string, expected an object'],
      [[], 'Unexpected options of type array, expected an object'],
      [{ strictt: true }, 'Unexpected option `strictt`, expected one of `include`, `exclude`, `catalog`, `store`, `emit`, `strict`, `namedExports`'],
      [{ emit: 'no' }, 'Unexpected type string for option `emit`, expected a boolean'],
      [{ strict: 1 }, 'Unexpected type number for option `strict`, expected a boolean'],
      [{ namedExports: {} }, 'Unexpected type object for option `namedExports`, expected a boolean'],
      [{ include: 42 }, 'Unexpected type number for option `include`, expected a string, a RegExp or an array of them'],
      [{ exclude: ['**/*.md', 7] }, 'Unexpected type array for option `exclude`, expected a string, a RegExp or an array of them'],
      [{ store: false }, 'Unexpected type boolean for option `store`, expected a directory path'],
      [{ catalog: 3 }, 'Unexpected type number for option `catalog`, expected a catalog object or the path of a catalog JSON file'],
      [{ catalog: { models: {} } }, 'Invalid option `catalog`: Unexpected `models`, expected a list'],
      [{ catalog: { tools: [{}] } }, 'Invalid option `catalog`: Unexpected tools[0], expected an object with a string `name`'],
    ];
    for (const [options, message] of cases) expect(() => berrypack(options as Options)).toThrow(new Error(message));
  });

  it('reads a catalog file and names it when it is missing or invalid', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'berrypack-options-'));
    try {
      const missing = path.join(dir, 'missing.json');
      expect(() => berrypack({ catalog: missing })).toThrow(new Error(`Invalid option \`catalog\` (${missing}): ENOENT`));
      const invalid = path.join(dir, 'catalog.json');
      writeFileSync(invalid, '{"tools": 1}');
      expect(() => berrypack({ catalog: invalid })).toThrow(new Error(`Invalid option \`catalog\` (${invalid}): Unexpected \`tools\`, expected a list`));
      writeFileSync(invalid, '{"models": [], "tools": [{"name": "search"}]}');
      expect(berrypack({ catalog: invalid, include: ['**/plugin.json', /\.md$/], exclude: null, emit: false, strict: true, namedExports: true }).name).toBe('berrypack');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('hooks re-check their filters: other queries and excluded files are left alone', async () => {
    const calls: string[] = [];
    const context = { resolve: async (source: string) => (calls.push(source), { id: path.resolve(source), external: false }) } as unknown as PluginContext;
    const plugin = berrypack({ exclude: '**/skipped/**' });
    const resolveId = handler(plugin, 'resolveId');
    for (const source of ['./x/plugin.json?raw', './x/plugin.json?url', './x/data.json', './x/notes.txt', './x/route.md?inline']) {
      expect(await resolveId.call(context, source, '/main.js', { isEntry: false, attributes: {} })).toBeNull();
    }
    expect(calls).toEqual([]);
    // An explicit suffix skips the Berry check but not `exclude`.
    expect(await resolveId.call(context, '/work/skipped/plugin.json?berrypack', '/main.js', { isEntry: false, attributes: {} })).toBeNull();
    expect(await resolveId.call(context, '/work/kept/plugin.json?berrypack', '/main.js', { isEntry: false, attributes: {} })).toBe(`${path.resolve('/work/kept/plugin.json')}?berrypack`);

    const load = handler(plugin, 'load');
    for (const id of ['/work/kept/plugin.json', '/work/kept/plugin.json?raw', '/work/skipped/plugin.json?berrypack', '\0virtual?berrypack']) {
      expect(load.call(context, id)).toBeNull();
    }
  });
});
