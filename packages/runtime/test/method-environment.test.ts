import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkMethod, createCompiler } from '../../compiler/src/index.js';
import {
  confirmStep,
  createOpenAICompatibleProvider,
  createProviderExecutor,
  createRoutineExecutor,
  createRuntime,
  createStepTools,
  loadBundle,
  readMethodRun,
  resumeMethod,
  runMethod,
  type CompiledMethod,
  type ExternalTool,
  type StepRequest,
  type ToolConnection,
  toolConnections,
} from '../src/index.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
function dataDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'berrypack-method-environment-'));
  dirs.push(dir);
  return dir;
}
function compile(doc: Record<string, unknown>): CompiledMethod {
  const checked = checkMethod('/m/test.method.json', JSON.stringify({ format: 'method/2', name: 'test', goal: 'Exercise connections.', ...doc }));
  if (!checked.method) throw new Error(checked.diagnostics.map((d) => `${d.code} ${d.message}`).join('\n'));
  return checked.method;
}
const text = { type: 'text', description: 'Some text.' };

/** A wiki in memory: pages by title; `wiki.read` reads, `wiki.edit` writes (and can be made to fail). */
function wiki(options: { failEdit?: boolean } = {}) {
  const pages: Record<string, string> = { Home: 'Welcome.' };
  const calls: string[] = [];
  const read: ExternalTool = {
    description: 'Read a wiki page by title.',
    input: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'], additionalProperties: false },
    invoke: (input) => {
      const { title } = input as { title: string };
      calls.push(`read ${title}`);
      return { title, text: pages[title] ?? null };
    },
  };
  const edit: ExternalTool = {
    description: 'Replace the text of a wiki page.',
    input: { type: 'object', properties: { title: { type: 'string' }, text: { type: 'string' } }, required: ['title', 'text'], additionalProperties: false },
    invoke: (input) => {
      const { title, text: body } = input as { title: string; text: string };
      calls.push(`edit ${title}`);
      if (options.failEdit) throw new Error('the connection dropped before the wiki answered');
      pages[title] = body;
      return { title, revision: 7 };
    },
  };
  const connection: ToolConnection = { tools: { 'wiki.read': read, 'wiki.edit': edit }, writes: ['wiki.edit'] };
  return { pages, calls, connection };
}

const PUBLISH = {
  environment: { wiki: { type: 'service', description: 'The team wiki, with an account that may edit pages.' } },
  inputs: { note: { type: 'text', description: 'The note to publish.', default: 'Ship it.' } },
  steps: {
    look: { in: { wiki: 'environment.wiki' }, do: 'Read the Home page of {{wiki}}.', out: { home: text } },
    post: {
      in: { wiki: 'environment.wiki', note: 'inputs.note', home: 'home' },
      do: 'Put {{note}} on the News page of {{wiki}}.',
      changes: ['environment.wiki'],
      out: { url: text },
      check: { present: 'url' },
    },
  },
  result: 'url',
};

