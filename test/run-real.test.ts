import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { berrypack, berrypackAsync, ROOT, type CliResult } from './support/cli.js';

// `berrypack run` for real (issue #13): runtime.yaml binds the agent's model routine to a local
// OpenAI-compatible server started here, and its tools to a real MCP server (the registry's
// server-everything over stdio) and a JS module. The key comes only from the variable
// runtime.yaml names and never reaches output or the journal.
const KEY = 'sk-real-secret-5b1e';
const EVERYTHING = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'berrypack-run-real-'));

interface Exchange {
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
}
const exchanges: Exchange[] = [];
let server: Server;
let baseUrl: string;

/** Answers like a chat-completions API: first the tool calls, then the structured answer. */
function answer(body: Record<string, unknown>): unknown {
  const messages = body['messages'] as { role: string; content?: string }[];
  const usage = { prompt_tokens: 100 + messages.length, completion_tokens: 20, total_tokens: 120 + messages.length };
  if (!messages.some((m) => m.role === 'tool')) {
    const calls = [
      { id: 'call_sum', type: 'function', function: { name: 'math_sum', arguments: '{"a":2,"b":40}' } },
      { id: 'call_now', type: 'function', function: { name: 'clock_now', arguments: '{"zone":"CET"}' } },
    ];
    return { id: 'r1', choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: calls }, finish_reason: 'tool_calls' }], usage };
  }
  const sum = messages.find((m) => m.role === 'tool')!.content!;
  const content = JSON.stringify({ answer: 'It is 42.', sum });
  return { id: 'r2', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }], usage };
}

