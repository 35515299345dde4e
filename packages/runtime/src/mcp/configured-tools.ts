import { pathToFileURL } from 'node:url';
import type { McpServerConfig, ToolConfig } from '../config/types.js';
import { toolOf, type ExternalTool } from '../execution/external-tool.js';
import { PreparationError } from '../errors.js';
import { isPlainObject, jsonDigest } from '../json.js';
import { McpServer } from './mcp-server.js';

/** External tools built from runtime.yaml's `tools`, and what closes their servers. */
export interface ConfiguredTools {
  /** By external name: give them to `createRuntime({tools})`. */
  tools: Record<string, ExternalTool>;
  /**
   * Closes every server started for these tools (each once; again does nothing). Each tool
   * carries this same `close`, so `runtime.close()` of a runtime given them calls it: a host
   * that hands the tools to a runtime need not call it, one that does not must.
   */
  close(): Promise<void>;
}

export interface ConfiguredToolsOptions {
  /** Where `mcp.env` values come from (the host's environment). */
  variables?: Readonly<Record<string, string | undefined>>;
}

/**
 * Builds the external tools runtime.yaml's `tools` names (docs/runtime.md, "MCP tools"): each
 * MCP server is started once (tools sharing a server share it) and its tools listed, so each
 * tool is offered with the server's exact input schema; a JS module is imported once and its
 * export called. A server that cannot start, a tool it does not list, or a module without the
 * export is refused here with `tool-unavailable`, before anything runs; what was started by
 * then is closed.
 */
export async function createConfiguredTools(config: Readonly<Record<string, ToolConfig>>, options: ConfiguredToolsOptions = {}): Promise<ConfiguredTools> {
  const variables = options.variables ?? {};
  const servers = new Map<string, Promise<McpServer>>();
  const tools: Record<string, ExternalTool> = {};
  // Module tools that release something themselves (an export `{invoke, close}`).
  const modules = new Set<ExternalTool>();
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      const started = await Promise.allSettled(servers.values());
      await Promise.all([...started.map((s) => (s.status === 'fulfilled' ? s.value.close() : undefined)), ...[...modules].map(async (tool) => tool.close?.())]);
    })());
  try {
    for (const [name, tool] of Object.entries(config)) {
      if ('mcp' in tool) {
        const key = jsonDigest(tool.mcp);
        if (!servers.has(key)) servers.set(key, connect(tool.mcp, variables, name));
        const server = await servers.get(key)!;
        tools[name] = wrap(name, () => server.tool(tool.tool, name));
      } else {
        const made = await moduleTool(name, tool.module, tool.export);
        if (made.close) modules.add(made);
        tools[name] = made;
      }
    }
  } catch (error) {
    await close();
    throw error;
  }
  // The runtime given these tools owns them: its close() reaches the servers through any of them.
  const owned = Object.fromEntries(
    Object.entries(tools).map(([name, tool]): [string, ExternalTool] => {
      const shared: ExternalTool = { invoke: (input, context) => tool.invoke(input, context), close };
      if (tool.description !== undefined) shared.description = tool.description;
      if (tool.input !== undefined) shared.input = tool.input;
      if (tool.output !== undefined) shared.output = tool.output;
      return [name, shared];
    }),
  );
  return { tools: owned, close };
}

async function connect(config: McpServerConfig, variables: Readonly<Record<string, string | undefined>>, name: string): Promise<McpServer> {
  const label = 'url' in config ? `MCP server ${config.url}` : `MCP server \`${[config.command, ...config.args].join(' ')}\``;
  try {
    return await McpServer.connect(config, variables, label);
  } catch (error) {
    throw new PreparationError(
      'tool-unavailable',
      `Unexpected ${label} for tool \`${name}\` that cannot be started: ${error instanceof Error ? error.message : String(error)}`,
      name,
    );
  }
}

function wrap(name: string, make: () => ExternalTool): ExternalTool {
  try {
    return make();
  } catch (error) {
    throw new PreparationError('tool-unavailable', `Unexpected tool \`${name}\`: ${error instanceof Error ? error.message : String(error)}`, name);
  }
}

/**
 * A JS-module tool: the export is a function `(input, {executionId, callId, signal})`, or an
 * object `{description?, input?, output?, invoke}` like `createRuntime({tools})` takes.
 */
async function moduleTool(name: string, file: string, exported: string): Promise<ExternalTool> {
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    throw new PreparationError(
      'tool-unavailable',
      `Unexpected module ${file} for tool \`${name}\` that cannot be imported: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
      name,
    );
  }
  const value = Object.hasOwn(module, exported) ? module[exported] : undefined;
  if (typeof value === 'function') return toolOf(value as (input: unknown) => unknown);
  if (isPlainObject(value) && typeof value['invoke'] === 'function') return value as unknown as ExternalTool;
  throw new PreparationError(
    'tool-unavailable',
    `Unexpected export \`${exported}\` of ${file} for tool \`${name}\`, expected a function or {invoke} (the module exports ${Object.keys(module).sort().join(', ') || 'nothing'})`,
    name,
  );
}
