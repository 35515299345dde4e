import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { canonicalJson, createCompiler, writeBundle, type BundleFile } from '@berrypack/compiler';
import { BundleLoadError, createRuntime, loadBundle, type Bundle, type ModelProvider, type Sandbox } from '@berrypack/runtime';
import { digestOf } from '@berrypack/compiler/bundle';
import { BIN, ROOT } from '../support/cli.js';
import { FUZZ_SEED, recordFigure } from '../support/fuzz.js';
import { cleanup, tempDir } from '../support/temp.js';

/**
 * Tampered bundles (BND-4, RUN-1): a change at every byte of a small bundle, 500 seeded
 * positions of the notebook bundle, swapped and missing blobs, a wrong id, truncation and a
 * future format are refused by the runtime's `loadBundle` with a message naming what did not
 * match, before any code runs: the sandbox, the model provider and the host tool below are
 * spies, and they must never be called by a tampered bundle (the control run shows that they
 * are called by an intact one).
 */

const SCHEMA = 'https://agent-plugins.org/schemas/1.0.0/plugin.schema.json';
const root = tempDir('berrypack-tamper-');
afterAll(() => cleanup(root));

function buildPackage(files: Record<string, string>): BundleFile {
  const dir = path.join(root, `src-${Object.keys(files).length}-${Math.random().toString(36).slice(2)}`);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  }
  const built = createCompiler({ store: path.join(root, 'store') }).build(path.join(dir, 'plugin.json'));
  if (!built.ok || !built.bundle) throw new Error(JSON.stringify(built.diagnostics));
  return built.bundle;
}

/** A small agent: a code routine that calls a host tool and a model routine, and two resources. */
const tiny = buildPackage({
  'plugin.json': JSON.stringify({
    $schema: SCHEMA,
    name: 'tamper.tiny',
    version: '1',
    extensions: {
      'ai.strawberry.berry': {
        agents: { tiny: { title: 'Tiny', description: 'Runs code, a tool and a model.', entry: 'run' } },
        requires: ['host.ping'],
        resources: [
          { uri: 'ui://a', mimeType: 'text/plain', path: 'a.txt' },
          { uri: 'ui://b', mimeType: 'text/plain', path: 'b.txt' },
        ],
      },
    },
  }),
  'run.md':
    "---\nname: run\ndescription: Pings the host and asks the model.\nlanguage: javascript\ntools:\n  - host.ping\n  - think\n---\nexport default async function run(input, tools) {\n  const pong = await tools['host.ping']({});\n  return { pong, thought: await tools.think({}) };\n}\n",
  'think.md': '---\nname: think\ndescription: Thinks.\nmodel:\n  select:\n    operation: generation\n---\nThink.\n',
  'a.txt': 'first resource',
  'b.txt': 'the second resource',
});
const notebook = (() => {
  const built = createCompiler({ store: path.join(root, 'store') }).build(path.join(ROOT, 'fixtures/notebook/plugin.json'));
  if (!built.bundle) throw new Error('notebook does not build');
  return built.bundle;
})();

interface Spies {
  sandbox: number;
  provider: number;
  tool: number;
}

/** A runtime whose sandbox, provider and tool only count; nothing real can run. */
function spiedRuntime(spies: Spies) {
  const sandbox: Sandbox = {
    async invoke() {
      spies.sandbox++;
      return { ok: true, output: { pong: 'pong', thought: 'spied' } };
    },
    async close() {},
  };
  const provider: ModelProvider = {
    async generate() {
      spies.provider++;
      return { text: 'spied' };
    },
  };
  return createRuntime({
    sandbox,
    providers: { spy: provider },
    defaultModel: { provider: 'spy' },
    tools: { 'host.ping': () => (spies.tool++, 'pong') },
  });
}

