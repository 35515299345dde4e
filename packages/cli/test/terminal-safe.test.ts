import { describe, expect, it } from 'vitest';
import { codeFrame, type Diagnostic } from '@berrypack/compiler';
import { printMethodReport } from '../src/commands/method-report.js';
import { createColors } from '../src/output/colors.js';
import { formatText } from '../src/output/format-text.js';
import { escapeChar, escapeLine, terminalCodeFrame, terminalSafe } from '../src/terminal-safe.js';

/** What a terminal could obey: C0 controls other than tab and line feed, DEL, C1 controls and the bidi controls. */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
// ESC [ 31 m, OSC 52 (clipboard) ended by BEL, OSC 0 (title), CR, and a right-to-left override.
const HOSTILE = '\u001b[31mRED\u001b]52;c;cHduZWQ=\u0007\u001b]0;title\u0007\rX\u202e';
const NO_COLOR = createColors({ isTTY: false });

describe('terminalSafe', () => {
  it('shows every control as \\uXXXX and leaves the rest alone', () => {
    expect(terminalSafe(HOSTILE)).toBe('\\u001b[31mRED\\u001b]52;c;cHduZWQ=\\u0007\\u001b]0;title\\u0007\\u000dX\\u202e');
    expect(terminalSafe('a\u0000b\u007fc\u0085d\u009be\u2066f\u2069')).toBe('a\\u0000b\\u007fc\\u0085d\\u009be\\u2066f\\u2069');
    const plain = 'tab\there, é, 漢字, 😀, \u00a0, `code` \\u001b (a literal backslash)';
    expect(terminalSafe(plain)).toBe(plain);
    expect(escapeChar('\u001b')).toBe('\\u001b');
  });

  it('escapes a line feed inside a value, keeps it in multi-line text, escapes CR in both', () => {
    expect(terminalSafe('key\nforged line\r')).toBe('key\\u000aforged line\\u000d');
    expect(terminalSafe('{\n  "a": "\u001b\u0085"\r\n}', { multiline: true })).toBe('{\n  "a": "\\u001b\\u0085"\\u000d\n}');
  });

  it('escapes exactly the listed characters, over the whole BMP', () => {
    const listed = (c: number) => (c < 0x20 && c !== 0x09) || (c >= 0x7f && c <= 0x9f) || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
    for (let c = 0; c <= 0xffff; c++) {
      if (c >= 0xd800 && c <= 0xdfff) continue;
      const char = String.fromCharCode(c);
      const shown = terminalSafe(char);
      expect(shown, `U+${c.toString(16)}`).toBe(listed(c) ? `\\u${c.toString(16).padStart(4, '0')}` : char);
      expect(shown).not.toMatch(UNSAFE);
    }
  });

  it('is idempotent and prints non-strings', () => {
    expect(terminalSafe(terminalSafe(HOSTILE))).toBe(terminalSafe(HOSTILE));
    expect(terminalSafe(undefined)).toBe('undefined');
    expect(terminalSafe(42)).toBe('42');
  });
});

describe('escapeLine', () => {
  it('maps every code unit to its column in the escaped text', () => {
    const { text, columns, boundary } = escapeLine('a\u001bb😀\u202ec');
    expect(text).toBe('a\\u001bb😀\\u202ec');
    // a=0, ESC=1 (6 wide), b=7, 😀=8 and 9 (two code units), RLO=10 (6 wide), c=16, end=17.
    expect(columns).toEqual([0, 1, 7, 8, 9, 10, 16, 17]);
    expect(boundary.length).toBe(text.length + 1);
    // Never inside an escape nor between the halves of a surrogate pair.
    expect(boundary.map((b, i) => (b ? i : -1)).filter((i) => i >= 0)).toEqual([0, 1, 7, 8, 10, 16, 17]);
  });
});

