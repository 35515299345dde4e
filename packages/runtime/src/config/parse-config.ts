import path from 'node:path';
import { isMap, LineCounter, parseDocument, type Node as YamlNode } from 'yaml';
import { DEFAULT_LIMITS, type RuntimeLimits } from '../limits.js';
import type { ConfigDiagnostic, ConfiguredModel, EnvironmentConnection, McpServerConfig, RuntimeConfig, RuntimeConfigResult, ToolConfig } from './types.js';
import { ConfigRefusal, describe, NodeReader } from './yaml-nodes.js';

/** The file the runtime settings of a package live in (spec: "Runtime settings belong in runtime.yaml"). */
export const RUNTIME_YAML = 'runtime.yaml';

/** A runtime.yaml of mostly comments is a few kilobytes; anything this large is not one. */
export const MAX_CONFIG_BYTES = 256 * 1024;

/** The yaml parser recurses once per nesting level (and a hostile depth exhausts its memory): refused before parsing. */
const MAX_NESTING = 256;

const KEYS = ['limits', 'models', 'bind', 'catalog', 'tools', 'grants', 'user', 'environment', 'sessions', 'database'] as const;

const UNITS: Record<keyof RuntimeLimits, string> = {
  timeoutMs: 'milliseconds',
  cpuMs: 'milliseconds',
  memoryBytes: 'bytes',
  outputBytes: 'bytes',
  calls: 'calls',
  steps: 'steps',
  concurrency: 'calls in flight',
};

/** Names as routines and `requires` spell them (NAME-1), and environment variable names. */
const NAME = /^[A-Za-z0-9_.-]{1,128}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const HTTP_URL = /^https?:\/\/[^\s]+$/;
const LIST_FIELDS = ['input_modalities', 'output_modalities', 'supported_parameters', 'tool_choice'] as const;

export interface ParseConfigOptions {
  /** The directory relative paths resolve against: the file's own (absolute). */
  directory: string;
  /** The path shown in diagnostics. @default 'runtime.yaml' */
  file?: string;
}

/**
 * The one strict reader of runtime.yaml (CONTRACTS.md, "runtime.yaml"): pure, text in,
 * settings and diagnostics out; the caller reads the file. Unknown keys and bad values are
 * refused with a BP9010 diagnostic at the offending node's line and column. A leading BOM is
 * dropped and CRLF read as LF, as for every text source.
 */
export function parseRuntimeConfig(source: string, options: ParseConfigOptions): RuntimeConfigResult {
  const file = options.file ?? RUNTIME_YAML;
  const text = source.charCodeAt(0) === 0xfeff ? source.slice(1) : source;
  const lines = new LineCounter();
  const refuse = (offset: number, message: string): RuntimeConfigResult => {
    const { line, col } = offset < 0 ? { line: 1, col: 1 } : lines.linePos(offset);
    const diagnostic: ConfigDiagnostic = {
      code: 'BP9010',
      rule: 'RUN-4',
      severity: 'error',
      message,
      file,
      line,
      column: col,
      endLine: line,
      endColumn: col + 1,
    };
    return { ok: false, diagnostics: [diagnostic] };
  };
  if (nestingDepth(text) > MAX_NESTING) return refuse(-1, `Unexpected nesting deeper than ${MAX_NESTING} levels, expected runtime settings`);
  let doc;
  try {
    doc = parseDocument(text, { version: '1.2', schema: 'core', prettyErrors: false, strict: true, uniqueKeys: true, lineCounter: lines });
  } catch (error) {
    // The yaml parser recurses once per nesting level: a hostile file overflows the stack.
    if (error instanceof RangeError) return refuse(-1, 'Unexpected nesting too deep to read, expected runtime settings');
    return refuse(-1, `YAML syntax error: ${error instanceof Error ? error.message : String(error)}`);
  }
  // Warnings (an unresolved tag, for one) are refused too: every value must mean what it says.
  const problem = doc.errors[0] ?? doc.warnings[0];
  if (problem && /Maximum call stack/.test(problem.message)) return refuse(-1, 'Unexpected nesting too deep to read, expected runtime settings');
  if (problem) return refuse(problem.pos[0], `YAML syntax error: ${problem.message.split('\n')[0]}`);
  const root = doc.contents as YamlNode | null;
  if (!isMap(root)) return refuse(root?.range?.[0] ?? 0, `Unexpected ${describe(root)} in ${RUNTIME_YAML}, expected a mapping of ${KEYS.join(', ')}`);
  try {
    return { ok: true, config: new ConfigReader(lines, options.directory).read(root), diagnostics: [] };
  } catch (error) {
    if (error instanceof ConfigRefusal) return refuse(error.offset, error.message);
    if (error instanceof RangeError) return refuse(-1, 'Unexpected nesting too deep to read, expected runtime settings');
    throw error;
  }
}

