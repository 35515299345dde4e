import { describe, expect, it } from 'vitest';

describe('@berrypack/rollup public exports', () => {
  it('exposes only the default factory (and types)', async () => {
    const api = await import('../src/index.js');
    expect(Object.keys(api)).toEqual(['default']);
    expect(typeof api.default).toBe('function');
    expect(api.default.name).toBe('berrypack');
  });
});
