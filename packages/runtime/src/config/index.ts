// @berrypack/runtime/config: the one strict reader of runtime.yaml (docs/runtime.md, "runtime.yaml").
export { MAX_CONFIG_BYTES, parseRuntimeConfig, RUNTIME_YAML, type ParseConfigOptions } from './parse-config.js';
export type { ConfigDiagnostic, ConfiguredModel, EnvironmentConnection, McpServerConfig, RuntimeConfig, RuntimeConfigResult, ToolConfig } from './types.js';