beforeAll(async () => {
  server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    request.on('end', () => {
      const body = JSON.parse(text) as Record<string, unknown>;
      exchanges.push({ headers: request.headers, body });
      if (request.headers['authorization'] !== `Bearer ${KEY}`) {
        response.writeHead(401, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: { message: 'Incorrect API key provided' } }));
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(answer(body)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  writePackage();
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(tmp, { recursive: true, force: true });
});

const PKG = path.join(tmp, 'helper');
const ROUTINE = `---
name: helper.answer
description: Answers a question with a sum and the time.
model:
  select:
    operation: generation
  max_output_tokens: 200
input:
  type: object
  required:
    - question
  properties:
    question:
      type: string
output:
  type: object
  additionalProperties: false
  required:
    - answer
    - sum
  properties:
    answer:
      type: string
    sum:
      type: string
tools:
  - math.sum
  - clock.now
---
Answer the question. Use math.sum for arithmetic and clock.now for the time.
`;

function writePackage(): void {
  mkdirSync(PKG, { recursive: true });
  writeFileSync(
    path.join(PKG, 'plugin.json'),
    JSON.stringify({
      $schema: 'https://agent-plugins.org/schemas/1.0.0/plugin.schema.json',
      name: 'real.helper',
      version: '1',
      extensions: {
        'ai.strawberry.berry': {
          requires: ['math.sum', 'clock.now'],
          agents: { helper: { title: 'Helper', description: 'Answers with a sum.', entry: 'helper.answer' } },
        },
      },
    }),
  );
  writeFileSync(path.join(PKG, 'answer.md'), ROUTINE);
  copyFileSync(path.join(ROOT, 'fixtures/runtime/mcp/host-tools.mjs'), path.join(PKG, 'host-tools.mjs'));
  writeFileSync(
    path.join(PKG, 'runtime.yaml'),
    `models:
  local:
    provider: openai-compatible
    baseUrl: ${baseUrl}
    model: tiny-chat
    apiKeyEnv: REAL_TEST_KEY
    supported_parameters: [tools, structured_outputs, max_tokens]
    settings:
      type: object
      properties:
        max_output_tokens: {type: integer, minimum: 1}
      additionalProperties: false
tools:
  math.sum:
    mcp: {command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(EVERYTHING)}, stdio]}
    tool: get-sum
  clock.now: {module: ./host-tools.mjs, export: now}
grants: [math.sum, clock.now]
`,
  );
}

/** The CLI in a child process, asynchronously: the HTTP server above answers in this one. */
function run(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return berrypackAsync(args, { cwd: tmp, env: { REAL_TEST_KEY: '', ...env } });
}

interface RunJson {
  executionId: string | null;
  status: string;
  calls: { kind: string; name: string; status: string; outcome?: { output?: unknown; error?: unknown } }[];
  output?: unknown;
  error?: { code: string; message: string };
}

const INPUT = ['--agent', 'helper', '--input', '{"question":"What is 2 + 40?"}'];

describe('RUN-6: berrypack run against a local OpenAI-compatible server and a real MCP server', () => {
  it('completes the agent with tool calls and structured output; the key stays out of output and journal', async () => {
    exchanges.length = 0;
    const journal = path.join(tmp, 'real.jsonl');
    const r = await run(['run', 'helper', ...INPUT, '--journal', journal, '--json'], { REAL_TEST_KEY: KEY });
    expect(r.stderr).toBe('');
    const report = JSON.parse(r.stdout) as RunJson;
    expect(report).toMatchObject({ status: 'completed', output: { answer: 'It is 42.', sum: 'The sum of 2 and 40 is 42.' } });
    expect(r.code).toBe(0);

    // The model saw the MCP server's exact schema and the module tool, and the structured-output request.
    expect(exchanges).toHaveLength(2);
    const first = exchanges[0]!;
    expect(first.headers['authorization']).toBe(`Bearer ${KEY}`);
    expect(first.body).toMatchObject({ model: 'tiny-chat', max_tokens: 200, response_format: { type: 'json_schema' } });
    const offered = first.body['tools'] as { function: { name: string; description?: string; parameters: unknown } }[];
    expect(offered.map((t) => t.function.name)).toEqual(['math_sum', 'clock_now']);
    expect(offered[0]!.function).toMatchObject({
      description: 'Returns the sum of two numbers',
      parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    });

    // Every call recorded: two model decisions with the server's usage, the MCP and module tools.
    expect(report.calls.map((c) => [c.kind, c.name, c.status])).toEqual([
      ['entry', 'helper.answer', 'completed'],
      ['model', 'helper.answer', 'completed'],
      ['tool', 'math.sum', 'completed'],
      ['tool', 'clock.now', 'completed'],
      ['model', 'helper.answer', 'completed'],
    ]);
    const models = report.calls.filter((c) => c.kind === 'model');
    expect(models.map((c) => (c.outcome?.output as { usage?: unknown }).usage)).toEqual([
      { inputTokens: 102, outputTokens: 20 },
      { inputTokens: 105, outputTokens: 20 },
    ]);
    expect(report.calls.find((c) => c.name === 'math.sum')?.outcome).toEqual({ output: 'The sum of 2 and 40 is 42.' });
    expect(report.calls.find((c) => c.name === 'clock.now')?.outcome).toEqual({ output: { iso: '2026-12-01T12:00:00.000Z', zone: 'CET' } });

    const recorded = readFileSync(journal, 'utf8');
    for (const text of [r.stdout, r.stderr, recorded]) expect(text).not.toContain(KEY);
    expect(JSON.parse(recorded.split('\n')[0]!)).toMatchObject({
      type: 'execution',
      models: { 'helper.answer': { provider: 'openai-compatible', model: 'tiny-chat', configured: 'local' } },
    });

    // Replay serves every recorded outcome: no server, no key needed.
    const replay = berrypack(['replay', journal, '--json'], { cwd: tmp });
    expect(JSON.parse(replay.stdout)).toMatchObject({ matches: true, status: 'completed' });
  }, 120_000);

  it('refuses at preparation when the key variable is unset, naming it; --script still forces the scripted provider', async () => {
    exchanges.length = 0;
    const missing = await run(['run', 'helper', ...INPUT, '--json']);
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stdout)).toMatchObject({
      executionId: null,
      status: 'failed',
      error: {
        code: 'missing-api-key',
        message: 'Missing environment variable REAL_TEST_KEY (models.local.apiKeyEnv) for `helper.answer`, expected it set to the API key of model `local`',
      },
    });

    const refused = await run(['run', 'helper', ...INPUT, '--json'], { REAL_TEST_KEY: 'sk-wrong-key-1' });
    expect(refused.code).toBe(1);
    const error = (JSON.parse(refused.stdout) as RunJson).error!;
    expect(error.code).toBe('provider-failed');
    expect(error.message).toMatch(/Unexpected HTTP 401 from http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions: the server refused the API key/);
    expect(refused.stdout).not.toContain('sk-wrong-key-1');

    exchanges.length = 0;
    const script = path.join(tmp, 'script.json');
    writeFileSync(script, JSON.stringify({ 'helper.answer': [{ output: { answer: 'scripted', sum: '0' } }] }));
    const scripted = await run(['run', 'helper', ...INPUT, '--script', script, '--json']);
    expect(JSON.parse(scripted.stdout)).toMatchObject({ status: 'completed', output: { answer: 'scripted', sum: '0' } });
    expect(exchanges).toHaveLength(0);
  }, 120_000);
});
