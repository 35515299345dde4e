import {
  createOpenAICompatibleProvider,
  createProviderExecutor,
  createProviderJudge,
  createScriptedProvider,
  toolConnections,
  type ExternalTool,
  type MethodExecutor,
  type MethodJudge,
  type ModelBinding,
  type ModelProvider,
  type Script,
} from '@berrypack/runtime';
import type { RuntimeConfig, ToolConfig } from '@berrypack/runtime/config';
import { createConfiguredTools } from '@berrypack/runtime/mcp';
import { UsageError } from '../usage-error.js';
import { readScriptFile } from './run-config.js';

/**
 * The do-step executor and judge from runtime.yaml's `models`: a step binds to `bind.<step>`,
 * else `bind.default`, else the only configured model (its judge: `bind["<step>.check"]`
 * first). The API key comes from the variable `apiKeyEnv` names and stays in the binding
 * (the runner never records it). Undefined when runtime.yaml configures no model.
 */
export function configuredExecutor(
  config: RuntimeConfig,
  variables: Readonly<Record<string, string | undefined>>,
): { executor: MethodExecutor; judge: MethodJudge } | undefined {
  const keys = Object.keys(config.models);
  if (keys.length === 0) return undefined;
  const made = new Map<string, { provider: ModelProvider; binding: ModelBinding }>();
  const model = (names: readonly string[]) => {
    const key = names.map((n) => config.bind[n]).find((k) => k !== undefined) ?? config.bind['default'] ?? (keys.length === 1 ? keys[0]! : undefined);
    if (key === undefined)
      throw new UsageError(
        `Unexpected step \`${names[names.length - 1]}\` that no configured model is bound to, expected runtime.yaml's bind.${names[names.length - 1]} or bind.default (configured: ${keys.join(', ')})`,
      );
    if (!made.has(key)) made.set(key, modelOf(key, config, variables));
    return made.get(key)!;
  };
  return {
    executor: { run: (request) => createProviderExecutor(model([request.step])).run(request) },
    judge: (request) => createProviderJudge(model([`${request.step}.check`, request.step]))(request),
  };
}

function modelOf(
  key: string,
  config: RuntimeConfig,
  variables: Readonly<Record<string, string | undefined>>,
): { provider: ModelProvider; binding: ModelBinding } {
  const configured = config.models[key];
  if (configured === undefined) throw new UsageError(`Unexpected bound model \`${key}\` that runtime.yaml's models does not configure`);
  const binding: ModelBinding = { provider: configured.provider };
  if (configured.model !== undefined) binding.model = configured.model;
  if (configured.baseUrl !== undefined) binding.baseUrl = configured.baseUrl;
  if (configured.requestTimeoutMs !== undefined) binding.requestTimeoutMs = configured.requestTimeoutMs;
  if (configured.retries !== undefined) binding.retries = configured.retries;
  if (configured.apiKeyEnv !== undefined) {
    const value = variables[configured.apiKeyEnv];
    if (value === undefined || value === '')
      throw new UsageError(
        `Missing environment variable ${configured.apiKeyEnv} (models.${key}.apiKeyEnv), expected it set to the API key of model \`${key}\``,
      );
    binding.apiKey = value;
  }
  if (configured.provider === 'openai-compatible') return { provider: createOpenAICompatibleProvider(), binding };
  if (configured.provider === 'scripted') {
    const script: Script | undefined = configured.script === undefined ? undefined : readScriptFile(configured.script, `models.${key}.script`);
    return { provider: createScriptedProvider(script ? { script } : {}), binding: { ...binding, ...(script ? { script } : {}) } };
  }
  throw new UsageError(`Unexpected provider \`${configured.provider}\` of models.${key}, expected openai-compatible or scripted for a method`);
}

/**
 * The connections runtime.yaml's `environment` serves with `tools`: the tools those
 * connections name are started (one MCP server per distinct server; a server that will not
 * start, or does not list a tool, is retried tool by tool so that only the failing tools are
 * refused). The access probe answers for each tool whether its server offered it. `close`
 * stops every server.
 */
export async function configuredConnections(
  config: RuntimeConfig,
  variables: Readonly<Record<string, string | undefined>>,
): Promise<{ environment: Record<string, unknown>; close(): Promise<void> }> {
  const wanted = new Set(Object.values(config.environment).flatMap((c) => c.tools));
  const groups = new Map<string, Record<string, ToolConfig>>();
  for (const name of wanted) {
    const tool = config.tools[name];
    if (tool === undefined) continue;
    const key = 'mcp' in tool ? JSON.stringify(tool.mcp) : `${name}\0module`;
    groups.set(key, { ...groups.get(key), [name]: tool });
  }
  const tools: Record<string, ExternalTool> = {};
  const refused = new Map<string, string>();
  const closers: (() => Promise<void>)[] = [];
  const start = async (group: Record<string, ToolConfig>): Promise<string | undefined> => {
    try {
      const configured = await createConfiguredTools(group, { variables });
      closers.push(configured.close);
      Object.assign(tools, configured.tools);
      return undefined;
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  };
  for (const group of groups.values()) {
    if ((await start(group)) === undefined) continue;
    for (const [name, tool] of Object.entries(group)) {
      const problem = await start({ [name]: tool });
      if (problem !== undefined) {
        refused.set(name, problem);
        tools[name] = { invoke: () => Promise.reject(new Error(problem)) };
      }
    }
  }
  const environment = toolConnections(config.environment, tools, {
    ...(config.grants.length > 0 ? { grants: config.grants } : {}),
    probe: (tool) => refused.get(tool),
  });
  return { environment, close: async () => void (await Promise.all(closers.map((c) => c()))) };
}
