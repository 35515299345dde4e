import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { StatPrefetch } from '../src/package/cache/stat-prefetch.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'berrypack-stat-prefetch-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const files = Array.from({ length: 300 }, (_, i) => path.join(root, `d${i % 7}`, `f${i}.md`));
for (const file of files) {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `file ${file}\n`);
}

function expectFields(fields: ArrayLike<number> | null | undefined, file: string): void {
  const s = statSync(file);
  expect(fields).toBeTruthy();
  expect(Array.from(fields as ArrayLike<number>).slice(0, 5)).toEqual([s.dev, s.ino, s.size, s.mtimeMs, s.ctimeMs]);
}

describe('StatPrefetch (stamps of many files on two threads)', () => {
  it("gives every path's stat fields, null for what is not a regular file, undefined for what was not asked", async () => {
    const prefetch = new StatPrefetch();
    const missing = path.join(root, 'missing.md');
    const directory = path.join(root, 'd0');
    const paths = [...files, missing, directory];
    prefetch.stat(paths); // the first call starts the helper thread
    await sleep(300);
    for (let round = 0; round < 3; round++) {
      const stamps = prefetch.stat(paths);
      for (const file of files) expectFields(stamps.get(file), file);
      expect(stamps.get(missing)).toBeNull();
      expect(stamps.get(directory)).toBeNull();
      expect(stamps.get(path.join(root, 'never-asked.md'))).toBeUndefined();
    }
  });

  it('sees files change, appear, vanish and the list change between calls', async () => {
    const prefetch = new StatPrefetch();
    const paths = [...files];
    prefetch.stat(paths);
    await sleep(300);
    for (let round = 0; round < 5; round++) {
      // Every chunk of the list, wherever either thread takes it from.
      for (let i = round; i < files.length; i += 37) writeFileSync(files[i]!, `changed ${round} ${'x'.repeat(round * 10 + i)}\n`);
      const stamps = prefetch.stat(paths);
      for (const file of files) expectFields(stamps.get(file), file);
    }
    const gone = files[5]!;
    rmSync(gone);
    expect(prefetch.stat(paths).get(gone)).toBeNull();
    writeFileSync(gone, 'back\n');
    const extra = path.join(root, 'extra.md');
    writeFileSync(extra, 'extra\n');
    const longer = [...files, extra];
    const stamps = prefetch.stat(longer);
    expectFields(stamps.get(gone), gone);
    expectFields(stamps.get(extra), extra);
    // Two lists in turn (two packages of one process share the helper): each gets its own answers.
    const other = new StatPrefetch();
    const few = files.slice(0, 100);
    for (let round = 0; round < 3; round++) {
      const a = prefetch.stat(longer);
      const b = other.stat(few);
      expectFields(a.get(extra), extra);
      expect(b.get(extra)).toBeUndefined();
      for (const file of few) expectFields(b.get(file), file);
    }
  });
});
