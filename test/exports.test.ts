import { describe, expect, it } from 'vitest';

describe('public exports', () => {
  it('@berrypack/compiler exposes exactly this API', async () => {
    const api = await import('../packages/compiler/src/index.js');
    expect(Object.keys(api).sort()).toEqual([
      'CODES',
      'LineIndex',
      'checkDirectory',
      'checkSource',
      'codeFrame',
      'evaluatePath',
      'formatPath',
      'hasErrors',
      'parseSingularPath',
      'sortDiagnostics',
    ]);
  });
  it('berrypack (the CLI package) exposes run', async () => {
    const api = await import('../packages/cli/src/index.js');
    expect(Object.keys(api).sort()).toEqual(['CHECK_HELP', 'run']);
  });
});
