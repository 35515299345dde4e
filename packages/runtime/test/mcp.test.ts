import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { McpServer as SdkServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createCompiler } from '../../compiler/src/index.js';
import type { ToolConfig } from '../src/config/index.js';
import { createRuntime, loadBundle, PreparationError } from '../src/index.js';
import { createConfiguredTools, type ConfiguredTools } from '../src/mcp/index.js';

// External tools from runtime.yaml's `tools`: real MCP servers (the registry's
// server-everything over stdio, one of the official SDK over streamable HTTP on 127.0.0.1, a
// failing one), and JS modules; called through the runtime as ordinary recorded calls.
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const EVERYTHING = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const FIXTURES = path.join(ROOT, 'fixtures/runtime/mcp');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'berrypack-mcp-'));
const everything = { command: process.execPath, args: [EVERYTHING, 'stdio'], env: { MARKER: 'MCP_TEST_MARKER' }, cwd: tmp };
const flaky = { command: process.execPath, args: [path.join(FIXTURES, 'flaky-server.mjs')], env: {}, cwd: ROOT };

let http: Server;
let httpUrl: string;
const opened: ConfiguredTools[] = [];

beforeAll(async () => {
  // A streamable HTTP MCP server of the official SDK, one session per client.
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  http = createServer(async (request, response) => {
    let body = '';
    for await (const chunk of request) body += (chunk as Buffer).toString('utf8');
    const id = request.headers['mcp-session-id'];
    let transport = typeof id === 'string' ? sessions.get(id) : undefined;
    if (!transport) {
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => void sessions.set(sid, created),
      });
      const server = new SdkServer({ name: 'http-test', version: '1' });
      server.registerTool(
        'reverse',
        { description: 'Reverses a text.', inputSchema: { text: z.string() }, outputSchema: { reversed: z.string() } },
        async (args: Record<string, unknown>) => ({
          content: [{ type: 'text', text: 'ignored: structured content comes first' }],
          structuredContent: {
            reversed: String(args['text'] ?? '')
              .split('')
              .reverse()
              .join(''),
          },
        }),
      );
      await server.connect(created);
      transport = created;
    }
    await transport.handleRequest(request, response, body === '' ? undefined : JSON.parse(body));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  httpUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
});

afterAll(async () => {
  await Promise.all(opened.map((t) => t.close()));
  http.closeAllConnections();
  await new Promise<void>((resolve) => http.close(() => resolve()));
  rmSync(tmp, { recursive: true, force: true });
});

async function tools(config: Record<string, ToolConfig>, variables: Record<string, string> = {}): Promise<ConfiguredTools> {
  const made = await createConfiguredTools(config, { variables });
  opened.push(made);
  return made;
}

const context = () => ({ executionId: 'e', callId: 'c', signal: new AbortController().signal });

