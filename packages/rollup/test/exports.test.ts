import { describe, expect, it } from 'vitest';

describe('@berrypack/rollup public exports', () => {
  it('exposes the factory as default and by name, for a CommonJS `require` (and types)', async () => {
    const api = await import('../src/index.js');
    expect(Object.keys(api).sort()).toEqual(['berrypack', 'default', 'module.exports']);
    expect(api.berrypack).toBe(api.default);
    // `require()` of the package returns this one (Node 20.19+): callable, and with both names.
    const required = api['module.exports'];
    expect(required.berrypack).toBe(api.default);
    expect(required.default).toBe(api.default);
    expect(required({ emit: false }).name).toBe('berrypack');
    expect(typeof api.default).toBe('function');
    expect(api.default.name).toBe('berrypack');
  });
});