describe('do steps with tools of their connections (MTH-13, MTH-14)', () => {
  it('offers a step the reading tools of the connections it uses, and the writing ones only when its changes list the connection; calls go through the runner', async () => {
    const w = wiki();
    const script = {
      look: [{ toolCalls: [{ name: 'wiki.read', input: { title: 'Home' } }] }, { output: { home: 'Welcome.' } }],
      post: [{ toolCalls: [{ name: 'wiki.edit', input: { title: 'News', text: 'Ship it.' } }] }, { output: { url: 'https://wiki.example/News' } }],
    };
    const offered: Record<string, string[]> = {};
    const executor = createProviderExecutor({ script });
    const dir = dataDir();
    const run = await runMethod(compile(PUBLISH), {
      dataDir: dir,
      environment: { wiki: w.connection },
      executor: { run: (r: StepRequest) => ((offered[r.step] = r.tools.map((t) => `${t.name}${t.writes ? ' (writes)' : ''}`)), executor.run(r)) },
    });
    expect(run).toMatchObject({ status: 'completed', steps: { look: 'unchecked', post: 'passed' }, result: 'https://wiki.example/News' });
    expect(offered).toEqual({ look: ['wiki.read'], post: ['wiki.read', 'wiki.edit (writes)'] });
    expect(w.calls).toEqual(['read Home', 'edit News']);
    expect(w.pages['News']).toBe('Ship it.');
    const steps = readMethodRun(run.runId, { dataDir: dir }).record.steps;
    expect(steps['look']!.calls).toEqual([
      { tool: 'wiki.read', connection: 'wiki', write: false, input: { title: 'Home' }, status: 'ok', output: { title: 'Home', text: 'Welcome.' } },
    ]);
    // The observed write is the evidence of the external change.
    expect(steps['post']!.changes).toEqual({
      'environment.wiki': {
        target: 'environment.wiki',
        writes: [{ tool: 'wiki.edit', input: { title: 'News', text: 'Ship it.' }, output: { title: 'News', revision: 7 } }],
      },
    });
  });

  it('refuses a writing tool to a step whose changes do not list its connection, and an unknown tool; the model sees the refusal', async () => {
    const w = wiki();
    const script = {
      look: [
        {
          toolCalls: [
            { name: 'wiki.edit', input: { title: 'Home', text: 'Defaced.' } },
            { name: 'shell.exec', input: {} },
          ],
        },
        { output: { home: 'Welcome.' } },
      ],
      post: [{ output: { url: 'u', 'environment.wiki': { seen: 'the News page shows the note' } } }],
    };
    const dir = dataDir();
    const run = await runMethod(compile(PUBLISH), { dataDir: dir, environment: { wiki: w.connection }, executor: createProviderExecutor({ script }) });
    expect(run.status).toBe('completed');
    expect(w.calls).toEqual([]);
    expect(w.pages['Home']).toBe('Welcome.');
    const look = readMethodRun(run.runId, { dataDir: dir }).record.steps['look']!;
    expect(look.calls).toEqual([
      {
        tool: 'wiki.edit',
        connection: 'wiki',
        write: true,
        input: { title: 'Home', text: 'Defaced.' },
        status: 'refused',
        error: {
          code: 'tool-refused',
          message: 'Unexpected call of `wiki.edit`, which writes to connection `wiki`: step `look` does not list `environment.wiki` in its changes',
        },
      },
      {
        tool: 'shell.exec',
        write: false,
        input: {},
        status: 'refused',
        error: { code: 'unknown-tool', message: 'Unexpected call of `shell.exec`, expected one of `wiki.read`' },
      },
    ]);
  });

  it('checks a tool input against its schema before the call', async () => {
    const w = wiki();
    const script = {
      look: [{ toolCalls: [{ name: 'wiki.read', input: { page: 'Home' } }] }, { output: { home: '?' } }],
      post: [{ output: { url: 'u', 'environment.wiki': 'seen' } }],
    };
    const dir = dataDir();
    const run = await runMethod(compile(PUBLISH), { dataDir: dir, environment: { wiki: w.connection }, executor: createProviderExecutor({ script }) });
    expect(run.status).toBe('completed');
    expect(w.calls).toEqual([]);
    expect(readMethodRun(run.runId, { dataDir: dir }).record.steps['look']!.calls?.[0]).toMatchObject({ status: 'failed', error: { code: 'invalid-input' } });
  });
});

