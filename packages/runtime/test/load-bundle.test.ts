import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { BUNDLE_FORMAT, canonicalJson, digestOf } from '@berrypack/compiler/bundle';
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
/** Where fixtures/runtime/flow/routines/probe/throws.md throws: its `.md` line 7, not body line 2. */
const THROWS_AT = 'routines/probe/throws.md:7:13';

/** Rewrites a bundle's content and gives it a correct id in the same format, as an attacker with the format would. */
function forge(bytes: Uint8Array, edit: (content: Record<string, unknown>) => void): Uint8Array {
  const envelope = JSON.parse(new TextDecoder().decode(bytes)) as { content: Record<string, unknown>; format: string };
  edit(envelope.content);
  return encoder.encode(canonicalJson({ content: envelope.content, format: envelope.format, id: digestOf(canonicalJson(envelope.content)) }));
}

/** A committed `berrypack/1` bundle (fixtures/bundles/README.md), read byte for byte as an older berrypack wrote it. */
function committedV1(prefix: string): { file: string; bytes: Uint8Array } {
  const dir = path.join(ROOT, 'fixtures/bundles/berrypack-1');
  const name = readdirSync(dir).find((f) => f.startsWith(`${prefix}.`) && f.endsWith('.berry.json'))!;
  return { file: path.join(dir, name), bytes: readFileSync(path.join(dir, name)) };
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
    // berrypack/2 stores the body as a slice of its file: a text in its place is no reference at all,
    const inline = forge(notebook.bytes, (content) => {
      const sources = content['sources'] as Record<string, { code: { body: unknown } }>;
      sources['search.rank']!.code.body = 'export default function rank() { return []; }\n';
    });
    const error = await refusal(loadBundle(inline));
    expect(error.code).toBe('BP4016');
    expect(error.message).toContain('search.rank');
    // and a slice moved off the file's tail is not the body any more.
    const moved = forge(notebook.bytes, (content) => {
      const code = (content['sources'] as Record<string, { code: { body: { slice: [number, number] } } }>)['search.rank']!.code;
      code.body = { slice: [0, code.body.slice[1] - 1] };
    });
    const off = await refusal(loadBundle(moved));
    expect(off.code).toBe('BP4012');
    expect(off.message).toContain('search.rank');
    // berrypack/1 held the body as text: an edited one no longer ends its file.
    const old = forge(committedV1('example.notebook').bytes, (content) => {
      const sources = content['sources'] as Record<string, { code: { body: string } }>;
      sources['search.rank']!.code.body = 'export default function rank() { return []; }\n';
    });
    const oldError = await refusal(loadBundle(old));
    expect(oldError.code).toBe('BP4012');
    expect(oldError.message).toContain('search.rank');
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
    // The same for a berrypack/1 bundle, whose imports carry no format.
    const v1 = committedV1('example.greeter');
    const oldForged = forge(v1.bytes, (content) => {
      const imports = content['imports'] as { content: { sources: Record<string, { description: string }> } }[];
      imports[2]!.content.sources['text.tone']!.description = 'Changed after the import was built.';
    });
    const oldError = await refusal(loadBundle(oldForged, { blobs }));
    expect(oldError.code).toBe('BP4009');
    expect(oldError.message).toContain('import `textlib`');
    // An embedded content must name a format this loader reads.
    const future = forge(greeter.bytes, (content) => {
      (content['imports'] as { format: string }[])[0]!.format = 'berrypack/9';
    });
    expect((await refusal(loadBundle(future, { blobs }))).code).toBe('BP4006');
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

describe('every earlier format still loads, verifies and runs (docs/bundle-format.md, "Reading every version")', () => {
  it('reads a committed berrypack/1 bundle to the same content a berrypack/2 build of its package reads to', async () => {
    const old = await loadBundle(committedV1('example.notebook').bytes);
    const current = build('notebook');
    const now = await loadBundle(current.bytes);
    expect(old.format).toBe('berrypack/1');
    expect(now.format).toBe(BUNDLE_FORMAT);
    expect(BUNDLE_FORMAT).toBe('berrypack/2');
    // The stored forms differ (slices, no digests); what the runtime reads is the same, source maps aside.
    const withoutMaps = (content: typeof old.content) =>
      Object.fromEntries(Object.entries(content.sources).map(([name, s]) => [name, { ...s, code: s.code && { ...s.code, map: undefined } }]));
    expect(withoutMaps(now.content)).toEqual(withoutMaps(old.content));
    expect(now.content.files).toEqual(old.content.files);
    expect(current.bytes.length).toBeLessThan(committedV1('example.notebook').bytes.length);
  });

  it('loads a berrypack/1 bundle with embedded imports and a blob from a file, and refuses its damaged blob', async () => {
    const v1 = committedV1('example.greeter');
    const bundle = await loadBundle(v1.file);
    expect(bundle.format).toBe('berrypack/1');
    expect(bundle.content.imports.map((i) => i.name)).toEqual(['shout', 'tone', 'textlib']);
    expect(bundle.blobs.size).toBe(1);
    const [hex] = [...bundle.blobs.keys()];
    const damaged = new Map([[hex!, encoder.encode('not the banner')]]);
    expect((await refusal(loadBundle(v1.bytes, { blobs: damaged }))).code).toBe('BP4015');
  });

  it('runs a berrypack/1 code routine, mapping its error to the .md file, line and column', async () => {
    const runtime = createRuntime({ tools: { 'slow.ok': () => null, 'fast.ok': () => null, 'fail.now': () => null } });
    try {
      for (const bytes of [committedV1('runtime.flow').bytes, build('runtime/flow').bytes]) {
        const bundle = await loadBundle(bytes);
        const preparation = runtime.prepare(bundle, { grants: ['slow.ok', 'fast.ok', 'fail.now'] });
        const { executionId } = await runtime.start(preparation, { export: 'probe.throws' }, {});
        const outcome = await runtime.result(executionId);
        expect(outcome).toMatchObject({ status: 'failed', error: { code: 'code-error' } });
        expect((outcome as { error: { message: string } }).error.message).toContain(`(${THROWS_AT})`);
      }
    } finally {
      await runtime.close();
    }
  });
});
