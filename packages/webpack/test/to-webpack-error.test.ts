import type { Diagnostic } from '@berrypack/compiler';
import { describe, expect, it } from 'vitest';
import { displayPath, toWebpackError } from '../src/to-webpack-error.js';

/** Stands in for the host's `WebpackError`, so the test sees which class the error was made with. */
class HostError extends Error {}

const diagnostic: Diagnostic = {
  code: 'BP2110',
  rule: 'TOOL-6',
  severity: 'error',
  message: 'Unexpected unknown tool `nowhere`, expected a model or code routine, a callable import or an external tool',
  hint: 'list it in plugin.json `requires`',
  file: '/project/pkg/hello.md',
  line: 3,
  column: 5,
  endLine: 3,
  endColumn: 12,
  related: [{ file: '/elsewhere/plugin.json', line: 2, column: 7, message: 'the package is named here' }],
};

describe('toWebpackError', () => {
  it('makes a host error with the file relative to the context, a 0-based loc, the frame, the hint and the related places', () => {
    const error = toWebpackError(HostError, diagnostic, '---\ntools:\n  - nowhere\n---\nSay hello.\n', '/project');
    expect(error).toBeInstanceOf(HostError);
    expect({ ...error }).toEqual({
      file: 'pkg/hello.md',
      loc: { start: { line: 3, column: 4 }, end: { line: 3, column: 11 } },
      code: 'BP2110',
      rule: 'TOOL-6',
      hint: 'list it in plugin.json `requires`',
      hideStack: true,
    });
    expect(error.message).toBe(
      [
        'BP2110 Unexpected unknown tool `nowhere`, expected a model or code routine, a callable import or an external tool',
        ['  1 | ---', '  2 | tools:', '> 3 |   - nowhere', '    |     ^^^^^^^', '  4 | ---', '  5 | Say hello.'].join('\n'),
        'hint: list it in plugin.json `requires`',
        '/elsewhere/plugin.json:2:7: the package is named here',
      ].join('\n\n'),
    );
  });

  it('leaves out the frame without the text, and the hint when there is none', () => {
    const { hint: _hint, related: _related, ...bare } = diagnostic;
    const error = toWebpackError(HostError, { ...bare, line: 1, column: 1, endLine: 1, endColumn: 1 }, undefined, '/project');
    expect(error.message).toBe('BP2110 Unexpected unknown tool `nowhere`, expected a model or code routine, a callable import or an external tool');
    expect(error.loc).toEqual({ start: { line: 1, column: 0 }, end: { line: 1, column: 0 } });
    expect('hint' in error).toBe(false);
  });

  it('prints paths inside the context relative with `/`, others absolute', () => {
    expect(displayPath('/project/a/b.md', '/project')).toBe('a/b.md');
    expect(displayPath('/other/b.md', '/project')).toBe('/other/b.md');
    expect(displayPath('/project/..data/b.md', '/project')).toBe('..data/b.md');
  });
});