/** Load, prepare and start: the path a host takes. Resolves with the load error, or undefined when it ran. */
async function loadAndRun(bytes: Uint8Array, spies: Spies, options: Parameters<typeof loadBundle>[1] = {}): Promise<BundleLoadError | undefined> {
  const runtime = spiedRuntime(spies);
  try {
    let bundle: Bundle;
    try {
      bundle = await loadBundle(bytes, options);
    } catch (error) {
      if (error instanceof BundleLoadError) return error;
      throw error;
    }
    const preparation = runtime.prepare(bundle, { grants: ['host.ping'] });
    const agent = Object.keys(bundle.content.agents)[0]!;
    const { executionId } = await runtime.start(preparation, { agent }, undefined);
    await runtime.result(executionId);
    return undefined;
  } finally {
    await runtime.close();
  }
}

/** What every refusal must say: a loader code and a message naming the mismatch. */
function expectNamed(error: BundleLoadError | undefined, what: string): BundleLoadError {
  expect(error, what).toBeInstanceOf(BundleLoadError);
  expect(error!.code, what).toMatch(/^BP40(0[1-9]|1[0-6])$/);
  expect(error!.rule, what).toMatch(/^BND-[124]$/);
  expect(error!.message, what).toMatch(/^(Unexpected|Missing) .+, expected /s);
  return error!;
}

