import { describe, expect, it } from 'vitest';

describe('@berrypack/rollup public exports', () => {
  it('exposes the factory as default and by name, for a CommonJS `require` (and types)', async () => {
    const api = await import('../src/index.js');
    expect(Object.keys(api).sort()).toEqual(['berrypack', 'default']);
    expect(api.berrypack).toBe(api.default);
    expect(typeof api.default).toBe('function');
    expect(api.default.name).toBe('berrypack');
  });
});
