import type { ExternalTool } from '../execution/external-tool.js';
import { isPlainObject } from '../json.js';

/**
 * A method connection served by tools: what runtime.yaml's `environment` says of it (the tools
 * that serve it and which of them write), with each tool bound to an implementation (an MCP
 * server's tool, a JS module, an in-process function). Passed as the connection's entry of the
 * run's `environment` option; any other value is plain configuration for a custom executor.
 */
export interface ToolConnection {
  /** Every tool that serves the connection; `undefined` when the name is bound to nothing. */
  tools: Record<string, ExternalTool | undefined>;
  /** The names among `tools` that write (change what the connection reaches). Default: none. */
  writes?: readonly string[];
  /** The tool names the run's configuration grants (runtime.yaml `grants`, `--grant`). Default: every tool. */
  grants?: readonly string[];
  /**
   * The access probe: whether the tool's server offers it now (an MCP server lists it). A
   * message saying why not; undefined when it is offered. Default: every bound tool is offered.
   */
  probe?(tool: string): Promise<string | undefined> | string | undefined;
}

/**
 * Tool connections from runtime.yaml's shape (CONTRACTS.md): `environment` (connection ->
 * `{tools: [names], writes: [names]}`), the tools bound by name (`tools:` entries: MCP servers,
 * JS modules; a missing name stays unbound, for the access check to name), `grants`, and the
 * access probe of whatever serves them. What a host (the CLI) passes as the run's
 * `environment`.
 */
export function toolConnections(
  environment: Readonly<Record<string, { tools: readonly string[]; writes?: readonly string[] }>>,
  bound: Readonly<Record<string, ExternalTool | undefined>>,
  options: { grants?: readonly string[]; probe?: (tool: string) => Promise<string | undefined> | string | undefined } = {},
): Record<string, ToolConnection> {
  const connections: Record<string, ToolConnection> = {};
  for (const [name, declared] of Object.entries(environment)) {
    connections[name] = {
      tools: Object.fromEntries(declared.tools.map((tool) => [tool, Object.hasOwn(bound, tool) ? bound[tool] : undefined])),
      writes: [...(declared.writes ?? [])],
      ...(options.grants ? { grants: [...options.grants] } : {}),
      ...(options.probe ? { probe: options.probe } : {}),
    };
  }
  return connections;
}

export function isToolConnection(value: unknown): value is ToolConnection {
  return isPlainObject(value) && isPlainObject(value['tools']);
}

function isBound(tool: unknown): tool is ExternalTool {
  return isPlainObject(tool) && typeof tool['invoke'] === 'function';
}

/**
 * "Method checks access before operations start" (MTH-14), for one tool connection: every tool
 * bound, granted and offered by its server, and `writes` naming only its tools. The problems,
 * as messages naming the tool.
 */
export async function toolConnectionProblems(name: string, connection: ToolConnection): Promise<string[]> {
  const problems: string[] = [];
  const names = Object.keys(connection.tools);
  if (names.length === 0) problems.push(`connection \`${name}\` has no tools`);
  for (const write of connection.writes ?? []) {
    if (!names.includes(write)) problems.push(`connection \`${name}\` lists \`${write}\` under writes, which is not one of its tools`);
  }
  for (const tool of names) {
    if (connection.grants && !connection.grants.includes(tool)) {
      problems.push(`tool \`${tool}\` of connection \`${name}\` is not granted`);
      continue;
    }
    if (!isBound(connection.tools[tool])) {
      problems.push(`tool \`${tool}\` of connection \`${name}\` is not bound to an implementation`);
      continue;
    }
    let refused: string | undefined;
    try {
      refused = await connection.probe?.(tool);
    } catch (error) {
      refused = error instanceof Error ? error.message : String(error);
    }
    if (refused !== undefined) problems.push(`tool \`${tool}\` of connection \`${name}\` is not offered by its server: ${refused}`);
  }
  return problems;
}
