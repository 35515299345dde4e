import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ManifestCache } from '../src/package/cache/manifest-cache.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'berrypack-manifest-cache-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const file = path.join(root, 'plugin.json');
const enc = (s: string) => new TextEncoder().encode(s);

describe('ManifestCache', () => {
  it('reuses a read while the bytes are the same object and the version the same', () => {
    const cache = new ManifestCache();
    const bytes = enc(JSON.stringify({ name: 'demo', version: '1.0.0', description: 'd', extensions: { berry: {} } }));
    const first = cache.read(file, bytes);
    expect(first.manifest?.name).toBe('demo');
    const again = cache.read(file, bytes);
    expect(again.manifest).toBe(first.manifest);
    // The same text in a new bytes object (a file read again) is parsed again.
    expect(cache.read(file, enc(new TextDecoder().decode(bytes))).manifest).not.toBe(first.manifest);
  });

  it('hands out copies of the diagnostics, and reads again for another expected version', () => {
    const cache = new ManifestCache();
    const bytes = enc('{"name": "Bad Name", "version": "1.0.0", "extensions": {"berry": {}}}');
    const first = cache.read(file, bytes);
    expect(first.diagnostics.length).toBeGreaterThan(0);
    first.diagnostics[0]!.file = 'rewritten';
    const again = cache.read(file, bytes);
    expect(again.diagnostics[0]!.file).toBe(file);
    expect(again.diagnostics.map((d) => d.code)).toEqual(first.diagnostics.map((d) => d.code));
    const versioned = cache.read(file, bytes, { version: `sha256-${'0'.repeat(64)}` });
    expect(versioned.diagnostics.map((d) => d.code)).toContain('BP2080');
    expect(cache.read(file, bytes).diagnostics.map((d) => d.code)).not.toContain('BP2080');
  });
});
