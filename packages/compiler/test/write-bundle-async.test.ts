// BND-1 writeBundleAsync: the same files and the same refusals as writeBundle, with the fsyncs of
// the blobs and the bundle waiting for the disk together (issue #21, round eight, wt-sys).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../src/bundle/digest.js';
import { createBundle } from '../src/bundle/envelope.js';
import { loadBundleFile, writeBundle, writeBundleAsync } from '../src/bundle/write-bundle.js';
import { listFiles } from '../../../test/support/temp.js';

const enc = (s: string) => new TextEncoder().encode(s);
const BLOB_BYTES = [new Uint8Array([0, 1, 2, 255]), enc('<p>hi</p>\r\n'), enc('x'.repeat(70_000))];
const BLOBS = new Map(BLOB_BYTES.map((bytes) => [sha256Hex(bytes), bytes] as const));
const CONTENT = {
  name: 'example.async',
  files: [{ path: 'plugin.json', mediaType: 'application/json', text: '{"name":"example.async"}\n' }],
  resources: BLOB_BYTES.map((bytes, i) => ({
    uri: `ui://r${i}`,
    path: `assets/r${i}`,
    mediaType: 'application/octet-stream',
    digest: `sha256-${sha256Hex(bytes)}`,
    size: bytes.length,
  })),
};

describe('BND-1 writeBundleAsync', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'berrypack-write-async-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const bundle = createBundle('example.async', CONTENT, BLOBS);
  const tree = (dir: string) => listFiles(dir).map((f) => [f, readFileSync(path.join(dir, f)).toString('base64')]);

  it('writes exactly the files writeBundle writes, and they load', async () => {
    const sync = path.join(root, 'sync');
    const async = path.join(root, 'async');
    const file = await writeBundleAsync(async, bundle);
    expect(file).toBe(path.join(async, bundle.fileName));
    writeBundle(sync, bundle);
    expect(tree(async)).toEqual(tree(sync));
    expect(listFiles(async)).toEqual([bundle.fileName, ...[...BLOBS.keys()].map((hex) => `blobs/sha256/${hex}`)].sort());
    const loaded = loadBundleFile(file, { expectedId: bundle.id });
    expect(loaded.ok).toBe(true);
  });

  it('writes more blobs than it holds open at once (64 at a time), the same as writeBundle', async () => {
    const many = Array.from({ length: 150 }, (_, i) => enc(`blob ${i}\n`));
    const blobs = new Map(many.map((bytes) => [sha256Hex(bytes), bytes] as const));
    const content = {
      ...CONTENT,
      resources: many.map((bytes, i) => ({
        ...CONTENT.resources[0]!,
        uri: `ui://m${i}`,
        path: `assets/m${i}`,
        digest: `sha256-${sha256Hex(bytes)}`,
        size: bytes.length,
      })),
    };
    const large = createBundle('example.async', content, blobs);
    const async = path.join(root, 'many-async');
    const sync = path.join(root, 'many-sync');
    const file = await writeBundleAsync(async, large);
    writeBundle(sync, large);
    expect(listFiles(async)).toHaveLength(151);
    expect(tree(async)).toEqual(tree(sync));
    expect(loadBundleFile(file, { expectedId: large.id }).ok).toBe(true);
  });

  it('writes a bundle in parts and one without blobs', async () => {
    const bare = createBundle('example.bare', { name: 'example.bare', files: [] }, new Map());
    const out = path.join(root, 'bare');
    const file = await writeBundleAsync(out, bare);
    expect(listFiles(out)).toEqual([bare.fileName]);
    expect(new Uint8Array(readFileSync(file))).toEqual(bare.bytes);
    const parts = { ...bundle, parts: [bundle.bytes.subarray(0, 10), bundle.bytes.subarray(10, 11), bundle.bytes.subarray(11)] };
    const split = path.join(root, 'parts');
    expect(new Uint8Array(readFileSync(await writeBundleAsync(split, parts)))).toEqual(bundle.bytes);
  });

  it('leaves identical files alone and repairs a damaged blob', async () => {
    const out = path.join(root, 'again');
    const file = await writeBundleAsync(out, bundle);
    const [first, second] = [...BLOBS.keys()] as [string, string];
    const blob = (hex: string) => path.join(out, 'blobs/sha256', hex);
    const before = { file: statSync(file).ino, first: statSync(blob(first)).ino };
    writeFileSync(blob(second), 'damaged');
    const damaged = statSync(blob(second)).ino;
    await writeBundleAsync(out, bundle);
    expect(statSync(file).ino).toBe(before.file);
    expect(statSync(blob(first)).ino).toBe(before.first);
    expect(statSync(blob(second)).ino).not.toBe(damaged);
    expect(new Uint8Array(readFileSync(blob(second)))).toEqual(BLOBS.get(second));
    expect(listFiles(out).some((f) => f.endsWith('.tmp'))).toBe(false);
  });

  it('rejects without leaving a partial bundle or a temporary file', async () => {
    const notADir = path.join(root, 'not-a-dir');
    writeFileSync(notADir, 'x');
    await expect(writeBundleAsync(notADir, bundle)).rejects.toThrow();
    expect(readFileSync(notADir, 'utf8')).toBe('x');
    // The bundle's own name is taken by a directory: the blobs are written, then its rename fails.
    const blocked = path.join(root, 'blocked');
    mkdirSync(path.join(blocked, bundle.fileName), { recursive: true });
    await expect(writeBundleAsync(blocked, bundle)).rejects.toThrow();
    expect(statSync(path.join(blocked, bundle.fileName)).isDirectory()).toBe(true);
    expect(listFiles(blocked).filter((f) => !f.startsWith('blobs/'))).toEqual([]);
    expect(readdirSync(blocked).filter((f) => f.startsWith('.'))).toEqual([]);
  });

  it('never renames the bundle into place when a blob cannot be', async () => {
    // The last blob's name is taken by a directory: its rename fails after every file was written
    // and synced, so the bundle (already written to its temporary file) must go, not appear.
    const out = path.join(root, 'blob-blocked');
    const last = [...BLOBS.keys()].at(-1)!;
    mkdirSync(path.join(out, 'blobs/sha256', last), { recursive: true });
    await expect(writeBundleAsync(out, bundle)).rejects.toThrow();
    expect(readdirSync(out).filter((f) => f !== 'blobs')).toEqual([]);
    expect(readdirSync(path.join(out, 'blobs/sha256')).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('refuses a hand-made file name or blob key before writing anything', async () => {
    const evil = path.join(root, 'evil');
    await expect(writeBundleAsync(evil, { ...bundle, fileName: '../x.berry.json' })).rejects.toThrow(/Unexpected bundle file name/);
    const badKey = new Map([...BLOBS, ['NOT-HEX', new Uint8Array([1])]]);
    await expect(writeBundleAsync(evil, { ...bundle, blobs: badKey })).rejects.toThrow(/Unexpected blob key "NOT-HEX"/);
    expect(() => readdirSync(evil)).toThrow();
    expect(readdirSync(root).includes('x.berry.json')).toBe(false);
  });
});