describe('external changes need observed evidence (MTH-17, MTH-18)', () => {
  const executor = (evidence: unknown) => (r: StepRequest) =>
    r.step === 'look' ? { output: { home: 'W' } } : { output: { url: 'u' }, ...(evidence === undefined ? {} : { changes: { 'environment.wiki': evidence } }) };

  it('a check that passes without evidence of the change is ambiguous; with reported or observed evidence it passes', async () => {
    const config = { wiki: {} };
    const dir = dataDir();
    const without = await runMethod(compile(PUBLISH), { dataDir: dir, environment: config, executor: executor(undefined) });
    expect(without).toMatchObject({ status: 'completed', steps: { post: 'ambiguous' } });
    const reported = await runMethod(compile(PUBLISH), {
      dataDir: dataDir(),
      environment: config,
      executor: executor({ page: 'News', seen: 'the note is at the top' }),
    });
    expect(reported.steps['post']).toBe('passed');
    expect(readMethodRun(without.runId, { dataDir: dir }).record.steps['post']!.check).toEqual({
      kind: 'present',
      status: 'ambiguous',
      reason:
        '`url` is present; but there is no observed evidence of the change to `environment.wiki` (no successful write through its tools, no evidence returned, no confirmation by a person)',
      at: expect.any(String),
    });
  });

  it('a failed check stays failed', async () => {
    const method = compile({
      ...PUBLISH,
      steps: { ...PUBLISH.steps, post: { ...PUBLISH.steps.post, check: { equals: { actual: 'url', expected: 'note' } } } },
    });
    const run = await runMethod(method, { dataDir: dataDir(), environment: { wiki: {} }, executor: executor(undefined) });
    expect(run).toMatchObject({ status: 'failed', steps: { post: 'failed' } });
  });

  it('a write whose outcome is unknown leaves the step uncertain: later writes to the connection are refused, nothing retries it, a person settles it', async () => {
    const w = wiki({ failEdit: true });
    const script = {
      look: [{ output: { home: 'Welcome.' } }],
      post: [
        { toolCalls: [{ name: 'wiki.edit', input: { title: 'News', text: 'Ship it.' } }] },
        { toolCalls: [{ name: 'wiki.edit', input: { title: 'News', text: 'Ship it.' } }] },
        { output: { url: 'u' } },
      ],
    };
    const dir = dataDir();
    const host = { dataDir: dir, environment: { wiki: w.connection }, executor: createProviderExecutor({ script }) };
    const run = await runMethod(compile(PUBLISH), host);
    expect(run).toMatchObject({ status: 'needs_attention', steps: { look: 'unchecked', post: 'uncertain' }, pending: [{ step: 'post', kind: 'uncertain' }] });
    expect(run.pending[0]!.request).toContain(
      'called `wiki.edit`, which writes to connection `wiki`, and it failed (the connection dropped before the wiki answered)',
    );
    // The model tried the write again: refused, never sent.
    expect(w.calls).toEqual(['edit News']);
    const post = readMethodRun(run.runId, { dataDir: dir }).record.steps['post']!;
    expect(post.calls?.map((c) => `${c.tool} ${c.status}${c.error ? ` ${c.error.code}` : ''}`)).toEqual([
      'wiki.edit uncertain tool-failed',
      'wiki.edit refused write-blocked',
    ]);
    // A plain resume never retries it.
    const again = await resumeMethod(run.runId, host);
    expect(again.steps['post']).toBe('uncertain');
    expect(w.calls).toEqual(['edit News']);
    const done = await confirmStep(run.runId, { ...host, step: 'post', decision: 'done', response: 'https://wiki.example/News' });
    expect(done).toMatchObject({ status: 'completed', steps: { post: 'passed' }, result: 'https://wiki.example/News' });
  });
});

describe('a crash in the middle of a write (MTH-18)', () => {
  it('leaves the step uncertain and the cut-short write call uncertain; nothing retries it', async () => {
    const w = wiki();
    let entered!: () => void;
    const started = new Promise<void>((resolve) => (entered = resolve));
    const hanging: ToolConnection = { ...w.connection, tools: { ...w.connection.tools, 'wiki.edit': { invoke: () => (entered(), new Promise(() => {})) } } };
    const script = {
      look: [{ output: { home: 'W' } }],
      post: [{ toolCalls: [{ name: 'wiki.edit', input: { title: 'News', text: 'x' } }] }, { output: { url: 'u' } }],
    };
    const dir = dataDir();
    let runId = '';
    void runMethod(compile(PUBLISH), {
      dataDir: dir,
      environment: { wiki: hanging },
      executor: { run: (r) => ((runId = r.runId), createProviderExecutor({ script }).run(r)) },
    });
    await started;
    // What a killed process leaves on disk (test/method-kill.test.ts kills one for real).
    const copy = dataDir();
    cpSync(dir, copy, { recursive: true });
    rmSync(path.join(copy, 'runs', runId, 'lock'));
    const after = await resumeMethod(runId, { dataDir: copy, environment: { wiki: w.connection }, executor: createProviderExecutor({ script }) });
    expect(after).toMatchObject({ status: 'needs_attention', steps: { look: 'unchecked', post: 'uncertain' } });
    expect(w.calls).toEqual([]);
    expect(readMethodRun(runId, { dataDir: copy }).record.steps['post']!.calls).toEqual([
      {
        tool: 'wiki.edit',
        connection: 'wiki',
        write: true,
        input: { title: 'News', text: 'x' },
        status: 'uncertain',
        error: { code: 'interrupted', message: 'the run was interrupted before the tool answered' },
      },
    ]);
  });
});

