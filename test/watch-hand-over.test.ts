import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadBundleFile, type BundleFile } from '@berrypack/compiler';
import { handOverBundle } from '@berrypack/compiler/internal-adapter';
import { rollup, watch } from 'rollup';
import { build, type InlineConfig } from 'vite';
import { describe, expect, it } from 'vitest';
import berrypack from '../packages/rollup/src/index.js';
import { importModule, nextBuild, rebuild, type Watcher } from './support/bundlers.js';
import { editedNotebook as project } from './support/edited-notebook.js';
import { tempDir } from './support/temp.js';

// webpack's and Rspack's watch sessions are tested in webpack.test.ts.

const bundlesIn = (out: string) =>
  readdirSync(out)
    .filter((f) => f.endsWith('.berry.json'))
    .sort();

/** `out` holds exactly `bundle`, with its bytes, and main.js points at it. */
async function holds(out: string, bundle: BundleFile): Promise<void> {
  expect(bundlesIn(out)).toEqual([bundle.fileName]);
  expect(readFileSync(path.join(out, bundle.fileName)).equals(Buffer.from(bundle.bytes))).toBe(true);
  const module = (await importModule<{ default: { id: string; fileName: string } }>(path.join(out, 'main.js'))).default;
  expect(module.id).toBe(bundle.id);
  expect(loadBundleFile(path.join(out, module.fileName), { expectedId: module.id }).ok).toBe(true);
}

/**
 * An edit, its undo and a redo in a watch session: each ends with one bundle in `out`, the
 * compiler's bytes for that state under its name. With `sameFile`, each is the first bundle's file
 * (its inode), renamed and overwritten, not a new one.
 */
async function editUndoRedo(watcher: Watcher, out: string, p: ReturnType<typeof project>, sameFile: boolean): Promise<void> {
  await nextBuild(watcher);
  await holds(out, p.before);
  const inode = statSync(path.join(out, p.before.fileName)).ino;
  for (const [text, bundle] of [
    [p.edited, p.after],
    [p.original, p.before],
    [p.edited, p.after],
  ] as const) {
    await rebuild(watcher, () => writeFileSync(p.compose, text));
    await holds(out, bundle);
    if (sameFile) expect(statSync(path.join(out, bundle.fileName)).ino).toBe(inode);
  }
}