/**
 * An upper bound of the nesting depth: open flow collections (`[`, `{`) plus the indentation
 * and block indicators (`-`, `?`) of the line. Quotes and comments are not parsed, so
 * brackets inside them count: a bound, never less than the real depth.
 */
function nestingDepth(text: string): number {
  let max = 0;
  let flows = 0;
  for (const line of text.split('\n')) {
    const indent = line.length - line.trimStart().length;
    const indicators = /^[\s?-]*/.exec(line)![0].replace(/\s/g, '').length;
    for (let i = 0; i < line.length; i++) {
      const c = line[i];
      if (c === '[' || c === '{') flows++;
      else if ((c === ']' || c === '}') && flows > 0) flows--;
      max = Math.max(max, flows + indent + indicators);
    }
  }
  return max;
}

class ConfigReader extends NodeReader {
  constructor(
    lines: LineCounter,
    private readonly directory: string,
  ) {
    super(lines);
  }

  read(root: YamlNode): RuntimeConfig {
    const config: RuntimeConfig = { limits: {}, models: {}, bind: {}, tools: {}, grants: [], user: {}, environment: {} };
    let bindNode: { value: YamlNode | null; keyAt: number } | undefined;
    for (const { key, value, keyAt } of this.entries(root, 0, RUNTIME_YAML, 'a mapping')) {
      switch (key as (typeof KEYS)[number]) {
        case 'limits':
          config.limits = this.limits(value, keyAt);
          break;
        case 'models':
          for (const entry of this.entries(value, keyAt, '`models`', 'a mapping of model keys to models'))
            config.models[entry.key] = this.model(entry.key, entry.value, entry.keyAt);
          break;
        case 'bind':
          bindNode = { value, keyAt };
          break;
        case 'catalog':
          config.catalog = this.path(value, keyAt, '`catalog`');
          break;
        case 'tools':
          for (const entry of this.entries(value, keyAt, '`tools`', 'a mapping of external tool names to servers or modules')) {
            this.name(entry.key, entry.keyAt, 'tool name');
            config.tools[entry.key] = this.tool(entry.key, entry.value, entry.keyAt);
          }
          break;
        case 'grants':
          config.grants = this.strings(value, keyAt, '`grants`');
          break;
        case 'user': {
          const claims = this.json(value, keyAt, '`user`');
          if (typeof claims !== 'object' || claims === null || Array.isArray(claims))
            throw new ConfigRefusal(this.offset(value, keyAt), `Unexpected ${describe(value)} as \`user\`, expected a mapping of OpenID Connect claims`);
          config.user = claims as Record<string, unknown>;
          break;
        }
        case 'environment':
          for (const entry of this.entries(value, keyAt, '`environment`', 'a mapping of connection names to {tools, writes}')) {
            config.environment[entry.key] = this.connection(entry.key, entry.value, entry.keyAt);
          }
          break;
        case 'sessions':
          config.sessions = this.path(value, keyAt, '`sessions`');
          break;
        case 'database':
          config.database = this.string(value, keyAt, '`database`', /^postgres(ql)?:\/\/\S+$/, 'a postgres:// URL');
          break;
        default:
          throw new ConfigRefusal(keyAt, `Unexpected \`${key}\` in ${RUNTIME_YAML}, expected one of ${KEYS.join(', ')}`);
      }
    }
    // After `models`, wherever it stands: bind names model keys.
    if (bindNode) {
      const keys = Object.keys(config.models);
      for (const { key, value, keyAt } of this.entries(bindNode.value, bindNode.keyAt, '`bind`', 'a mapping of routine names (or `default`) to model keys')) {
        const model = this.string(value, keyAt, `bind.${key}`);
        if (!keys.includes(model))
          throw new ConfigRefusal(
            this.offset(value, keyAt),
            `Unexpected model key ${JSON.stringify(model)} as bind.${key}, expected one of the keys of \`models\` (${keys.join(', ') || 'none configured'})`,
          );
        config.bind[key] = model;
      }
    }
    return config;
  }

  private limits(node: YamlNode | null, at: number): Partial<RuntimeLimits> {
    const names = Object.keys(DEFAULT_LIMITS) as (keyof RuntimeLimits)[];
    const limits: Partial<RuntimeLimits> = {};
    for (const { key, value, keyAt } of this.entries(node, at, '`limits`', `a mapping of limits (${names.join(', ')})`)) {
      if (!names.includes(key as keyof RuntimeLimits)) throw new ConfigRefusal(keyAt, `Unexpected limit \`${key}\`, expected one of ${names.join(', ')}`);
      const limit = key as keyof RuntimeLimits;
      limits[limit] = this.integer(value, keyAt, `limits.${limit}`, 1, UNITS[limit]);
    }
    return limits;
  }

