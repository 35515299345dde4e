// @berrypack/runtime/mcp: external tools from runtime.yaml's `tools` (MCP servers, JS modules).
export { createConfiguredTools, type ConfiguredTools, type ConfiguredToolsOptions } from './configured-tools.js';
export { mcpResultToJson } from './mcp-server.js';