describe('a watch session hands the superseded bundle over to the new one', () => {
  it('rollup.watch: one bundle in the output directory, the right bytes after an edit, its undo and a redo', { timeout: 120_000 }, async () => {
    const p = project();
    const out = path.join(p.dir, 'out');
    const watcher = watch({ input: path.join(p.dir, 'main.js'), plugins: [berrypack()], output: { dir: out, format: 'es' }, logLevel: 'silent' });
    try {
      await editUndoRedo(watcher, out, p, true);
    } finally {
      await watcher.close();
    }
  });

  /** Vite's build watch of main.js into `outDir`. */
  function viteWatch(dir: string, outDir: string, emptyOutDir: boolean | null = null): InlineConfig {
    return {
      root: dir,
      configFile: false,
      logLevel: 'silent',
      plugins: [berrypack()],
      build: {
        outDir,
        emptyOutDir,
        minify: false,
        watch: {},
        rolldownOptions: { input: path.join(dir, 'main.js'), preserveEntrySignatures: 'strict', output: { entryFileNames: '[name].js' } },
      },
    };
  }

  /** A `vite build --watch` session through an edit, its undo and a redo (`handedOver`: the same file throughout). */
  async function viteSession(emptyOutDir: boolean | undefined, handedOver: boolean): Promise<void> {
    const p = project();
    const out = path.join(p.dir, 'dist');
    const watcher = (await build(viteWatch(p.dir, out, emptyOutDir))) as unknown as Watcher & { close(): Promise<void> };
    try {
      await editUndoRedo(watcher, out, p, handedOver);
    } finally {
      await watcher.close();
    }
  }

  it('vite build --watch with emptyOutDir: false: the bundle file is handed over', { timeout: 120_000 }, () => viteSession(false, true));

  it('vite build --watch emptying its outDir (the default inside the root) still ends each rebuild with one right bundle', { timeout: 120_000 }, () =>
    viteSession(undefined, false),
  );

  it('a Rollup build outside watch mode leaves an older bundle alone', { timeout: 120_000 }, async () => {
    const p = project();
    const out = path.join(p.dir, 'out');
    const once = async () => {
      const bundle = await rollup({ input: path.join(p.dir, 'main.js'), plugins: [berrypack()], logLevel: 'silent' });
      try {
        await bundle.write({ dir: out, format: 'es' });
      } finally {
        await bundle.close();
      }
    };
    await once();
    const stamp = statSync(path.join(out, p.before.fileName));
    writeFileSync(p.compose, p.edited);
    await once();
    expect(bundlesIn(out)).toEqual([p.after.fileName, p.before.fileName].sort());
    const kept = statSync(path.join(out, p.before.fileName));
    expect([kept.ino, kept.mtimeMs, kept.size]).toEqual([stamp.ino, stamp.mtimeMs, stamp.size]);
  });

  it('handOverBundle moves only a regular, singly linked bundle file, never onto an existing file, and empties it when it has the new length', () => {
    const dir = tempDir('berrypack-hand-over-');
    const a = 'example.notebook.0123456789ab.berry.json';
    const b = 'example.notebook.ba9876543210.berry.json';
    const c = 'example.notebook.cccccccccccc.berry.json';
    writeFileSync(path.join(dir, a), 'old bytes');
    expect(handOverBundle(dir, a, b)).toBe(true);
    expect(bundlesIn(dir)).toEqual([b]);
    expect(statSync(path.join(dir, b)).size).toBe(0);
    // With the new bundle's length: emptied only when the old file has that length.
    writeFileSync(path.join(dir, b), 'old bytes');
    expect(handOverBundle(dir, b, a, 3)).toBe(true);
    expect(readFileSync(path.join(dir, a), 'utf8')).toBe('old bytes');
    expect(handOverBundle(dir, a, b, 'old bytes'.length)).toBe(true);
    expect(statSync(path.join(dir, b)).size).toBe(0);
    // Same name, names that are not a bundle's or would leave the directory, a missing file.
    expect(handOverBundle(dir, b, b)).toBe(false);
    expect(handOverBundle(dir, b, 'notes.txt')).toBe(false);
    expect(handOverBundle(dir, b, `../${c}`)).toBe(false);
    expect(handOverBundle(dir, c, a)).toBe(false);
    expect(bundlesIn(dir)).toEqual([b]);
    // Onto an existing file.
    writeFileSync(path.join(dir, c), 'other');
    expect(handOverBundle(dir, b, c)).toBe(false);
    expect(readFileSync(path.join(dir, c), 'utf8')).toBe('other');
    // A file with another hard link, a symbolic link, a directory.
    const elsewhere = path.join(dir, 'elsewhere');
    mkdirSync(elsewhere);
    linkSync(path.join(dir, c), path.join(elsewhere, 'copy'));
    expect(handOverBundle(dir, c, a)).toBe(false);
    symlinkSync(path.join(elsewhere, 'copy'), path.join(dir, a));
    expect(handOverBundle(dir, a, 'example.notebook.dddddddddddd.berry.json')).toBe(false);
    mkdirSync(path.join(dir, 'example.notebook.eeeeeeeeeeee.berry.json'));
    expect(handOverBundle(dir, 'example.notebook.eeeeeeeeeeee.berry.json', 'example.notebook.ffffffffffff.berry.json')).toBe(false);
    expect(existsSync(path.join(dir, 'example.notebook.ffffffffffff.berry.json'))).toBe(false);
    expect(readFileSync(path.join(elsewhere, 'copy'), 'utf8')).toBe('other');
  });
});
