import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { McpServerConfig } from '../config/types.js';
import type { ExternalTool, ToolContext } from '../execution/external-tool.js';
import { isPlainObject } from '../json.js';

/** How much of a stdio server's stderr is kept, to say why it died. */
const STDERR_TAIL = 2048;
/** The SDK's own per-request timeout; the caller's deadline aborts long before it in practice. */
const REQUEST_TIMEOUT_MS = 24 * 60 * 60 * 1000;

/** A tool of a connected server, as the server lists it. */
interface ListedTool {
  name: string;
  description?: string;
  inputSchema: unknown;
  outputSchema?: unknown;
}

/**
 * One connected MCP server (stdio or streamable HTTP) through the official SDK client: started
 * once, its tools listed once, closed once. A call that the server answers with `isError`, or
 * that the server's death cuts short, throws with the server's own message.
 */
export class McpServer {
  private readonly client = new Client({ name: 'berrypack', version: '1' });
  private tools = new Map<string, ListedTool>();
  private stderr = '';
  private closed = false;
  private exited: string | undefined;

  private constructor(readonly label: string) {}

  static async connect(config: McpServerConfig, variables: Readonly<Record<string, string | undefined>>, label: string): Promise<McpServer> {
    const server = new McpServer(label);
    let transport: StdioClientTransport | StreamableHTTPClientTransport;
    if ('url' in config) transport = new StreamableHTTPClientTransport(new URL(config.url));
    else {
      const env: Record<string, string> = {};
      for (const [name, ours] of Object.entries(config.env)) {
        const value = Object.hasOwn(variables, ours) ? variables[ours] : undefined;
        if (value === undefined) throw new Error(`Missing environment variable ${ours}, expected it set for the server's ${name}`);
        env[name] = value;
      }
      const stdio = new StdioClientTransport({ command: config.command, args: config.args, env, cwd: config.cwd, stderr: 'pipe' });
      stdio.stderr?.on('data', (chunk: Buffer) => {
        server.stderr = (server.stderr + chunk.toString('utf8')).slice(-STDERR_TAIL);
      });
      transport = stdio;
    }
    transport.onclose = () => {
      if (!server.closed) server.exited = 'the server closed the connection';
    };
    await server.client.connect(transport);
    let cursor: string | undefined;
    do {
      const page = await server.client.listTools(cursor === undefined ? {} : { cursor });
      for (const tool of page.tools) server.tools.set(tool.name, tool as ListedTool);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return server;
  }

  /** An external tool calling `name` on this server, offered with the server's exact schemas. */
  tool(name: string, external: string): ExternalTool {
    const listed = this.tools.get(name);
    if (listed === undefined)
      throw new Error(`Unexpected tool \`${name}\`, which ${this.label} does not list (it lists ${[...this.tools.keys()].join(', ') || 'none'})`);
    const tool: ExternalTool = {
      input: listed.inputSchema,
      invoke: (input, context) => this.call(name, external, input, context),
    };
    if (listed.description !== undefined) tool.description = listed.description;
    if (listed.outputSchema !== undefined) tool.output = listed.outputSchema;
    return tool;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.client.close().catch(() => undefined);
  }

  private async call(name: string, external: string, input: unknown, context: ToolContext): Promise<unknown> {
    if (this.closed) throw new Error(`${this.label} is closed: its runtime (or host) closed it`);
    if (this.exited !== undefined) throw new Error(`${this.label} is not running (${this.exited})${this.stderrNote()}`);
    const args = isPlainObject(input) ? input : input === undefined || input === null ? {} : undefined;
    if (args === undefined) throw new Error(`Unexpected input for MCP tool \`${external}\` that is not an object, expected the tool's arguments`);
    let result;
    try {
      result = await this.client.callTool({ name, arguments: args }, undefined, { signal: context.signal, timeout: REQUEST_TIMEOUT_MS });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new Error(`${this.label} failed on \`${name}\`: ${message}${this.stderrNote()}`);
    }
    return mcpResultToJson(result, name);
  }

  private stderrNote(): string {
    const tail = this.stderr.trim();
    return tail === '' ? '' : ` (its stderr ends: ${tail.split('\n').slice(-3).join(' | ')})`;
  }
}

/**
 * An MCP tool result as JSON (docs/runtime.md, "MCP tools"): `isError` throws with the text of
 * its content; otherwise `structuredContent` when the server gives it; else one text part is
 * its text; else the content array as it is (images and resources keep their MCP shape).
 */
export function mcpResultToJson(result: Record<string, unknown>, name: string): unknown {
  const content = Array.isArray(result['content']) ? (result['content'] as unknown[]) : [];
  const texts = content.flatMap((part) => (isPlainObject(part) && part['type'] === 'text' && typeof part['text'] === 'string' ? [part['text']] : []));
  if (result['isError'] === true) throw new Error(`MCP tool \`${name}\` answered with an error: ${texts.join('\n') || 'no message'}`);
  if (result['structuredContent'] !== undefined) return result['structuredContent'];
  if (content.length === 1 && texts.length === 1) return texts[0];
  if ('toolResult' in result) return result['toolResult'];
  return content;
}
