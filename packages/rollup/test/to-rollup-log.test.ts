import type { Diagnostic } from '@berrypack/compiler';
import { describe, expect, it } from 'vitest';
import { toRollupLog } from '../src/to-rollup-log.js';

const diagnostic: Diagnostic = {
  code: 'BP2110',
  rule: 'TOOL-6',
  severity: 'error',
  message: 'Unexpected unknown tool `nowhere`, expected a model or code routine, a callable import or an external tool',
  hint: 'list it in plugin.json `requires`',
  file: '/pkg/hello.md',
  line: 3,
  column: 5,
  endLine: 3,
  endColumn: 12,
};

describe('toRollupLog', () => {
  it('makes a Rollup log with a 0-based column, the code as pluginCode, the rule, the hint (in the message too) and a frame', () => {
    const text = '---\ntools:\n  - nowhere\n---\nSay hello.\n';
    expect(toRollupLog(diagnostic, text)).toEqual({
      message:
        'BP2110 Unexpected unknown tool `nowhere`, expected a model or code routine, a callable import or an external tool\nhint: list it in plugin.json `requires`',
      id: '/pkg/hello.md',
      plugin: 'berrypack',
      pluginCode: 'BP2110',
      rule: 'TOOL-6',
      hint: 'list it in plugin.json `requires`',
      loc: { file: '/pkg/hello.md', line: 3, column: 4 },
      frame: ['  1 | ---', '  2 | tools:', '> 3 |   - nowhere', '    |     ^^^^^^^', '  4 | ---', '  5 | Say hello.'].join('\n'),
    });
  });

  it('leaves out the frame without the text and the hint when there is none', () => {
    const { hint: _hint, ...withoutHint } = diagnostic;
    expect(toRollupLog({ ...withoutHint, severity: 'warning', line: 1, column: 1, endLine: 1, endColumn: 1 })).toEqual({
      message: 'BP2110 Unexpected unknown tool `nowhere`, expected a model or code routine, a callable import or an external tool',
      id: '/pkg/hello.md',
      plugin: 'berrypack',
      pluginCode: 'BP2110',
      rule: 'TOOL-6',
      loc: { file: '/pkg/hello.md', line: 1, column: 0 },
    });
  });

  it("inline (for Vite, which prints only a warning's message): the place and the frame in the message as well", () => {
    const text = '---\ntools:\n  - nowhere\n---\nSay hello.\n';
    expect(toRollupLog(diagnostic, text, true).message).toBe(
      [
        'BP2110 Unexpected unknown tool `nowhere`, expected a model or code routine, a callable import or an external tool',
        '  at /pkg/hello.md:3:5',
        '  1 | ---',
        '  2 | tools:',
        '> 3 |   - nowhere',
        '    |     ^^^^^^^',
        '  4 | ---',
        '  5 | Say hello.',
        'hint: list it in plugin.json `requires`',
      ].join('\n'),
    );
  });
});