  private model(key: string, node: YamlNode | null, at: number): ConfiguredModel {
    const where = `models.${key}`;
    const fields = this.entries(node, at, where, 'a mapping with `provider`');
    const model: Partial<ConfiguredModel> = {};
    for (const { key: field, value, keyAt } of fields) {
      const what = `${where}.${field}`;
      switch (field) {
        case 'provider':
          model.provider = this.string(value, keyAt, what, NAME, 'a provider name');
          break;
        case 'baseUrl':
          model.baseUrl = this.string(value, keyAt, what, HTTP_URL, 'an http(s) URL');
          break;
        case 'model':
          model.model = this.string(value, keyAt, what);
          break;
        case 'apiKeyEnv':
          model.apiKeyEnv = this.string(value, keyAt, what, ENV_NAME, 'the name of an environment variable (the key itself never belongs in this file)');
          break;
        case 'script':
          model.script = this.path(value, keyAt, what);
          break;
        case 'requestTimeoutMs':
          model.requestTimeoutMs = this.integer(value, keyAt, what, 1, 'milliseconds');
          break;
        case 'retries':
          model.retries = this.integer(value, keyAt, what, 0, 'retries');
          break;
        case 'operations':
          model.operations = this.strings(value, keyAt, what, ['generation', 'classification']);
          break;
        case 'interactions':
          model.interactions = this.strings(value, keyAt, what, ['request', 'stream', 'session']);
          break;
        case 'context_length':
          model.context_length = this.integer(value, keyAt, what, 1, 'tokens');
          break;
        case 'session':
        case 'settings': {
          const data = this.json(value, keyAt, what);
          if (typeof data !== 'object' || data === null || Array.isArray(data))
            throw new ConfigRefusal(this.offset(value, keyAt), `Unexpected ${describe(value)} as ${what}, expected a mapping`);
          model[field] = data as Record<string, unknown>;
          break;
        }
        case 'funding':
          model.funding = this.json(value, keyAt, what);
          break;
        default:
          if ((LIST_FIELDS as readonly string[]).includes(field)) {
            model[field as (typeof LIST_FIELDS)[number]] = this.strings(value, keyAt, what);
            break;
          }
          throw new ConfigRefusal(
            keyAt,
            `Unexpected \`${field}\` in ${where}, expected one of provider, baseUrl, model, apiKeyEnv, script, requestTimeoutMs, retries, operations, interactions, ${LIST_FIELDS.join(', ')}, context_length, session, funding, settings`,
          );
      }
    }
    if (model.provider === undefined)
      throw new ConfigRefusal(at, `Missing \`provider\` in ${where}, expected openai-compatible, scripted or a registered provider`);
    if (model.script !== undefined && model.provider !== 'scripted')
      throw new ConfigRefusal(at, `Unexpected \`script\` in ${where} of provider ${model.provider}, expected it only with provider scripted`);
    return model as ConfiguredModel;
  }

  private tool(name: string, node: YamlNode | null, at: number): ToolConfig {
    const where = `tools.${name}`;
    const fields = new Map(this.entries(node, at, where, 'a mapping with `mcp` (and `tool`) or `module` (and `export`)').map((e) => [e.key, e]));
    for (const [field, entry] of fields) {
      if (!['mcp', 'tool', 'module', 'export'].includes(field))
        throw new ConfigRefusal(entry.keyAt, `Unexpected \`${field}\` in ${where}, expected mcp and tool, or module and export`);
    }
    const mcp = fields.get('mcp');
    const module = fields.get('module');
    if ((mcp === undefined) === (module === undefined))
      throw new ConfigRefusal(
        this.offset(node, at),
        `Unexpected ${where} with ${mcp ? 'both `mcp` and `module`' : 'neither `mcp` nor `module`'}, expected exactly one`,
      );
    if (mcp) {
      const exported = fields.get('export');
      if (exported) throw new ConfigRefusal(exported.keyAt, `Unexpected \`export\` in ${where} served by \`mcp\`, expected \`tool\` (the server's tool name)`);
      const tool = fields.get('tool');
      return { mcp: this.server(`${where}.mcp`, mcp.value, mcp.keyAt), tool: tool ? this.string(tool.value, tool.keyAt, `${where}.tool`) : name };
    }
    const tool = fields.get('tool');
    if (tool) throw new ConfigRefusal(tool.keyAt, `Unexpected \`tool\` in ${where} served by \`module\`, expected \`export\` (the module's export name)`);
    const exported = fields.get('export');
    return {
      module: this.path(module!.value, module!.keyAt, `${where}.module`),
      export: exported ? this.string(exported.value, exported.keyAt, `${where}.export`) : 'default',
    };
  }

