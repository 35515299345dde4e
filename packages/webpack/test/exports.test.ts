import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

describe('@berrypack/webpack public exports', () => {
  it('exposes only the factory, as the default export and as `module.exports` (and types)', async () => {
    const api = await import('../src/index.js');
    expect(Object.keys(api).sort()).toEqual(['default', 'module.exports']);
    expect(api.default).toBe(api['module.exports']);
    expect(api.default.name).toBe('berrypack');
  });
  it('gives the factory itself to `require` (require of ESM, Node >= 20.19), from the built package', () => {
    const required = createRequire(import.meta.url)('@berrypack/webpack') as unknown;
    expect(typeof required).toBe('function');
    expect((required as { name: string }).name).toBe('berrypack');
  });
});
