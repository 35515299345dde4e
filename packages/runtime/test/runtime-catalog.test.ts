import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createCompiler } from '../../compiler/src/index.js';
import { createMemorySessionStore, createRuntime, loadBundle, type Bundle, type Runtime } from '../src/index.js';

// $.runtime served by the runtime's own runtime.catalog.read (spec "Runtime observations"):
// environments, resources, agents, sessions and executions, each list with total/complete.
const tmp = mkdtempSync(path.join(os.tmpdir(), 'berrypack-runtime-catalog-'));
const runtimes: Runtime[] = [];
afterAll(async () => {
  for (const runtime of runtimes) await runtime.close();
  rmSync(tmp, { recursive: true, force: true });
});

async function build(): Promise<Bundle> {
  const dir = path.join(tmp, 'observer');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'plugin.json'),
    JSON.stringify({
      $schema: 'https://agent-plugins.org/schemas/1.0.0/plugin.schema.json',
      name: 'cat.observer',
      version: '1',
      extensions: {
        'ai.strawberry.berry': {
          agents: { observer: { title: 'Observer', description: 'Observes.', entry: 'observe' } },
          resources: [{ uri: 'berry://observer/logo', mimeType: 'image/svg+xml', path: 'logo.svg' }],
        },
      },
    }),
  );
  writeFileSync(path.join(dir, 'logo.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  writeFileSync(
    path.join(dir, 'observe.md'),
    '---\nname: observe\ndescription: Observes the runtime.\nmodel:\n  select:\n    operation: generation\n---\n' +
      'Sessions: {{ $.runtime.sessions }}\n\nExecutions: {{ $.runtime.executions }}\n\nResources: {{ $.runtime.resources }}\n\nEnvironments: {{ $.runtime.environments }}\n\nModels: {{ $.runtime.models }}\n',
  );
  const built = createCompiler({}).build(path.join(dir, 'plugin.json'));
  if (!built.ok || !built.bundle) throw new Error(JSON.stringify(built.diagnostics));
  return loadBundle(built.bundle.bytes, { blobs: built.bundle.blobs });
}

/** The JSON rendered after `label: ` in the first model decision's instructions. */
function rendered(calls: readonly { kind: string; input?: unknown }[], label: string): unknown {
  const model = calls.find((c) => c.kind === 'model');
  const instructions = (model?.input as { instructions: string }).instructions;
  const line = instructions.split('\n').find((l) => l.startsWith(`${label}: `))!;
  return JSON.parse(line.slice(label.length + 2));
}

describe('TPL-4: runtime.catalog.read (createRuntime({catalog}))', () => {
  it('lists the sessions of the store once each, and the executions of the reader session with their child calls', async () => {
    const bundle = await build();
    const sessions = createMemorySessionStore();
    const runtime = createRuntime({
      sessions,
      catalog: { environments: { lab: { region: 'test' } }, models: [{ id: 'small-1', provider: 'acme', operations: ['generation'] }] },
    });
    runtimes.push(runtime);
    const preparation = runtime.prepare(bundle, { grants: ['runtime.catalog.read'] });
    const first = await runtime.result((await runtime.start(preparation, { agent: 'observer' }, undefined, { session: 'trip' })).executionId);
    expect(first.status).toBe('completed');
    // Another session's execution, then a second one in `trip`.
    await runtime.result((await runtime.start(preparation, { agent: 'observer' }, undefined, { session: 'other' })).executionId);
    const second = await runtime.result((await runtime.start(preparation, { agent: 'observer' }, undefined, { session: 'trip' })).executionId);
    expect(second.status).toBe('completed');

    const listed = rendered(second.calls, 'Sessions') as { items: { id: string; status: string; executions: number }[]; total: number; complete: boolean };
    expect(listed).toMatchObject({ total: 2, complete: true });
    expect(listed.items.map((s) => [s.id, s.status, s.executions]).sort()).toEqual([
      ['other', 'idle', 1],
      ['trip', 'active', 2],
    ]);

    const executions = rendered(second.calls, 'Executions') as {
      items: { executionId: string; status: string; session: string; calls: { items: { id: string; kind: string; name: string }[] } }[];
      total: number;
    };
    // Only the reader's own session: itself (running, newest first) and the first one, with its child calls.
    expect(executions.total).toBe(2);
    expect(executions.items.map((e) => [e.executionId, e.status])).toEqual([
      [second.executionId, 'running'],
      [first.executionId, 'completed'],
    ]);
    expect(executions.items[1]!.calls.items.map((c) => [c.id, c.kind, c.name])).toEqual([
      ['c1', 'entry', 'observe'],
      ['c1.1', 'read', 'runtime.catalog.read'],
      ['c1.2', 'model', 'observe'],
    ]);

    expect(rendered(second.calls, 'Resources')).toEqual({
      items: [{ uri: 'berry://observer/logo', mediaType: 'image/svg+xml', digest: expect.stringMatching(/^sha256-/) as unknown, size: 41 }],
      total: 1,
      complete: true,
    });
    expect(rendered(second.calls, 'Environments')).toEqual({ lab: { region: 'test' } });
    expect(rendered(second.calls, 'Models')).toEqual({ items: [{ id: 'small-1', provider: 'acme', operations: ['generation'] }], total: 1, complete: true });
  });

  it('says the sessions list is incomplete when no store can list them, and is not supplied without the option', async () => {
    const bundle = await build();
    const runtime = createRuntime({ catalog: {} });
    runtimes.push(runtime);
    const outcome = await runtime.result(
      (await runtime.start(runtime.prepare(bundle, { grants: ['runtime.catalog.read'] }), { agent: 'observer' })).executionId,
    );
    expect(rendered(outcome.calls, 'Sessions')).toEqual({ items: [], total: 0, complete: false });
    expect(rendered(outcome.calls, 'Environments')).toEqual({ host: { platform: process.platform, arch: process.arch, node: process.version } });
    const bare = createRuntime();
    runtimes.push(bare);
    expect(() => bare.prepare(bundle, { grants: ['runtime.catalog.read'] })).toThrow(/runtime\.catalog\.read/);
  });
});
