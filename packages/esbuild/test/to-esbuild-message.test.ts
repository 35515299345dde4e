import { describe, expect, it } from 'vitest';
import type { Diagnostic } from '@berrypack/compiler';
import { toEsbuildMessage } from '../src/to-esbuild-message.js';

const text = "---\nname: pick\ninput:\n  enum: ['été 🍓', 'ü', 3]\n---\n";
const base: Diagnostic = {
  code: 'BP1282',
  rule: 'SCH-8',
  severity: 'error',
  message: 'Unexpected `3` in `input.enum`, expected a string',
  file: '/p/r/pick.md',
  line: 4,
  column: 25,
  endLine: 4,
  endColumn: 26,
};

describe('toEsbuildMessage', () => {
  it('counts the column and length in UTF-8 bytes from 0, with the hint and related places as notes', () => {
    const diagnostic: Diagnostic = {
      ...base,
      hint: "quote it: `'3'`",
      related: [{ file: '/p/r/pick.md', line: 4, column: 20, message: 'the list is here' }],
    };
    expect(toEsbuildMessage(diagnostic, text)).toEqual({
      text: 'BP1282 Unexpected `3` in `input.enum`, expected a string',
      location: { file: '/p/r/pick.md', namespace: 'file', line: 4, column: 29, length: 1, lineText: "  enum: ['été 🍓', 'ü', 3]" },
      notes: [
        { text: "quote it: `'3'`" },
        {
          text: 'the list is here',
          location: { file: '/p/r/pick.md', namespace: 'file', line: 4, column: 23, length: 1, lineText: "  enum: ['été 🍓', 'ü', 3]" },
        },
      ],
      pluginName: 'berrypack',
      detail: { code: 'BP1282', rule: 'SCH-8' },
    });
  });

  it('measures a span with non-ASCII text in bytes, and a span over several lines to the end of its first line', () => {
    expect(toEsbuildMessage({ ...base, column: 9, endColumn: 27 }, text).location).toMatchObject({ column: 8, length: 23 });
    expect(toEsbuildMessage({ ...base, line: 2, column: 7, endLine: 4, endColumn: 3 }, text).location).toMatchObject({
      line: 2,
      column: 6,
      length: 4,
      lineText: 'name: pick',
    });
    // An empty span still marks one byte.
    expect(toEsbuildMessage({ ...base, line: 3, column: 7, endLine: 3, endColumn: 7 }, text).location).toMatchObject({
      column: 6,
      length: 1,
      lineText: 'input:',
    });
  });

  it('reads related files through readText and keeps columns as they are without a text', () => {
    const diagnostic: Diagnostic = { ...base, related: [{ file: '/p/other.md', line: 1, column: 3, message: 'also here' }] };
    const message = toEsbuildMessage(diagnostic, undefined, (file) => (file === '/p/other.md' ? 'é é é\n' : undefined));
    expect(message.location).toEqual({ file: '/p/r/pick.md', namespace: 'file', line: 4, column: 24, length: 1, lineText: '' });
    expect(message.notes).toEqual([
      { text: 'also here', location: { file: '/p/other.md', namespace: 'file', line: 1, column: 3, length: 1, lineText: 'é é é' } },
    ]);
  });
});