describe('access checks before any step (MTH-14, MTH-5)', () => {
  it('fails the run before any step when a tool is not bound, not granted or not offered by its server, naming each', async () => {
    const w = wiki();
    const calls: string[] = [];
    const connection: ToolConnection = {
      tools: { ...w.connection.tools, 'wiki.history': undefined, 'wiki.delete': w.connection.tools['wiki.edit'] },
      writes: ['wiki.edit', 'wiki.purge'],
      grants: ['wiki.read', 'wiki.edit', 'wiki.history'],
      probe: (tool) => (tool === 'wiki.edit' ? 'the server lists wiki.read, wiki.search' : undefined),
    };
    const run = await runMethod(compile(PUBLISH), {
      dataDir: dataDir(),
      environment: { wiki: connection },
      executor: (r) => (calls.push(r.step), { output: {} }),
    });
    expect(run).toEqual({
      runId: run.runId,
      status: 'failed',
      steps: { look: 'pending', post: 'pending' },
      pending: [],
      error: {
        code: 'access-denied',
        message:
          'Unexpected environment: connection `wiki` lists `wiki.purge` under writes, which is not one of its tools; tool `wiki.edit` of connection `wiki` is not offered by its server: the server lists wiki.read, wiki.search; tool `wiki.history` of connection `wiki` is not bound to an implementation; tool `wiki.delete` of connection `wiki` is not granted',
      },
    });
    expect(calls).toEqual([]);
  });

  it("builds tool connections from runtime.yaml's shape (environment, bound tools, grants, probe), and checks them", async () => {
    const w = wiki();
    const environment = { wiki: { tools: ['wiki.read', 'wiki.edit', 'wiki.search'], writes: ['wiki.edit'] } };
    const probed: string[] = [];
    const connections = toolConnections(
      environment,
      { 'wiki.read': w.connection.tools['wiki.read'], 'wiki.edit': w.connection.tools['wiki.edit'] },
      { grants: ['wiki.read', 'wiki.search'], probe: (tool) => (probed.push(tool), undefined) },
    );
    expect(Object.keys(connections['wiki']!.tools)).toEqual(['wiki.read', 'wiki.edit', 'wiki.search']);
    const refused = await runMethod(compile(PUBLISH), { dataDir: dataDir(), environment: connections, executor: () => ({ output: {} }) });
    expect(refused.error).toEqual({
      code: 'access-denied',
      message:
        'Unexpected environment: tool `wiki.edit` of connection `wiki` is not granted; tool `wiki.search` of connection `wiki` is not bound to an implementation',
    });
    expect(probed).toEqual(['wiki.read']);
    const granted = toolConnections({ wiki: { tools: ['wiki.read', 'wiki.edit'], writes: ['wiki.edit'] } }, w.connection.tools, {
      grants: ['wiki.read', 'wiki.edit'],
    });
    const run = await runMethod(compile(PUBLISH), {
      dataDir: dataDir(),
      environment: granted,
      executor: createProviderExecutor({
        script: { post: [{ toolCalls: [{ name: 'wiki.edit', input: { title: 'News', text: 'x' } }] }, { output: { url: 'u' } }] },
      }),
    });
    expect(run).toMatchObject({ status: 'completed', steps: { post: 'passed' } });
    expect(w.calls).toEqual(['edit News']);
  });

  it('a probe that throws refuses the tool with its message', async () => {
    const w = wiki();
    const run = await runMethod(compile(PUBLISH), {
      dataDir: dataDir(),
      environment: { wiki: { ...w.connection, probe: () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:9')) } },
      executor: () => ({ output: {} }),
    });
    expect(run.error?.message).toContain('tool `wiki.read` of connection `wiki` is not offered by its server: connect ECONNREFUSED 127.0.0.1:9');
  });

  it('fails the run before any step when the folder of a changed state cannot be written', async () => {
    const dir = dataDir();
    // `reports` is a file, so reports/last.json can never be written.
    writeFileSync(path.join(dir, 'reports'), 'not a folder');
    const calls: string[] = [];
    const method = compile({
      state: { last: { type: 'text', description: 'The last report.', file: 'reports/last.json', default: '' } },
      steps: { remember: { do: 'Remember.', changes: ['state.last'] } },
      result: 'state.last',
    });
    const run = await runMethod(method, { dataDir: dir, executor: (r) => (calls.push(r.step), { changes: { 'state.last': 'x' } }) });
    expect(run).toMatchObject({
      status: 'failed',
      steps: { remember: 'pending' },
      error: {
        code: 'access-denied',
        message:
          'Unexpected state `last` whose folder cannot be written (reports/last.json: reports is not a folder), expected a writable folder for its replacement',
      },
    });
    expect(calls).toEqual([]);
  });

  it('resume checks access again for what is left, and refuses without changing the run', async () => {
    const w = wiki();
    const method = compile({
      ...PUBLISH,
      steps: {
        ...PUBLISH.steps,
        approve: { ask: 'Publish?', out: { go: { type: 'boolean', description: 'Go.' } } },
        post: { ...PUBLISH.steps.post, in: { ...PUBLISH.steps.post.in, go: 'go' } },
      },
    });
    const dir = dataDir();
    const executor = createProviderExecutor({
      script: {
        look: [{ output: { home: 'W' } }],
        post: [{ toolCalls: [{ name: 'wiki.edit', input: { title: 'News', text: 'x' } }] }, { output: { url: 'u' } }],
      },
    });
    const first = await runMethod(method, { dataDir: dir, environment: { wiki: w.connection }, executor });
    expect(first.status).toBe('needs_attention');
    const gone = { ...w.connection, probe: (tool: string) => (tool === 'wiki.edit' ? 'the server no longer lists it' : undefined) };
    await expect(resumeMethod(first.runId, { dataDir: dir, environment: { wiki: gone }, executor, step: 'approve', response: true })).rejects.toMatchObject({
      code: 'access-denied',
      message: 'Unexpected environment: tool `wiki.edit` of connection `wiki` is not offered by its server: the server no longer lists it',
    });
    expect(readMethodRun(first.runId, { dataDir: dir }).record.steps['approve']!.status).toBe('waiting');
    const done = await resumeMethod(first.runId, { dataDir: dir, environment: { wiki: w.connection }, executor, step: 'approve', response: true });
    expect(done).toMatchObject({ status: 'completed', result: 'u' });
  });
});

describe('a do step run by an agent on an OpenAI-compatible server, calling a connection tool (RUN-6)', () => {
  let server: Server;
  let baseUrl: string;
  const bodies: Record<string, unknown>[] = [];
  const answers: unknown[] = [];
  beforeAll(async () => {
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      request.on('end', () => {
        bodies.push(JSON.parse(body) as Record<string, unknown>);
        const message = answers.shift() ?? { role: 'assistant', content: 'nothing queued' };
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ id: 'x', choices: [{ index: 0, message, finish_reason: 'tool_calls' in (message as object) ? 'tool_calls' : 'stop' }] }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("sends the step's tools, runs the tool call through the runner, sends the result back, and records the outputs", async () => {
    const w = wiki();
    answers.push(
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'wiki_read', arguments: '{"title":"Home"}' } }] },
      { role: 'assistant', content: '{"home":"Welcome."}' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c2', type: 'function', function: { name: 'wiki_edit', arguments: '{"title":"News","text":"Ship it."}' } }],
      },
      { role: 'assistant', content: '{"url":"https://wiki.example/News"}' },
    );
    const executor = createProviderExecutor({
      provider: createOpenAICompatibleProvider(),
      binding: { provider: 'openai-compatible', baseUrl, model: 'test-model' },
    });
    const dir = dataDir();
    const run = await runMethod(compile(PUBLISH), { dataDir: dir, environment: { wiki: w.connection }, executor });
    expect(run).toMatchObject({ status: 'completed', steps: { look: 'unchecked', post: 'passed' }, result: 'https://wiki.example/News' });
    expect(w.pages['News']).toBe('Ship it.');
    expect(bodies).toHaveLength(4);
    const names = (b: Record<string, unknown>) => ((b['tools'] ?? []) as { function: { name: string } }[]).map((t) => t.function.name);
    expect(bodies.map(names)).toEqual([['wiki_read'], ['wiki_read'], ['wiki_read', 'wiki_edit'], ['wiki_read', 'wiki_edit']]);
    const messages = bodies[1]!['messages'] as { role: string; content?: string; tool_call_id?: string }[];
    expect(messages[0]).toEqual({ role: 'system', content: 'Read the Home page of wiki.' });
    expect(messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'c1', content: '{"text":"Welcome.","title":"Home"}' });
    expect(bodies[2]!['response_format']).toMatchObject({ json_schema: { schema: { properties: { url: { type: 'string' } }, required: ['url'] } } });
    expect(readMethodRun(run.runId, { dataDir: dir }).record.steps['post']!.changes?.['environment.wiki']?.writes).toEqual([
      { tool: 'wiki.edit', input: { title: 'News', text: 'Ship it.' }, output: { title: 'News', revision: 7 } },
    ]);
  });
});

