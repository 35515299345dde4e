import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createCompiler } from '@berrypack/compiler';
import { BIN, ROOT } from './support/cli.js';
import { copyFixtures } from './support/temp.js';

/** Collects a child's stdout by line; `next` waits for a line after the last one consumed. */
function lineReader(child: ChildProcess) {
  const lines: string[] = [];
  let buffer = '';
  let consumed = 0;
  let wake: (() => void) | undefined;
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (chunk: string) => {
    buffer += chunk;
    const parts = buffer.split('\n');
    buffer = parts.pop()!;
    lines.push(...parts);
    wake?.();
  });
  return {
    lines,
    /** The next line matching `pattern`; the lines before it are returned too. */
    async next(pattern: RegExp, timeoutMs = 20_000): Promise<{ match: RegExpMatchArray; before: string[] }> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        for (let i = consumed; i < lines.length; i++) {
          const match = lines[i]!.match(pattern);
          if (match) {
            const before = lines.slice(consumed, i);
            consumed = i + 1;
            return { match, before };
          }
        }
        if (Date.now() > deadline) throw new Error(`no line matching ${pattern} within ${timeoutMs} ms; output so far:\n${lines.join('\n')}`);
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 200);
        });
      }
    },
  };
}

describe('berrypack build --watch (the real bin)', () => {
  it(
    'rebuilds on edits, reports a break, recovers, picks up a new routine and a renamed-over manifest, and exits 0 on SIGTERM',
    { timeout: 120_000 },
    async () => {
      const dir = copyFixtures(['notebook']);
      const pkg = path.join(dir, 'notebook');
      const compose = path.join(pkg, 'routines/notes/compose.md');
      const original = readFileSync(compose, 'utf8');
      const expectedId = () => createCompiler().build(path.join(pkg, 'plugin.json')).bundle!.id;
      const child = spawn(process.execPath, [BIN, 'build', path.join(pkg, 'plugin.json'), '--watch', '--out-dir', path.join(dir, 'dist')], {
        cwd: ROOT,
        env: { ...process.env, NO_COLOR: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
        child.on('exit', (code, signal) => resolve({ code, signal })),
      );
      const out = lineReader(child);
      const rebuilt = /^rebuilt (\S+\.berry\.json) (sha256-[0-9a-f]{64})$/;
      try {
        const first = (await out.next(/^ {2}id (sha256-[0-9a-f]{64})$/)).match[1];
        expect(first).toBe(expectedId());

        writeFileSync(compose, original.replace('Rewrite the note', 'Rewrite the message'));
        const edited = await out.next(rebuilt);
        expect(edited.match[2]).toBe(expectedId());
        expect(edited.match[2]).not.toBe(first);
        expect(existsSync(edited.match[1]!)).toBe(true);

        writeFileSync(compose, original.replace('Rewrite the note', 'Rewrite the message').replace('    - tags\n', '    - tags\n    - title\n'));
        const broken = await out.next(/^✖ 1 error, waiting for changes$/);
        expect(broken.before.join('\n')).toContain('error  Unexpected `title` listed again in `output.required`, expected each name once  BP1271 SCH-7');

        // Saved the way many editors do: a new file renamed over the old one.
        writeFileSync(`${compose}.swp`, original.replace('Rewrite the note', 'Rewrite the message'));
        renameSync(`${compose}.swp`, compose);
        expect((await out.next(rebuilt)).match[2]).toBe(edited.match[2]);

        writeFileSync(path.join(pkg, 'routines/notes/tidy.md'), '---\nname: notes.tidy\ndescription: Tidies a note.\n---\nKeep it tidy.\n');
        const added = (await out.next(rebuilt)).match[2];
        expect(added).toBe(expectedId());
        expect(added).not.toBe(edited.match[2]);

        // The manifest's folder is not a sources folder: only plugin.json's own name is watched there.
        const manifest = path.join(pkg, 'plugin.json');
        writeFileSync(`${manifest}.tmp`, readFileSync(manifest, 'utf8').replace('"title": "Notebook"', '"title": "Notebook II"'));
        renameSync(`${manifest}.tmp`, manifest);
        const renamed = (await out.next(rebuilt)).match[2];
        expect(renamed).toBe(expectedId());
        expect(renamed).not.toBe(added);

        child.kill('SIGTERM');
        expect(await exited).toEqual({ code: 0, signal: null });
        expect(stderr).toBe('');
      } finally {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }
    },
  );
});
