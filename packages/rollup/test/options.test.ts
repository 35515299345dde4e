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
    expect(plugin).toMatchObject({
      enforce: 'pre',
      resolveId: { order: 'pre', filter: { id: expect.any(RegExp) } },
      load: { order: 'pre', filter: { id: expect.any(RegExp) } },
    });
  });

  it("throws the core's message from the factory, before any build", () => {
    expect(() => berrypack({ strictt: true } as Options)).toThrow(
      new Error('Unexpected option `strictt`, expected one of `include`, `exclude`, `catalog`, `store`, `emit`, `strict`, `namedExports`'),
    );
    expect(() => berrypack({ emit: 'no' } as unknown as Options)).toThrow(new Error('Unexpected type string for option `emit`, expected a boolean'));
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
    expect(await resolveId.call(context, '/work/kept/plugin.json?berrypack', '/main.js', { isEntry: false, attributes: {} })).toBe(
      `${path.resolve('/work/kept/plugin.json')}?berrypack`,
    );

    const load = handler(plugin, 'load');
    for (const id of ['/work/kept/plugin.json', '/work/kept/plugin.json?raw', '/work/skipped/plugin.json?berrypack', '\0virtual?berrypack']) {
      expect(await load.call(context, id)).toBeNull();
    }
  });
});
