import type { RuntimeLimits } from '../limits.js';

/**
 * A model configured in runtime.yaml under `models.<key>` (CONTRACTS.md, "runtime.yaml"). The
 * descriptor fields (`operations` … `settings`) are what `select` is matched against; the
 * connection fields say how to reach it. The key itself is never in the file: it comes from
 * the variable `apiKeyEnv` names, at preparation.
 */
export interface ConfiguredModel {
  /** `openai-compatible`, `scripted`, or a provider registered with `createRuntime({providers})`. */
  provider: string;
  baseUrl?: string;
  /** The provider's model id (sent as `model`; matched by a routine's `provider`+`id`). */
  model?: string;
  /** The environment variable holding the API key. */
  apiKeyEnv?: string;
  /** `scripted` only: a script file (absolute, resolved against runtime.yaml's directory). */
  script?: string;
  /** Milliseconds one HTTP request may take before it is abandoned (and retried). */
  requestTimeoutMs?: number;
  /** Retries of a request refused with 429 or 5xx, or cut by a network error. */
  retries?: number;
  /** @default ['generation'] */
  operations?: string[];
  /** @default ['request', 'stream'] */
  interactions?: string[];
  input_modalities?: string[];
  output_modalities?: string[];
  supported_parameters?: string[];
  tool_choice?: string[];
  context_length?: number;
  session?: Record<string, unknown>;
  funding?: unknown;
  /** JSON Schema of the settings a routine may give beside `select` or `provider`/`id`. */
  settings?: Record<string, unknown>;
}

/** An MCP server: a command started over stdio, or a streamable HTTP endpoint. */
export type McpServerConfig =
  | {
      command: string;
      args: string[];
      /** Server variable -> the name of our variable whose value it gets. */
      env: Record<string, string>;
      /** Absolute; default: runtime.yaml's directory. */
      cwd: string;
    }
  | { url: string };

/** How an external tool name is served: a tool of an MCP server, or a function a JS module exports. */
export type ToolConfig =
  | { mcp: McpServerConfig; /** The server's tool name; default: the external name. */ tool: string }
  | { /** Absolute path of the module. */ module: string; /** @default 'default' */ export: string };

/** A method connection and the tools that serve it; `writes` are the tools that change something. */
export interface EnvironmentConnection {
  tools: string[];
  writes: string[];
}

/** Every setting of runtime.yaml; absent keys are absent (or empty), paths absolute. */
export interface RuntimeConfig {
  limits: Partial<RuntimeLimits>;
  /** In file order: `select` takes the first model that satisfies it. */
  models: Record<string, ConfiguredModel>;
  /** Routine name (or `default`) -> model key. */
  bind: Record<string, string>;
  catalog?: string;
  tools: Record<string, ToolConfig>;
  grants: string[];
  /** OpenID Connect claims served as `$.user`; `{}` when absent. */
  user: Record<string, unknown>;
  environment: Record<string, EnvironmentConnection>;
  sessions?: string;
  database?: string;
}

/** A diagnostic in the shape of every other (CONTRACTS.md, "Diagnostics"). */
export interface ConfigDiagnostic {
  code: 'BP9010';
  rule: 'RUN-4';
  severity: 'error';
  message: string;
  file: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
}

export type RuntimeConfigResult = { ok: true; config: RuntimeConfig; diagnostics: [] } | { ok: false; diagnostics: ConfigDiagnostic[] };