  private server(where: string, node: YamlNode | null, at: number): McpServerConfig {
    const fields = new Map(this.entries(node, at, where, 'a mapping with `command` (stdio) or `url` (streamable HTTP)').map((e) => [e.key, e]));
    const url = fields.get('url');
    const command = fields.get('command');
    if ((url === undefined) === (command === undefined))
      throw new ConfigRefusal(
        this.offset(node, at),
        `Unexpected ${where} with ${url ? 'both `command` and `url`' : 'neither `command` nor `url`'}, expected exactly one`,
      );
    if (url) {
      for (const [field, entry] of fields)
        if (field !== 'url') throw new ConfigRefusal(entry.keyAt, `Unexpected \`${field}\` in ${where} with \`url\`, expected only url`);
      return { url: this.string(url.value, url.keyAt, `${where}.url`, HTTP_URL, 'an http(s) URL') };
    }
    const server: McpServerConfig = { command: this.string(command!.value, command!.keyAt, `${where}.command`), args: [], env: {}, cwd: this.directory };
    for (const [field, entry] of fields) {
      if (field === 'command') continue;
      if (field === 'args') server.args = this.argList(entry.value, entry.keyAt, `${where}.args`);
      else if (field === 'cwd') server.cwd = this.path(entry.value, entry.keyAt, `${where}.cwd`);
      else if (field === 'env') {
        for (const variable of this.entries(entry.value, entry.keyAt, `${where}.env`, 'a mapping of server variables to the names of our variables')) {
          if (!ENV_NAME.test(variable.key))
            throw new ConfigRefusal(variable.keyAt, `Unexpected variable name \`${variable.key}\` in ${where}.env, expected letters, digits and _`);
          server.env[variable.key] = this.string(
            variable.value,
            variable.keyAt,
            `${where}.env.${variable.key}`,
            ENV_NAME,
            'the name of one of our environment variables (values never belong in this file)',
          );
        }
      } else throw new ConfigRefusal(entry.keyAt, `Unexpected \`${field}\` in ${where}, expected command, args, env, cwd (or url alone)`);
    }
    return server;
  }

  /** Arguments may repeat and may be empty strings, unlike other lists. */
  private argList(node: YamlNode | null, at: number, what: string): string[] {
    const data = this.json(node, at, what);
    if (!Array.isArray(data) || !data.every((a) => typeof a === 'string'))
      throw new ConfigRefusal(this.offset(node, at), `Unexpected ${describe(node)} as ${what}, expected a list of strings`);
    return data;
  }

  private connection(name: string, node: YamlNode | null, at: number): EnvironmentConnection {
    const where = `environment.${name}`;
    const connection: EnvironmentConnection = { tools: [], writes: [] };
    let writesAt = at;
    let writesNode: YamlNode | null = null;
    for (const { key, value, keyAt } of this.entries(node, at, where, 'a mapping with `tools` and `writes`')) {
      if (key === 'tools') {
        connection.tools = this.strings(value, keyAt, `${where}.tools`);
        for (const tool of connection.tools)
          if (!NAME.test(tool))
            throw new ConfigRefusal(
              this.offset(value, keyAt),
              `Unexpected tool name ${JSON.stringify(tool)} in ${where}.tools, expected 1-128 letters, digits, _, . or -`,
            );
      } else if (key === 'writes') {
        connection.writes = this.strings(value, keyAt, `${where}.writes`);
        writesAt = keyAt;
        writesNode = value;
      } else throw new ConfigRefusal(keyAt, `Unexpected \`${key}\` in ${where}, expected tools, writes`);
    }
    const stray = connection.writes.find((w) => !connection.tools.includes(w));
    if (stray !== undefined)
      throw new ConfigRefusal(
        this.offset(writesNode, writesAt),
        `Unexpected ${JSON.stringify(stray)} in ${where}.writes, expected one of its tools (${connection.tools.join(', ') || 'none'})`,
      );
    return connection;
  }

  private path(node: YamlNode | null, at: number, what: string): string {
    return path.resolve(this.directory, this.string(node, at, what, undefined, 'a path'));
  }

  private name(name: string, at: number, what: string): void {
    if (!NAME.test(name)) throw new ConfigRefusal(at, `Unexpected ${what} \`${name}\`, expected 1-128 letters, digits, _, . or -`);
  }
}
