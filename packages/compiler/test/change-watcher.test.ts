import { appendFileSync, linkSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ChangeWatcher, eventsAreComplete } from '../src/package/change-watcher.js';
import { tempDir } from '../../../test/support/temp.js';

/** A poll of the event loop: what the kernel queued for the watches is delivered. */
const turn = () => new Promise((resolve) => setTimeout(resolve, 20));

/** A temp folder holding `r/` and the given files (relative path → text); `at` makes a path in it absolute. */
function folder(files: Record<string, string>): { dir: string; at: (name: string) => string } {
  const dir = tempDir();
  const at = (name: string) => path.join(dir, name);
  mkdirSync(at('r'));
  for (const [name, text] of Object.entries(files)) writeFileSync(at(name), text);
  return { dir, at };
}

/** Runs `use` with a watcher, closed afterwards whatever happens. */
async function watching(use: (watcher: ChangeWatcher) => Promise<void>, watcher = new ChangeWatcher()): Promise<void> {
  try {
    await use(watcher);
  } finally {
    watcher.close();
  }
}

// Events are trusted only from inotify (Linux), on a local file system such as the temp dir's.
describe.runIf(process.platform === 'linux')('ChangeWatcher', () => {
  it('names the files changed since the previous take, once its watches cover every file read', async () => {
    const { dir, at } = folder({ 'plugin.json': '{}', 'r/b.md': 'b' });
    const a = at('plugin.json');
    const b = at('r/b.md');
    await watching(async (watcher) => {
      // Nothing watched yet, then watches just started (what changed before them was not seen).
      expect(watcher.take()).toBeUndefined();
      // Probes of missing files, one below a file (ENOTDIR): the compiler probes them again itself.
      watcher.cover('m', [a, b, path.join(dir, 'r/probed-but-missing.js'), path.join(b, 'index.js')]);
      expect(watcher.take()).toBeUndefined();
      watcher.cover('m', [a, b, path.join(b, 'index.js')]);
      appendFileSync(b, '!');
      await turn();
      expect(watcher.take()).toEqual(new Set([b]));
      expect(watcher.take()).toEqual(new Set());
      const saved = path.join(dir, 'r/.b.tmp');
      writeFileSync(saved, 'b2');
      renameSync(saved, b);
      await turn();
      expect(watcher.take()).toEqual(new Set([saved, b]));
    });
  });

  it('watches folders ahead of a compile, so the compile after it can take events once the files are covered', async () => {
    const { at } = folder({ 'plugin.json': '{}', 'r/b.md': 'b', 'r/c.md': 'c' });
    const [b, c] = [at('r/b.md'), at('r/c.md')];
    const files = [at('plugin.json'), b, c];
    await watching(async (watcher) => {
      watcher.watchFolders(files);
      // The compile right after the watches started checks every file: what changed before them was not seen.
      appendFileSync(b, '!');
      await turn();
      expect(watcher.take()).toBeUndefined();
      // Covering the files after that compile starts no watch, so the next take trusts the events.
      watcher.cover('m', files);
      appendFileSync(c, '!');
      await turn();
      expect(watcher.take()).toEqual(new Set([c]));
    });
  });

  it('cannot tell while a file read has another hard link, or after a watched folder is replaced', async () => {
    const { dir, at } = folder({ 'r/b.md': 'b', 'r/c.md': 'c' });
    const b = at('r/b.md');
    const c = at('r/c.md');
    linkSync(c, path.join(dir, 'elsewhere.md'));
    await watching(async (watcher) => {
      watcher.cover('m', [b]);
      watcher.cover('n', [c]);
      watcher.take();
      // A write through c's other name would raise no event in r/.
      expect(watcher.take()).toBeUndefined();
      watcher.cover('n', []);
      expect(watcher.take()).toEqual(new Set());
      renameSync(path.join(dir, 'r'), path.join(dir, 'old-r'));
      mkdirSync(path.join(dir, 'r'));
      writeFileSync(b, 'new b');
      await turn();
      expect(watcher.take()).toBeUndefined();
    });
  });

  it('never names changes in a folder whose events it does not trust', async () => {
    const { dir, at } = folder({ 'b.md': 'b' });
    const b = at('b.md');
    expect(eventsAreComplete(dir)).toBe(true);
    await watching(
      async (untrusting) => {
        untrusting.cover('m', [b]);
        untrusting.take();
        appendFileSync(b, '!');
        await turn();
        expect(untrusting.take()).toBeUndefined();
        untrusting.cover('m', [b]);
        expect(untrusting.take()).toBeUndefined();
      },
      new ChangeWatcher(() => false),
    );
  });
});