describe('RUN-11, RUN-12: MCP tools (stdio): @modelcontextprotocol/server-everything', () => {
  it('offers each tool with the server exact input schema; text, structured content and env reach the caller', async () => {
    const made = await tools(
      {
        'math.sum': { mcp: everything, tool: 'get-sum' },
        'weather.now': { mcp: everything, tool: 'get-structured-content' },
        'env.dump': { mcp: everything, tool: 'get-env' },
      },
      { MCP_TEST_MARKER: 'marker-value-1' },
    );
    const sum = made.tools['math.sum']!;
    expect(sum.description).toBe('Returns the sum of two numbers');
    expect(sum.input).toMatchObject({
      type: 'object',
      properties: { a: { type: 'number', description: 'First number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    });
    expect(await sum.invoke({ a: 2, b: 3 }, context())).toBe('The sum of 2 and 3 is 5.');
    expect(await made.tools['weather.now']!.invoke({ location: 'Chicago' }, context())).toEqual({
      temperature: 36,
      conditions: 'Light rain / drizzle',
      humidity: 82,
    });
    expect(made.tools['weather.now']!.output).toMatchObject({ type: 'object', properties: { temperature: { type: 'number' } } });
    const env = JSON.parse((await made.tools['env.dump']!.invoke({}, context())) as string) as Record<string, string>;
    expect(env['MARKER']).toBe('marker-value-1');
    // Our other variables are not passed on: only the mapped ones (and the SDK's safe defaults).
    expect(env['MCP_TEST_MARKER']).toBeUndefined();
  });

  it('refuses a server that does not list the tool, or a variable that is not set, before anything runs', async () => {
    const missing = await createConfiguredTools({ 'x.y': { mcp: everything, tool: 'no-such-tool' } }, { variables: { MCP_TEST_MARKER: 'v' } }).catch(
      (e: unknown) => e,
    );
    expect(missing).toBeInstanceOf(PreparationError);
    expect((missing as PreparationError).code).toBe('tool-unavailable');
    expect((missing as Error).message).toMatch(
      /^Unexpected tool `x\.y`: Unexpected tool `no-such-tool`, which MCP server `.*` does not list \(it lists .*get-sum/,
    );
    const unset = await createConfiguredTools({ 'x.y': { mcp: everything, tool: 'get-sum' } }).catch((e: unknown) => e);
    expect((unset as Error).message).toMatch(/cannot be started: Missing environment variable MCP_TEST_MARKER, expected it set for the server's MARKER$/);
  });

  it('runs as an ordinary recorded call of a routine, the input checked against the server schema first', async () => {
    const dir = path.join(tmp, 'pkg');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      path.join(dir, 'plugin.json'),
      JSON.stringify({
        $schema: 'https://agent-plugins.org/schemas/1.0.0/plugin.schema.json',
        name: 'mcp.test',
        version: '1',
        extensions: { 'ai.strawberry.berry': { exports: ['main'], requires: ['math.sum'] } },
      }),
    );
    writeFileSync(
      path.join(dir, 'main.md'),
      "---\nname: main\ndescription: Adds.\nlanguage: javascript\ntools:\n  - math.sum\n---\nexport default async function (input, tools) {\n  const sum = await tools['math.sum']({ a: 20, b: 22 });\n  let refused = null;\n  try { await tools['math.sum']({ a: 'x' }); } catch (error) { refused = error.message; }\n  return { sum, refused };\n}\n",
    );
    const built = createCompiler({}).build(path.join(dir, 'plugin.json'));
    if (!built.ok || !built.bundle) throw new Error(JSON.stringify(built.diagnostics));
    const made = await tools({ 'math.sum': { mcp: everything, tool: 'get-sum' } }, { MCP_TEST_MARKER: 'v' });
    const runtime = createRuntime({ tools: made.tools });
    try {
      const preparation = runtime.prepare(await loadBundle(built.bundle.bytes), { grants: ['math.sum'] });
      const { executionId } = await runtime.start(preparation, { export: 'main' });
      const outcome = await runtime.result(executionId);
      expect(outcome).toMatchObject({
        status: 'completed',
        output: { sum: 'The sum of 20 and 22 is 42.', refused: "Unexpected input for tool `math.sum`: $ must have required property 'b'; $.a must be number" },
      });
      const calls = runtime.inspect(executionId).calls.filter((c) => c.kind === 'tool');
      expect(calls.map((c) => [c.name, c.status])).toEqual([
        ['math.sum', 'completed'],
        ['math.sum', 'failed'],
      ]);
    } finally {
      await runtime.close();
    }
  });
});

describe('MCP tools: failures and streamable HTTP', () => {
  it('turns isError into a failure with the server message, and a crash into one with its stderr', async () => {
    const made = await tools({ 'disk.write': { mcp: flaky, tool: 'fail' }, 'disk.crash': { mcp: flaky, tool: 'crash' } });
    await expect(made.tools['disk.write']!.invoke({}, context())).rejects.toThrow('MCP tool `fail` answered with an error: disk is full');
    const crash = (await Promise.resolve(made.tools['disk.crash']!.invoke({}, context())).catch((e: unknown) => e)) as Error;
    expect(crash.message).toMatch(/^MCP server `.*flaky-server\.mjs` failed on `crash`: .*Connection closed.* \(its stderr ends: fatal: out of cheese\)$/);
    // The server is gone: later calls fail at once, saying so.
    await expect(made.tools['disk.write']!.invoke({}, context())).rejects.toThrow(/is not running \(the server closed the connection\)/);
  });

  it('calls a streamable HTTP server; structured content comes before text', async () => {
    const made = await tools({ 'text.reverse': { mcp: { url: httpUrl }, tool: 'reverse' } });
    expect(await made.tools['text.reverse']!.invoke({ text: 'berry' }, context())).toEqual({ reversed: 'yrreb' });
    await made.close();
    await made.close();
  });
});

describe('RUN-11: runtime.close() closes the configured tools it was given', () => {
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };

  it('stops the stdio MCP server process and calls a module tool close(), each once', async () => {
    const module = path.join(tmp, 'closing-tool.mjs');
    const closedFile = path.join(tmp, 'closed.txt');
    writeFileSync(
      module,
      `import { appendFileSync } from 'node:fs';\nexport const handle = { invoke: () => 'open', close() { appendFileSync(${JSON.stringify(closedFile)}, 'closed\\n'); } };\n`,
    );
    const pidServer = { command: process.execPath, args: [path.join(FIXTURES, 'pid-server.mjs')], env: {}, cwd: ROOT };
    // Not pushed to `opened`: the runtime owns these.
    const made = await createConfiguredTools({
      'proc.whoami': { mcp: pidServer, tool: 'whoami' },
      'proc.again': { mcp: pidServer, tool: 'whoami' },
      'h.open': { module, export: 'handle' },
    });
    const pid = Number(await made.tools['proc.whoami']!.invoke({}, context()));
    expect(alive(pid)).toBe(true);
    const runtime = createRuntime({ tools: made.tools });
    await runtime.close();
    for (let i = 0; i < 200 && alive(pid); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(alive(pid)).toBe(false);
    expect(readFileSync(closedFile, 'utf8')).toBe('closed\n');
    // Closing again (the runtime, or the host's own close) does nothing more.
    await runtime.close();
    await made.close();
    expect(readFileSync(closedFile, 'utf8')).toBe('closed\n');
    await expect(Promise.resolve().then(() => made.tools['proc.whoami']!.invoke({}, context()))).rejects.toThrow(
      /pid-server\.mjs` is closed: its runtime \(or host\) closed it$/,
    );
  });
});

describe('JS-module tools', () => {
  it('calls a function export or an {invoke} object; a missing export is refused naming what the module has', async () => {
    const module = path.join(FIXTURES, 'host-tools.mjs');
    const made = await tools({ 'clock.now': { module, export: 'now' }, 'text.shout': { module, export: 'shout' }, 'x.fail': { module, export: 'default' } });
    expect(await made.tools['clock.now']!.invoke({ zone: 'CET' }, context())).toEqual({ iso: '2026-12-01T12:00:00.000Z', zone: 'CET' });
    expect(made.tools['text.shout']!.input).toMatchObject({ required: ['text'] });
    expect(await made.tools['text.shout']!.invoke({ text: 'hi' }, context())).toBe('HI');
    expect(() => made.tools['x.fail']!.invoke({}, context())).toThrow('the module tool refused');
    const missing = await createConfiguredTools({ 'x.y': { module, export: 'later' } }).catch((e: unknown) => e);
    expect((missing as Error).message).toBe(
      `Unexpected export \`later\` of ${module} for tool \`x.y\`, expected a function or {invoke} (the module exports default, now, shout)`,
    );
  });
});