describe('a do step run by a Berry agent from a bundle, calling a connection tool', () => {
  it("routes the agent's tool calls through the step: offered, recorded, refused when the step does not change the connection", async () => {
    const pkg = dataDir();
    mkdirSync(path.join(pkg, 'routines'));
    writeFileSync(
      path.join(pkg, 'plugin.json'),
      JSON.stringify({
        $schema: 'https://agent-plugins.org/schemas/1.0.0/plugin.schema.json',
        name: 'method.agents',
        version: '1',
        extensions: { 'ai.strawberry.berry': { sources: 'routines', exports: ['steps.agent'], requires: ['wiki.read', 'wiki.edit'] } },
      }),
    );
    writeFileSync(
      path.join(pkg, 'routines', 'agent.md'),
      [
        '---',
        'name: steps.agent',
        'description: Does one method step with the wiki tools it is offered.',
        'model:',
        '  select:',
        '    operation: generation',
        'output:',
        '  type: object',
        'tools:',
        '  - wiki.read',
        '  - wiki.edit',
        '---',
        'Do this step of a method: {{ $.input.instructions }}',
      ].join('\n'),
    );
    const built = createCompiler({}).build(path.join(pkg, 'plugin.json'));
    expect(built.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const w = wiki();
    const runtime = createRuntime({ tools: createStepTools(['wiki.read', 'wiki.edit']) });
    try {
      const bundle = await loadBundle(built.bundle!.bytes, { blobs: built.bundle!.blobs });
      // Decisions of one execution: `look` (reads, then tries to write: refused) and `post` (writes) each start one.
      const script = {
        'steps.agent': [
          {
            toolCalls: [
              { name: 'wiki.read', input: { title: 'Home' } },
              { name: 'wiki.edit', input: { title: 'Home', text: 'Defaced.' } },
            ],
          },
          { output: { home: 'Welcome.' } },
        ],
      };
      const post = {
        'steps.agent': [{ toolCalls: [{ name: 'wiki.edit', input: { title: 'News', text: 'Ship it.' } }] }, { output: { url: 'https://wiki.example/News' } }],
      };
      const preparations = {
        look: runtime.prepare(bundle, { grants: ['wiki.read', 'wiki.edit'], models: { default: { provider: 'scripted', script } } }),
        post: runtime.prepare(bundle, { grants: ['wiki.read', 'wiki.edit'], models: { default: { provider: 'scripted', script: post } } }),
      };
      const executors = {
        look: createRoutineExecutor({ runtime, preparation: preparations.look, target: { export: 'steps.agent' } }),
        post: createRoutineExecutor({ runtime, preparation: preparations.post, target: { export: 'steps.agent' } }),
      };
      const dir = dataDir();
      const run = await runMethod(compile(PUBLISH), {
        dataDir: dir,
        environment: { wiki: w.connection },
        executor: (r) => executors[r.step as 'look' | 'post'].run(r),
      });
      expect(run).toMatchObject({ status: 'completed', steps: { look: 'unchecked', post: 'passed' }, result: 'https://wiki.example/News' });
      expect(w.calls).toEqual(['read Home', 'edit News']);
      expect(w.pages['Home']).toBe('Welcome.');
      const steps = readMethodRun(run.runId, { dataDir: dir }).record.steps;
      // Recorded in the order they were asked for, though the two calls of one decision run concurrently.
      expect(steps['look']!.calls?.map((c) => `${c.tool} ${c.status}`)).toEqual(['wiki.read ok', 'wiki.edit refused']);
      expect(steps['post']!.changes?.['environment.wiki']?.writes).toEqual([
        { tool: 'wiki.edit', input: { title: 'News', text: 'Ship it.' }, output: { title: 'News', revision: 7 } },
      ]);
    } finally {
      await runtime.close();
    }
  });
});
