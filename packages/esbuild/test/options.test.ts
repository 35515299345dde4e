import { describe, expect, it } from 'vitest';
import berrypack, { type Options } from '../src/index.js';

describe('berrypack() options', () => {
  it("throws the core's message from the factory, before any build", () => {
    expect(() => berrypack({ named: true } as Options)).toThrow(
      new Error('Unexpected option `named`, expected one of `include`, `exclude`, `catalog`, `store`, `emit`, `strict`, `namedExports`'),
    );
    expect(() => berrypack({ strict: 'yes' } as unknown as Options)).toThrow(new Error('Unexpected type string for option `strict`, expected a boolean'));
  });

  it('reads a catalog file when created and names it when it is missing', () => {
    expect(() => berrypack({ catalog: 'missing-catalog.json' })).toThrow(new Error('Invalid option `catalog` (missing-catalog.json): ENOENT'));
  });
});
