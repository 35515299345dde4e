import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createCompiler, nodeHost } from '@berrypack/compiler';
import { changedFileBuilds } from '../src/watch/changed-builds.js';
import { agePastRacyWindow } from '../../../test/support/stamps.js';
import { copyFixtures } from '../../../test/support/temp.js';

/** Two polls of the event loop: the kernel's events for the watches are delivered, and the files' kinds taken. */
const turn = () => new Promise((resolve) => setTimeout(resolve, 30));

/**
 * A watch session on a copy of the notebook fixture: the builds, what each was told, and the
 * bundle id a fresh compiler gives. `compile` builds with the list it is given (`fail` is asked
 * first, with the number of builds so far, and throws when it says so).
 */
function session(options: { host?: typeof nodeHost; fail?: (builds: number) => boolean } = {}) {
  const pkg = path.join(copyFixtures(['notebook']), 'notebook');
  const manifest = path.join(pkg, 'plugin.json');
  const compiler = createCompiler(options.host ? { host: options.host } : {});
  const told: (ReadonlySet<string> | undefined)[] = [];
  const builds = changedFileBuilds(manifest, (changedFiles) => {
    told.push(changedFiles);
    if (options.fail?.(told.length)) throw new Error('internal');
    return compiler.build(manifest, changedFiles === undefined ? {} : { changedFiles });
  });
  const fresh = () => createCompiler().build(manifest).bundle!.id;
  return { pkg, compose: path.join(pkg, 'routines/notes/compose.md'), told, builds, fresh };
}

// Events are trusted only from inotify (Linux), on a local file system such as the temp dir's.
describe.runIf(process.platform === 'linux')("the CLI's watch builds", () => {
  it('tell every rebuild, the first edit’s included, which files changed, so it stats only those, and give a fresh compile’s bundle', async () => {
    let stamps = 0;
    const { pkg, compose, told, builds, fresh } = session({ host: { ...nodeHost, stamp: (file) => (stamps++, nodeHost.stamp!(file)) } });
    const score = path.join(pkg, 'routines/lib/score.js');
    /** A build after `edit`, with the stamps it took; its bundle is checked against a fresh compiler's. */
    const rebuild = async (edit: () => void) => {
      edit();
      await turn();
      stamps = 0;
      const result = builds.build();
      expect(result.ok).toBe(true);
      expect(result.bundle!.id).toBe(fresh());
      await turn();
      return stamps;
    };
    try {
      // Read well after the copy, so the reads are kept (a file changed within a tick of its read is read again).
      await agePastRacyWindow();
      const first = builds.build();
      expect(first.ok).toBe(true);
      expect(told).toEqual([undefined]);
      // The watches started after the first build, so what changed before them went unseen: the
      // build that runs unseen right after it is told nothing and checks every file.
      await turn();
      expect(told).toEqual([undefined, undefined]);
      expect(stamps).toBeGreaterThanOrEqual(first.files.filter((f) => f.endsWith('.md') || f.endsWith('.js')).length);
      // Each edit's rebuild, from the first, checks at most the edited file (none when its last
      // read was too recent to keep), a routine's or a code module's.
      const edited = readFileSync(compose, 'utf8').replace('Rewrite the note', 'Rewrite the message');
      expect(await rebuild(() => writeFileSync(compose, edited))).toBeLessThanOrEqual(1);
      expect([...told[2]!]).toEqual([compose]);
      expect(await rebuild(() => writeFileSync(compose, `${edited}\nAgain.\n`))).toBeLessThanOrEqual(1);
      expect([...told[3]!]).toEqual([compose]);
      expect(await rebuild(() => writeFileSync(score, readFileSync(score, 'utf8').replace(/\n$/, '\n// edited\n')))).toBeLessThanOrEqual(1);
      expect([...told[4]!]).toEqual([score]);
      expect(told).toHaveLength(5);
    } finally {
      builds.close();
    }
  });

  it('tell the build after one that threw nothing, since the changes that one took may not have been read', async () => {
    let fail = false;
    const { compose, told, builds, fresh } = session({ fail: () => fail });
    // Each build reads well after the last write, so what it reads is kept for the next.
    try {
      await agePastRacyWindow();
      builds.build();
      // The build that runs unseen after the first reads nothing new: what the first read is kept.
      await agePastRacyWindow();
      expect(told).toEqual([undefined, undefined]);
      writeFileSync(compose, readFileSync(compose, 'utf8').replace('Rewrite the note', 'Rewrite the message'));
      await agePastRacyWindow();
      fail = true;
      expect(() => builds.build()).toThrow('internal');
      expect([...told[2]!]).toEqual([compose]);
      fail = false;
      // Told the empty list that follows, this build would serve the edited routine's earlier bytes.
      const after = builds.build();
      expect(told[3]).toBeUndefined();
      expect(after.bundle!.id).toBe(fresh());
      await turn();
      writeFileSync(compose, `${readFileSync(compose, 'utf8')}\nAgain.\n`);
      await agePastRacyWindow();
      expect(builds.build().bundle!.id).toBe(fresh());
      expect([...told[4]!]).toEqual([compose]);
    } finally {
      builds.close();
    }
  });

  it('tell the first edit nothing when the build that runs unseen after the first one threw', async () => {
    const { compose, told, builds, fresh } = session({ fail: (count) => count === 2 });
    try {
      builds.build();
      await turn();
      writeFileSync(compose, `${readFileSync(compose, 'utf8')}\nAgain.\n`);
      await turn();
      expect(builds.build().bundle!.id).toBe(fresh());
      expect(told).toEqual([undefined, undefined, undefined]);
    } finally {
      builds.close();
    }
  });
});
