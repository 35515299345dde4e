import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { canonicalJson, digestOf } from '@berrypack/compiler/bundle';
import { createCompiler } from '../../compiler/src/index.js';
import { BundleLoadError, createRuntime, loadBundle, type Sandbox } from '../src/index.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const tmp = mkdtempSync(path.join(os.tmpdir(), 'berrypack-load-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function build(fixture: string) {
  const built = createCompiler({ store: path.join(tmp, 'store') }).build(path.join(ROOT, 'fixtures', fixture, 'plugin.json'));
  if (!built.ok || !built.bundle) throw new Error(`fixture ${fixture} does not build: ${JSON.stringify(built.diagnostics)}`);
  return built.bundle;
}

/** A sandbox that records whether anything ever ran in it. */
function spySandbox(): Sandbox & { invocations: number } {
  return {
    invocations: 0,
    async invoke() {
      this.invocations++;
      return { ok: true, output: null };
    },
    async close() {},
  };
}

async function refusal(promise: Promise<unknown>): Promise<BundleLoadError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(BundleLoadError);
  return error as BundleLoadError;
}

const encoder = new TextEncoder();

/** Rewrites a bundle's content and gives it a correct id, as an attacker with the format would. */
function forge(bytes: Uint8Array, edit: (content: Record<string, unknown>) => void): Uint8Array {
  const envelope = JSON.parse(new TextDecoder().decode(bytes)) as { content: Record<string, unknown> };
  edit(envelope.content);
  return encoder.encode(canonicalJson({ content: envelope.content, format: 'berrypack/1', id: digestOf(canonicalJson(envelope.content)) }));
}

describe('RUN-1: loadBundle verifies every digest before anything runs (BND-4)', () => {
  const notebook = build('notebook');

  it('loads from bytes without a filesystem, from a path and from a file: URL, to the same frozen bundle', async () => {
    const fromBytes = await loadBundle(notebook.bytes);
    const file = path.join(tmp, notebook.fileName);
    writeFileSync(file, notebook.bytes);
    const fromPath = await loadBundle(file);
    const fromUrl = await loadBundle(pathToFileURL(file));
    expect(fromBytes.id).toBe(notebook.id);
    expect(fromPath.id).toBe(notebook.id);
    expect(fromUrl.id).toBe(notebook.id);
    expect(Object.isFrozen(fromBytes.content.sources)).toBe(true);
    expect(Object.keys(fromBytes.content.sources)).toContain('search.rank');
  });

  it('refuses a bundle with one flipped byte before any code runs', async () => {
    const sandbox = spySandbox();
    const runtime = createRuntime({ sandbox });
    // Flip one byte inside the code of search.rank: still valid UTF-8 and JSON, a different bundle.
    const text = new TextDecoder().decode(notebook.bytes);
    const at = text.indexOf('hit.score > 0');
    expect(at).toBeGreaterThan(0);
    const flipped = Uint8Array.from(notebook.bytes);
    flipped[at + 'hit.score > '.length] = '1'.charCodeAt(0);
    const error = await refusal(loadBundle(flipped));
    expect(error.code).toBe('BP4009');
    expect(error.rule).toBe('BND-4');
    expect(error.message).toMatch(/^Unexpected id sha256-[0-9a-f]{64}, expected sha256-[0-9a-f]{64} \(the content's digest\)/);
    expect(sandbox.invocations).toBe(0);
    await runtime.close();
  });

  it('refuses every single-byte change of a small bundle', async () => {
    const agents = build('runtime/agents');
    let refused = 0;
    for (let i = 0; i < agents.bytes.length; i += 97) {
      const changed = Uint8Array.from(agents.bytes);
      changed[i] = changed[i] === 0x61 ? 0x62 : 0x61;
      await refusal(loadBundle(changed));
      refused++;
    }
    expect(refused).toBeGreaterThan(10);
  });

  it('refuses an unexpected id (expectedId) and a non-file URL without fetching it', async () => {
    const other = build('runtime/agents');
    expect((await refusal(loadBundle(notebook.bytes, { expectedId: other.id }))).code).toBe('BP4010');
    const remote = await refusal(loadBundle(new URL('https://example.com/notebook.berry.json')));
    expect(remote.code).toBe('BP4001');
    expect(remote.message).toContain('never downloads');
    expect((await refusal(loadBundle(path.join(tmp, 'absent.berry.json')))).code).toBe('BP4001');
  });

  it('refuses a code body edited together with a recomputed id: the source no longer matches its file', async () => {
    const forged = forge(notebook.bytes, (content) => {
      const sources = content['sources'] as Record<string, { code: { body: string } }>;
      sources['search.rank']!.code.body = 'export default function rank() { return []; }\n';
    });
    const error = await refusal(loadBundle(forged));
    expect(error.code).toBe('BP4012');
    expect(error.message).toContain('search.rank');
  });

  it('verifies embedded imports as bundles of their own', async () => {
    const greeter = build('imports/app');
    const blobs = new Map(greeter.blobs);
    await expect(loadBundle(greeter.bytes, { blobs })).resolves.toMatchObject({ id: greeter.id });
    const forged = forge(greeter.bytes, (content) => {
      const imports = content['imports'] as { content: { sources: Record<string, { description: string }> } }[];
      imports[0]!.content.sources['text.shout']!.description = 'Changed after the import was built.';
    });
    const error = await refusal(loadBundle(forged, { blobs }));
    expect(error.code).toBe('BP4009');
    expect(error.message).toContain('import `shout`');
  });

  it('verifies resource blobs given with bytes, and those beside a bundle file', async () => {
    const greeter = build('imports/app');
    const [hex, blob] = [...greeter.blobs][0]!;
    const damaged = new Map([[hex, encoder.encode('not the banner')]]);
    expect((await refusal(loadBundle(greeter.bytes, { blobs: damaged }))).code).toBe('BP4015');
    expect(blob.length).toBeGreaterThan(0);
    const file = path.join(tmp, greeter.fileName);
    writeFileSync(file, greeter.bytes);
    expect((await refusal(loadBundle(file))).code).toBe('BP4014');
    expect(readFileSync(file).length).toBe(greeter.bytes.length);
  });
});
