import { describe, expect, it } from 'vitest';
import { codeFrame } from '../packages/compiler/src/diagnostics/code-frame.js';

const text = ['---', 'name: notes.compose', 'description: Note: x', 'model:', '  select:', '    operation: generation', '---'].join('\n');

describe('code frame', () => {
  it('marks the span with carets and shows two lines of context', () => {
    expect(codeFrame(text, { line: 3, column: 14 }, { line: 3, column: 21 })).toBe(
      ['  1 | ---', '  2 | name: notes.compose', '> 3 | description: Note: x', '    |              ^^^^^^^', '  4 | model:', '  5 |   select:'].join('\n'),
    );
  });
  it('clips context at the first line and uses one caret for an empty span', () => {
    expect(codeFrame(text, { line: 1, column: 1 }, { line: 1, column: 1 })).toBe(
      ['> 1 | ---', '    | ^', '  2 | name: notes.compose', '  3 | description: Note: x'].join('\n'),
    );
  });
  it('underlines to the end of the line when the span ends on a later line', () => {
    expect(codeFrame(text, { line: 4, column: 1 }, { line: 6, column: 5 }).split('\n')[3]).toBe('    | ^^^^^^');
  });
  it('elides long lines around the marked column', () => {
    const long = 'description: ' + 'x'.repeat(200) + 'TARGET' + 'y'.repeat(200);
    const frame = codeFrame(long, { line: 1, column: 214 }, { line: 1, column: 220 });
    const [line, carets] = frame.split('\n');
    expect(line).toMatch(/^> 1 \| \.\.\.x+TARGETy+\.\.\.$/);
    expect(line!.length).toBe('> 1 | '.length + 126);
    expect(line!.indexOf('TARGET')).toBe(carets!.indexOf('^'));
    expect(carets).toMatch(/^ {4}\| +\^{6}$/);
  });
});
