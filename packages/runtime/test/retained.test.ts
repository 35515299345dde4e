import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createCompiler } from '../../compiler/src/index.js';
import { createRuntime, loadBundle, loadRetained, readResource, RuntimeError, type Bundle, type Runtime } from '../src/index.js';

// Spec "References and environment": "double-square source names retain a readable dependency
// address. load reads a granted retained address; loading never invokes a routine or widens
// permissions." And resources, readable at run time (readResource).
const tmp = mkdtempSync(path.join(os.tmpdir(), 'berrypack-retained-'));
const runtimes: Runtime[] = [];
afterAll(async () => {
  for (const runtime of runtimes) await runtime.close();
  rmSync(tmp, { recursive: true, force: true });
});

const STYLE = '---\nname: notes.style\ndescription: The house style.\n---\nWrite short sentences.\n';

async function build(blobs = true): Promise<Bundle> {
  const dir = path.join(tmp, 'retains');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'plugin.json'),
    JSON.stringify({
      $schema: 'https://agent-plugins.org/schemas/1.0.0/plugin.schema.json',
      name: 'ret.notes',
      version: '1',
      extensions: {
        'ai.strawberry.berry': {
          exports: ['notes.writer', 'notes.plain'],
          resources: [{ uri: 'berry://notes/readme', mimeType: 'text/plain', path: 'readme.txt' }],
        },
      },
    }),
  );
  writeFileSync(path.join(dir, 'readme.txt'), 'Read me.\n');
  writeFileSync(path.join(dir, 'style.md'), STYLE);
  writeFileSync(
    path.join(dir, 'writer.md'),
    '---\nname: notes.writer\ndescription: Writes a note in the house style.\nmodel:\n  select:\n    operation: generation\n---\nFollow the style at [[style]] before writing.\n',
  );
  writeFileSync(
    path.join(dir, 'plain.md'),
    '---\nname: notes.plain\ndescription: Writes without a style.\nmodel:\n  select:\n    operation: generation\n---\nWrite.\n',
  );
  const built = createCompiler({}).build(path.join(dir, 'plugin.json'));
  if (!built.ok || !built.bundle) throw new Error(JSON.stringify(built.diagnostics));
  return loadBundle(built.bundle.bytes, blobs ? { blobs: built.bundle.blobs } : {});
}

function runtimeWith(script: Record<string, unknown[]>): { runtime: Runtime; models: { default: { provider: 'scripted'; script: never } } } {
  const runtime = createRuntime();
  runtimes.push(runtime);
  return { runtime, models: { default: { provider: 'scripted', script: script as never } } };
}

describe('TPL-2, TPL-7: [[name]] addresses and load', () => {
  it('offers `load` naming exactly the retained addresses; the model reads the source text as a recorded read call', async () => {
    const bundle = await build();
    const seen: unknown[] = [];
    const runtime = createRuntime({
      providers: {
        watcher: {
          async generate(request) {
            seen.push(request.tools);
            const answered = request.messages.find((m) => m.role === 'tool');
            if (!answered)
              return {
                toolCalls: [
                  { id: 't1', name: 'load', input: { address: 'style' } },
                  { id: 't2', name: 'load', input: { address: 'notes.plain' } },
                ],
              };
            return {
              text: request.messages
                .filter((m) => m.role === 'tool')
                .map((m) => m.content)
                .join('\n---\n'),
            };
          },
        },
      },
    });
    runtimes.push(runtime);
    const preparation = runtime.prepare(bundle, { models: { default: { provider: 'watcher' } } });
    const outcome = await runtime.result((await runtime.start(preparation, { export: 'notes.writer' })).executionId);
    expect(outcome.status).toBe('completed');
    expect(seen[0]).toEqual([
      {
        name: 'load',
        description: expect.stringContaining('notes.style') as unknown,
        input: { type: 'object', properties: { address: { enum: ['notes.style'] } }, required: ['address'], additionalProperties: false },
      },
    ]);
    const loads = outcome.calls.filter((c) => c.name === 'load');
    expect(loads.map((c) => [c.kind, c.status])).toEqual([
      ['read', 'completed'],
      ['read', 'failed'],
    ]);
    expect(loads[0]!.outcome).toEqual({
      output: {
        name: 'notes.style',
        digest: expect.stringMatching(/^sha256-/) as unknown,
        kind: 'source',
        path: 'style.md',
        mediaType: 'text/markdown',
        text: STYLE,
      },
    });
    // Not retained: refused, nothing runs (no call of notes.plain), and the model gets the error.
    expect(loads[1]!.outcome).toMatchObject({ error: { code: 'not-granted' } });
    expect(outcome.calls.some((c) => c.name === 'notes.plain')).toBe(false);
    expect(outcome.status === 'completed' && String(outcome.output)).toContain('Write short sentences.');
    // A replay serves the recorded reads.
    expect((await runtime.replay(bundle, runtime.journal(outcome.executionId))).matches).toBe(true);
  });

  it('offers no load to a routine that retains nothing', async () => {
    const bundle = await build();
    const { runtime, models } = runtimeWith({ 'notes.plain': [{ toolCalls: [{ name: 'load', input: { address: 'notes.style' } }] }, { text: 'done' }] });
    const outcome = await runtime.result((await runtime.start(runtime.prepare(bundle, { models }), { export: 'notes.plain' })).executionId);
    const load = outcome.calls.find((c) => c.name === 'load');
    expect(load).toMatchObject({ kind: 'tool', status: 'failed', outcome: { error: { code: 'not-offered' } } });
  });

  it('loadRetained reads an exact address for a host; a stale digest is refused', async () => {
    const bundle = await build();
    const content = loadRetained(bundle, 'notes.style');
    expect(content).toMatchObject({ kind: 'source', text: STYLE });
    expect(loadRetained(bundle, { name: 'notes.style', digest: content.digest })).toEqual(content);
    expect(() => loadRetained(bundle, { name: 'notes.style', digest: 'sha256-00' })).toThrow(/stale|Unexpected digest sha256-00/);
    expect(() => loadRetained(bundle, 'nope')).toThrow(RuntimeError);
  });
});

describe('MAN-6: readResource', () => {
  it('returns the verified bytes of a resource by URI; unknown and unavailable ones are refused', async () => {
    const bundle = await build();
    const resource = readResource(bundle, 'berry://notes/readme');
    expect(resource).toMatchObject({ uri: 'berry://notes/readme', path: 'readme.txt', mediaType: 'text/plain', size: 9 });
    expect(new TextDecoder().decode(resource.bytes)).toBe('Read me.\n');
    expect(() => readResource(bundle, 'berry://notes/other')).toThrow('Unexpected resource berry://notes/other, expected one of berry://notes/readme');
    const withoutBlobs = await build(false);
    expect(() => readResource(withoutBlobs, 'berry://notes/readme')).toThrow(/^Missing the bytes of resource berry:\/\/notes\/readme/);
  });
});
