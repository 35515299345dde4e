import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../packages/cli/src/index.js';
import { berrypack } from './support/cli.js';
import { memoryIo } from './support/memory-io.js';
import { tempDir, writeFiles } from './support/temp.js';

function writtenPackage(files: Record<string, string>): string {
  const dir = tempDir('berrypack-cli-');
  writeFiles(dir, files);
  return dir;
}

describe('berrypack check (the real bin)', () => {
  it('exits 0 on the example package and prints one JSON object', () => {
    const r = berrypack(['check', 'fixtures/notebook/plugin.json', '--json']);
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout) as { ok: boolean; diagnostics: { code: string; file: string; severity: string }[] };
    expect(json.ok).toBe(true);
    expect(json.diagnostics).toEqual([expect.objectContaining({ code: 'BP1003', severity: 'info', file: 'fixtures/notebook/routines/README.md' })]);
  });
  it('exits 1 with positions relative to the current directory', () => {
    const r = berrypack(['check', 'broken/colon-trap/summarize.md', '--json'], { cwd: path.resolve('fixtures') });
    expect(r.code).toBe(1);
    const json = JSON.parse(r.stdout) as { ok: boolean; diagnostics: object[] };
    expect(json.ok).toBe(false);
    expect(json.diagnostics).toEqual([
      expect.objectContaining({ code: 'BP1050', rule: 'SRC-6', file: 'broken/colon-trap/summarize.md', line: 3, column: 14, endLine: 3, endColumn: 55 }),
    ]);
  });
  it('prints absolute paths outside the current directory', () => {
    const dir = writtenPackage({ 'a.md': '---\nname: a\n---\nx\n' });
    const r = berrypack(['check', dir, '--json']);
    expect(r.code).toBe(1);
    expect((JSON.parse(r.stdout) as { diagnostics: { file: string }[] }).diagnostics[0]!.file).toBe(path.join(dir, 'a.md'));
  });
  it('exits 2 with one line and no stack trace on usage errors', () => {
    for (const args of [['check'], ['check', 'x', 'y'], ['check', '--bogus', 'x'], ['check', 'missing.md'], ['frobnicate'], ['check', 'package.json']]) {
      const r = berrypack(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(r.stdout).toBe('');
    }
  });
  it('prints GitHub annotations with --format github', () => {
    const r = berrypack(['check', 'fixtures/broken/colon-trap', '--format', 'github']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(
      '::error file=fixtures/broken/colon-trap/summarize.md,line=3,col=14,endLine=3,endColumn=55,title=BP1050 SRC-6::' +
        'Unexpected `: ` inside an unquoted value: YAML reads it as a nested mapping (hint: quote the whole value (`description: "Note: x"`) or write it as a block scalar after `|` or `>`)\n',
    );
  });
});

describe('berrypack check output', () => {
  const dir = writtenPackage({
    'notes/a.md': '---\nname: notes.a\ndescription: d\ntools:\n    - x\n---\nBody\n',
    'notes/b.md': "---\nname: notes.bee\ntitle: ''\ndescription: d\n---\nBody\n",
  });
  it('groups by file with code frames, hints and a summary line, without colour off a TTY', async () => {
    const m = memoryIo(dir);
    expect(await run(['check', '.'], m.io)).toBe(1);
    const out = m.stdout();
    expect(out).toContain('notes/a.md\n  5:1  warning  Unexpected indentation of 4 spaces, expected 2  BP1040 SRC-5\n');
    expect(out).toContain('notes/b.md\n  2:7  warning  Unexpected file name `b.md` for `notes.bee`, expected `bee.md`  BP1091 SRC-9\n');
    expect(out).toContain(
      "  3:8  error  Unexpected empty string for `title`, expected a nonempty string  BP1070 SRC-8\n      1 | ---\n      2 | name: notes.bee\n    > 3 | title: ''\n        |        ^^\n",
    );
    expect(out).toContain('    hint: indent nested mappings and lists by two spaces\n');
    expect(out.trimEnd().split('\n').at(-1)).toBe('✖ 1 error, 2 warnings in 2 files');
    expect(out).not.toContain('\u001b[');
  });
  it('colours on a TTY unless NO_COLOR is set', async () => {
    const tty = memoryIo(dir, {}, true);
    await run(['check', '.'], tty.io);
    expect(tty.stdout()).toContain('\u001b[31m');
    const noColor = memoryIo(dir, { NO_COLOR: '1' }, true);
    await run(['check', '.'], noColor.io);
    expect(noColor.stdout()).not.toContain('\u001b[');
  });
  it('--max-warnings turns too many warnings into exit 1', async () => {
    const warnOnly = writtenPackage({ 'x.md': '---\nname: y\ndescription: d\n---\nBody\n' });
    expect(await run(['check', '.'], memoryIo(warnOnly).io)).toBe(0);
    expect(await run(['check', '.', '--max-warnings', '1'], memoryIo(warnOnly).io)).toBe(0);
    expect(await run(['check', '.', '--max-warnings', '0'], memoryIo(warnOnly).io)).toBe(1);
    const bad = memoryIo(warnOnly);
    expect(await run(['check', '.', '--max-warnings', 'many'], bad.io)).toBe(2);
    expect(bad.stderr()).toBe('berrypack check: Unexpected --max-warnings many, expected a nonnegative integer\n');
  });
});