const MESSAGES: Record<string, RegExp> = {
  BP4002: /invalid UTF-8 at byte \d+/,
  BP4003: /JSON syntax|byte order mark|nesting/,
  BP4004: /envelope|content/,
  BP4005: /not a berrypack bundle/,
  BP4006: /newer berrypack/,
  BP4007: /id/,
  BP4008: /canonical JSON/,
  BP4009: /Unexpected id sha256-[0-9a-f]{64}, expected sha256-[0-9a-f]{64} \(the content's digest\)/,
  BP4010: /Unexpected bundle sha256-[0-9a-f]{64}, expected sha256-/,
  BP4011: /content\.files/,
  BP4012: /content\.files|source|module/,
  BP4013: /content\.resources/,
  BP4014: /blobs\/sha256\/[0-9a-f]{64}/,
  BP4015: /resource "ui:\/\//,
};

describe('control: the intact bundle runs and reaches every spy', () => {
  it('loads, prepares and runs the tiny agent through the sandbox, the provider and the tool', async () => {
    const spies = { sandbox: 0, provider: 0, tool: 0 };
    expect(await loadAndRun(tiny.bytes, spies, { blobs: tiny.blobs })).toBeUndefined();
    // The spied sandbox answers for the code routine itself, so only it is reached here.
    expect(spies.sandbox).toBe(1);
    const real = createRuntime({
      tools: { 'host.ping': () => (spies.tool++, 'pong') },
      providers: { spy: { generate: async () => (spies.provider++, { text: 'thought' }) } },
      defaultModel: { provider: 'spy' },
    });
    const bundle = await loadBundle(tiny.bytes, { blobs: tiny.blobs });
    const { executionId } = await real.start(real.prepare(bundle, { grants: ['host.ping'] }), { agent: 'tiny' });
    expect(await real.result(executionId)).toMatchObject({ status: 'completed', output: { pong: 'pong', thought: 'thought' } });
    await real.close();
    expect(spies.provider).toBe(1);
    expect(spies.tool).toBe(1);
  });
});

describe('every byte of a small bundle, sampled bytes of a large one', () => {
  it(`refuses a change at each of the tiny bundle's bytes before anything runs`, async () => {
    const spies = { sandbox: 0, provider: 0, tool: 0 };
    const seen = new Map<string, number>();
    const bytes = tiny.bytes;
    expect(bytes.length).toBeGreaterThan(2_000);
    for (let at = 0; at < bytes.length; at++) {
      const changed = bytes.slice();
      // A different bit at each position: case, digit and structure changes all occur.
      changed[at]! ^= 1 << (at % 8);
      const error = expectNamed(await loadAndRun(changed, spies, { blobs: tiny.blobs }), `byte ${at}`);
      expect(error.message, `byte ${at} (${error.code})`).toMatch(MESSAGES[error.code]!);
      seen.set(error.code, (seen.get(error.code) ?? 0) + 1);
    }
    expect(spies).toEqual({ sandbox: 0, provider: 0, tool: 0 });
    expect([...seen.keys()].sort()).toEqual(expect.arrayContaining(['BP4002', 'BP4003', 'BP4008', 'BP4009']));
    recordFigure('tamper', { bundle: 'tiny', positions: bytes.length, refused: bytes.length, codes: Object.fromEntries(seen) });
  });

  it('refuses changes at 500 seeded positions of the notebook bundle, with any byte value', async () => {
    const spies = { sandbox: 0, provider: 0, tool: 0 };
    const changes = fc.sample(fc.tuple(fc.nat({ max: notebook.bytes.length - 1 }), fc.integer({ min: 1, max: 255 })), { seed: FUZZ_SEED, numRuns: 500 });
    for (const [at, xor] of changes) {
      const changed = notebook.bytes.slice();
      changed[at]! ^= xor;
      const error = expectNamed(await loadAndRun(changed, spies), `byte ${at} ^ ${xor}`);
      expect(error.message).toMatch(MESSAGES[error.code]!);
    }
    expect(spies).toEqual({ sandbox: 0, provider: 0, tool: 0 });
    recordFigure('tamper', { bundle: 'notebook', bytes: notebook.bytes.length, positions: changes.length, refused: changes.length });
  });
});

describe('whole-file tampering', () => {
  const text = new TextDecoder().decode(tiny.bytes);
  const enc = (s: string) => new TextEncoder().encode(s);
  const [hexA, hexB] = [...tiny.blobs.keys()] as [string, string];

  it.each([
    ['truncated to nothing', () => tiny.bytes.subarray(0, 0), 'BP4003'],
    ['truncated to its head', () => tiny.bytes.subarray(0, 11), 'BP4003'],
    ['truncated by half', () => tiny.bytes.subarray(0, tiny.bytes.length >> 1), 'BP400[23]'],
    ['missing its last byte', () => tiny.bytes.subarray(0, tiny.bytes.length - 1), 'BP4003'],
    ['with a byte appended', () => enc(`${text}\n`), 'BP4008'],
    ['from a future format version', () => enc(text.replace('"format":"berrypack/2"', '"format":"berrypack/3"')), 'BP4006'],
    ['from another format', () => enc(text.replace('"format":"berrypack/2"', '"format":"berrypack/2.1"')), 'BP4005'],
    // The content of one version read as another: the digest still matches, the layout does not.
    ['relabelled as an earlier format', () => enc(text.replace('"format":"berrypack/2"', '"format":"berrypack/1"')), 'BP4011'],
    ['with a wrong id', () => enc(text.replace(tiny.id, `sha256-${'0'.repeat(64)}`)), 'BP4009'],
    ['with an id in capitals', () => enc(text.replace(tiny.id, tiny.id.toUpperCase().replace('SHA256', 'sha256'))), 'BP4007'],
    ['pretty-printed', () => enc(JSON.stringify(JSON.parse(text), null, 2)), 'BP4008'],
    ['with a byte order mark', () => Uint8Array.from([0xef, 0xbb, 0xbf, ...tiny.bytes]), 'BP4003'],
    ['re-encoded as UTF-16', () => new Uint8Array(Buffer.from(text, 'utf16le')), 'BP400[23]'],
  ])('refuses a bundle %s', async (_what, make, code) => {
    const spies = { sandbox: 0, provider: 0, tool: 0 };
    const error = expectNamed(await loadAndRun(make(), spies, { blobs: tiny.blobs }), _what);
    expect(error.code).toMatch(new RegExp(`^${code}$`));
    expect(error.message).toMatch(MESSAGES[error.code]!);
    expect(spies).toEqual({ sandbox: 0, provider: 0, tool: 0 });
  });

  it('refuses a bundle other than the one expected (expectedId)', async () => {
    const spies = { sandbox: 0, provider: 0, tool: 0 };
    const error = expectNamed(await loadAndRun(tiny.bytes, spies, { blobs: tiny.blobs, expectedId: notebook.id }), 'expectedId');
    expect(error.code).toBe('BP4010');
    expect(error.message).toContain(tiny.id);
    expect(error.message).toContain(notebook.id);
    expect(spies).toEqual({ sandbox: 0, provider: 0, tool: 0 });
  });

  it('refuses swapped, damaged and missing blobs, given as bytes and beside the file', async () => {
    const spies = { sandbox: 0, provider: 0, tool: 0 };
    const swapped = new Map([
      [hexA, tiny.blobs.get(hexB)!],
      [hexB, tiny.blobs.get(hexA)!],
    ]);
    const swap = expectNamed(await loadAndRun(tiny.bytes, spies, { blobs: swapped }), 'swapped');
    expect(swap.code).toBe('BP4015');
    expect(swap.message).toMatch(/^Unexpected size \d+ for the blob of resource "ui:\/\/[ab]", expected \d+: the blob was changed or replaced$/);
    const missing = expectNamed(await loadAndRun(tiny.bytes, spies, { blobs: new Map([[hexA, tiny.blobs.get(hexA)!]]) }), 'missing');
    expect(missing).toMatchObject({ code: 'BP4014', message: expect.stringContaining(`blobs/sha256/${hexB}`) });

    // The same on disk: the loader reads blobs/sha256/ beside the bundle file.
    const out = path.join(root, 'on-disk');
    const file = writeBundle(out, tiny);
    const blob = (hex: string) => path.join(out, 'blobs', 'sha256', hex);
    const a = readFileSync(blob(hexA));
    const b = readFileSync(blob(hexB));
    writeFileSync(blob(hexA), b);
    writeFileSync(blob(hexB), a);
    const fromDisk = await loadBundle(file).then(
      () => undefined,
      (e: unknown) => e as BundleLoadError,
    );
    expect(expectNamed(fromDisk, 'swapped on disk').code).toBe('BP4015');
    // Same size, other bytes: caught by the digest, not the size.
    writeFileSync(blob(hexA), Buffer.from(a).fill(0x21));
    writeFileSync(blob(hexB), b);
    const damaged = await loadBundle(file).then(
      () => undefined,
      (e: unknown) => e as BundleLoadError,
    );
    expect(expectNamed(damaged, 'damaged on disk').message).toMatch(
      /^Unexpected digest sha256-[0-9a-f]{64} for the blob of resource "ui:\/\/a", expected sha256-/,
    );
    expect(spies).toEqual({ sandbox: 0, provider: 0, tool: 0 });
  });

  it('refuses a code body edited with its id recomputed (the source no longer matches its file)', async () => {
    const spies = { sandbox: 0, provider: 0, tool: 0 };
    const envelope = JSON.parse(text) as { content: { sources: Record<string, { code?: { body: unknown } }> }; format: string };
    envelope.content.sources['run']!.code!.body = "export default async () => globalThis.constructor.constructor('return this')();\n";
    const forged = enc(canonicalJson({ content: envelope.content, format: envelope.format, id: digestOf(canonicalJson(envelope.content)) }));
    const error = expectNamed(await loadAndRun(forged, spies, { blobs: tiny.blobs }), 'forged body');
    // berrypack/2 holds a body as a slice of its file: text in its place is refused as no reference.
    expect(error.code).toBe('BP4016');
    expect(error.message).toContain('run');
    expect(spies).toEqual({ sandbox: 0, provider: 0, tool: 0 });
  });

  it('refuses a tampered bundle file in `berrypack run` with exit 1, no execution and no stack trace', () => {
    const dir = path.join(root, 'cli');
    const file = writeBundle(dir, tiny);
    const bytes = readFileSync(file);
    bytes[bytes.indexOf('pong')] = 'P'.charCodeAt(0);
    writeFileSync(file, bytes);
    const r = spawnSync(process.execPath, [BIN, 'run', file, '--agent', 'tiny', '--grant', 'host.ping', '--json'], {
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
      timeout: 60_000,
    });
    expect(r.status).toBe(1);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    const report = JSON.parse(r.stdout) as { executionId: string | null; status: string; calls: unknown[]; error: { code: string; message: string } };
    expect(report).toMatchObject({ executionId: null, status: 'failed', calls: [], error: { code: 'BP4009' } });
    expect(report.error.message).toMatch(MESSAGES['BP4009']!);
  });
});
