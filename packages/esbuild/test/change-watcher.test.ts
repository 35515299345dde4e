import { appendFileSync, linkSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ChangeWatcher, eventsAreComplete } from '../src/change-watcher.js';
import { tempDir } from '../../../test/support/temp.js';

/** A poll of the event loop: what the kernel queued for the watches is delivered. */
const turn = () => new Promise((resolve) => setTimeout(resolve, 20));

// Events are trusted only from inotify (Linux), on a local file system such as the temp dir's.
describe.runIf(process.platform === 'linux')('ChangeWatcher', () => {
  it('names the files changed since the previous take, once its watches cover every file read', async () => {
    const dir = tempDir();
    mkdirSync(path.join(dir, 'r'));
    const a = path.join(dir, 'plugin.json');
    const b = path.join(dir, 'r/b.md');
    writeFileSync(a, '{}');
    writeFileSync(b, 'b');
    const watcher = new ChangeWatcher();
    try {
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
    } finally {
      watcher.close();
    }
  });

  it('cannot tell while a file read has another hard link, or after a watched folder is replaced', async () => {
    const dir = tempDir();
    mkdirSync(path.join(dir, 'r'));
    const b = path.join(dir, 'r/b.md');
    const c = path.join(dir, 'r/c.md');
    writeFileSync(b, 'b');
    writeFileSync(c, 'c');
    linkSync(c, path.join(dir, 'elsewhere.md'));
    const watcher = new ChangeWatcher();
    try {
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
    } finally {
      watcher.close();
    }
  });

  it('never names changes in a folder whose events it does not trust', async () => {
    const dir = tempDir();
    const b = path.join(dir, 'b.md');
    writeFileSync(b, 'b');
    expect(eventsAreComplete(dir)).toBe(true);
    const untrusting = new ChangeWatcher(() => false);
    try {
      untrusting.cover('m', [b]);
      untrusting.take();
      appendFileSync(b, '!');
      await turn();
      expect(untrusting.take()).toBeUndefined();
      untrusting.cover('m', [b]);
      expect(untrusting.take()).toBeUndefined();
    } finally {
      untrusting.close();
    }
  });
});
