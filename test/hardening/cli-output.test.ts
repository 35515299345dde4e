import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { berrypack } from '../support/cli.js';
import { cleanup, tempDir } from '../support/temp.js';

/**
 * What the CLI prints of a hostile package: names, keys, messages and code lines come from
 * the package or from its code at run time. In text output, terminal control sequences among
 * them would be obeyed by the user's terminal (an OSC 52 sequence writes the clipboard, OSC 0
 * the window title, CSI sequences hide or rewrite lines); GitHub annotations must not let a
 * value start a workflow command of its own; JSON must stay one object.
 */

const root = tempDir('berrypack-output-');
afterAll(() => cleanup(root));

// ESC [ 31 m (colour), ESC ] 52 ; c ; … BEL (clipboard), ESC ] 0 ; … BEL (title), CR (overwrite).
const HOSTILE = '\u001b[31mRED\u001b]52;c;cHduZWQ=\u0007\u001b]0;title\u0007\rX';
const YAML_HOSTILE = '\\e[31mRED\\e]52;c;cHduZWQ=\\a\\e]0;title\\a\\rX';
/** C0 controls and DEL other than tab and line feed, and the C1 controls. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

const dir = path.join(root, 'pkg');
mkdirSync(dir, { recursive: true });
// The key is a double-quoted YAML string: the escapes become the real control characters.
writeFileSync(path.join(dir, 'bad.md'), `---\nname: bad\ndescription: d\n"${YAML_HOSTILE}": 1\n---\nbody\n`);
// The routine lives in a package of its own, which builds.
const runDir = path.join(root, 'run');
mkdirSync(runDir, { recursive: true });
writeFileSync(
  path.join(runDir, 'plugin.json'),
  JSON.stringify({
    $schema: 'https://agent-plugins.org/schemas/1.0.0/plugin.schema.json',
    name: 'hostile.output',
    version: '1',
    extensions: { 'ai.strawberry.berry': { exports: ['shout'] } },
  }),
);
writeFileSync(
  path.join(runDir, 'shout.md'),
  `---\nname: shout\ndescription: Throws a message it chose.\nlanguage: javascript\n---\nexport default () => { throw new Error(${JSON.stringify(HOSTILE)}); };\n`,
);

describe('the CLI prints hostile values safely', () => {
  it('keeps `--json` one parseable object with the values escaped', () => {
    const r = berrypack(['check', 'bad.md', '--json'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).not.toMatch(CONTROL);
    expect(JSON.stringify(JSON.parse(r.stdout))).toContain('RED');
  });

  it('keeps `--format github` to one workflow command per diagnostic', () => {
    const r = berrypack(['check', 'bad.md', '--format', 'github'], { cwd: dir });
    expect(r.code).toBe(1);
    for (const line of r.stdout.split('\n').filter(Boolean)) expect(line).toMatch(/^::(error|warning|notice) /);
    // Line breaks are what would start a command of its own: they are %-escaped.
    expect(r.stdout).not.toMatch(/\r/);
  });

  // Text output once printed package-controlled strings (a frontmatter key in the message; a
  // thrown message at run time) with their control characters, so a package could write to
  // the user's terminal: colours, the window title, the clipboard (OSC 52). They are now shown
  // as `\uXXXX` escapes (packages/cli/src/terminal-safe.ts).
  it('prints no terminal control characters from a package in text diagnostics', () => {
    const r = berrypack(['check', 'bad.md'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).not.toMatch(CONTROL);
    expect(r.stdout).toContain('\\u001b]52;c;cHduZWQ=\\u0007');
  });

  it('prints no terminal control characters from a routine in `run` text output', () => {
    const r = berrypack(['run', 'plugin.json', '--export', 'shout'], { cwd: runDir });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('code-error');
    expect(r.stdout).not.toMatch(CONTROL);
    expect(r.stdout).toContain('\\u001b]0;title\\u0007\\u000dX');
  });
});