describe('terminalCodeFrame', () => {
  const text = ['---', 'name: notes.compose', 'description: Note: x', 'model:', '  select:', '    operation: generation', '---'].join('\n');

  it('is the compiler code frame for text without controls', () => {
    const cases: [number, number, number, number][] = [
      [3, 14, 3, 21],
      [1, 1, 1, 1],
      [4, 1, 6, 5],
      [7, 4, 7, 4],
    ];
    for (const [l, c, el, ec] of cases) {
      expect(terminalCodeFrame(text, { line: l, column: c }, { line: el, column: ec })).toBe(codeFrame(text, { line: l, column: c }, { line: el, column: ec }));
    }
    const long = 'description: ' + 'x'.repeat(200) + 'TARGET' + 'y'.repeat(200) + '\n\tnext\tline';
    expect(terminalCodeFrame(long, { line: 1, column: 214 }, { line: 1, column: 220 })).toBe(
      codeFrame(long, { line: 1, column: 214 }, { line: 1, column: 220 }),
    );
  });

  /** The frame's marked line and its carets, without the gutters. */
  function marked(frame: string): { line: string; carets: string } {
    const lines = frame.split('\n');
    const at = lines.findIndex((l) => l.startsWith('>'));
    return { line: lines[at]!.replace(/^> *\d+ \| /, ''), carets: lines[at + 1]!.replace(/^ *\| /, '') };
  }

  it('escapes the source lines and keeps the carets under the marked characters', () => {
    const source = 'title: x\n\u001b]0;pwned\u0007key\u202e: TARGET\nafter\u0085';
    // `TARGET` is at columns 17–22 of line 2 (1-based, UTF-16); the controls before it widen it.
    const frame = terminalCodeFrame(source, { line: 2, column: 17 }, { line: 2, column: 23 });
    expect(frame).not.toMatch(UNSAFE);
    const { line, carets } = marked(frame);
    expect(line).toBe('\\u001b]0;pwned\\u0007key\\u202e: TARGET');
    expect(carets.indexOf('^')).toBe(line.indexOf('TARGET'));
    expect(carets.trim()).toBe('^^^^^^');
    expect(frame.split('\n')[3]).toBe('  3 | after\\u0085');
  });

  it('underlines an escaped character over its whole escape', () => {
    // The span is the ESC alone (column 5 to 6).
    const { line, carets } = marked(terminalCodeFrame('key \u001b value', { line: 1, column: 5 }, { line: 1, column: 6 }));
    expect(line).toBe('key \\u001b value');
    expect(carets).toBe('    ^^^^^^');
  });

  it('counts a span ending after controls in escaped columns', () => {
    const { line, carets } = marked(terminalCodeFrame('"\u001b[31m\u001b[0m": 1', { line: 1, column: 1 }, { line: 1, column: 12 }));
    expect(line).toBe('"\\u001b[31m\\u001b[0m": 1');
    expect(carets).toBe('^'.repeat('"\\u001b[31m\\u001b[0m"'.length));
  });

  it('elides a long escaped line without cutting an escape, carets still aligned', () => {
    const source = '\u001b'.repeat(100) + 'TARGET' + '\u0007'.repeat(100);
    const frame = terminalCodeFrame(source, { line: 1, column: 101 }, { line: 1, column: 107 });
    expect(frame).not.toMatch(UNSAFE);
    const { line, carets } = marked(frame);
    expect(line).toMatch(/^\.\.\.(\\u001b)+TARGET(\\u0007)+\.\.\.$/);
    expect(line.length).toBeLessThanOrEqual(126);
    expect(carets.indexOf('^')).toBe(line.indexOf('TARGET'));
    expect(carets.trim()).toBe('^^^^^^');
  });

  it('never splits a surrogate pair when eliding', () => {
    const source = '😀'.repeat(150) + 'TARGET';
    const { line, carets } = marked(terminalCodeFrame(source, { line: 1, column: 301 }, { line: 1, column: 307 }));
    expect(line).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
    expect(carets.indexOf('^')).toBe(line.indexOf('TARGET'));
  });
});

describe('text output', () => {
  const diagnostic: Diagnostic = {
    code: 'BP1020',
    rule: 'SRC-3',
    severity: 'error',
    message: `Unexpected field \`${HOSTILE}\`, expected one of \`name\``,
    hint: `Remove \`${HOSTILE}\`\nforged: line`,
    file: 'dir\u001b]0;t\u0007/bad.md',
    line: 2,
    column: 1,
    endLine: 2,
    endColumn: 7,
    related: [{ file: 'other\r.md', line: 1, column: 1, message: 'first \u009b2J here' }],
  };

  it('escapes every string of a diagnostic and its code frame', () => {
    const out = formatText([diagnostic], NO_COLOR, () => 'name: x\n\u001b]52;c;eA==\u0007: 1\n');
    expect(out).not.toMatch(UNSAFE);
    expect(out).toContain('dir\\u001b]0;t\\u0007/bad.md\n');
    expect(out).toContain('RED\\u001b]52;c;cHduZWQ=\\u0007');
    expect(out).toContain('hint: Remove `\\u001b[31mRED');
    expect(out).toContain('\\u000aforged: line\n');
    expect(out).not.toMatch(/\nforged/);
    expect(out).toContain('other\\u000d.md:1:1 first \\u009b2J here');
    const lines = out.split('\n');
    const at = lines.findIndex((l) => l.startsWith('    > 2 | '));
    expect(lines[at]).toBe('    > 2 | \\u001b]52;c;eA==\\u0007: 1');
    // Columns 1–6 (end column 7) are `ESC ] 5 2 ; c`: the underline covers their escaped form.
    expect(lines[at + 1]).toBe(`        | ${'^'.repeat('\\u001b]52;c'.length)}`);
  });

  it('keeps its own colours while escaping the package values', () => {
    const colors = createColors({ isTTY: true }, {});
    const out = formatText([diagnostic], colors, () => undefined);
    expect(out).toContain('\u001b[31merror\u001b[39m');
    expect(out).toContain('\\u001b[31mRED');
    // Without the CLI's own colour sequences, nothing unsafe is left.
    expect(out.replace(/\u001b\[\d+m/g, '')).not.toMatch(UNSAFE);
  });

  it('escapes method step keys, requests and errors', () => {
    let out = '';
    const io = { stdout: { write: (s: string) => (out += s) }, stderr: { write: () => true }, cwd: '/', env: { NO_COLOR: '1' } };
    printMethodReport(
      io,
      false,
      {
        runId: 'run-1',
        status: 'failed',
        steps: { ['draft\u001b[2K']: 'failed', ok: 'passed' },
        pending: [{ step: 'ask\u202e', kind: 'ask', request: 'Line one\nLine \u001b]52;c;eA==\u0007two\r' }],
        diagnostics: [],
        error: { code: 'step-failed', message: `boom ${HOSTILE}` },
      },
      '.data',
    );
    expect(out).not.toMatch(UNSAFE);
    expect(out).toContain(`✖ draft\\u001b[2K  failed\n✔ ${'ok'.padEnd('draft\\u001b[2K'.length)}  passed\n`);
    expect(out).toContain('  Line one\n  Line \\u001b]52;c;eA==\\u0007two\\u000d\n');
    expect(out).toContain('--step ask\\u202e');
  });
});
