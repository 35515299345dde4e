import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRuntimeConfig, type RuntimeConfig } from '../src/config/index.js';

// @berrypack/runtime/config: every key of CONTRACTS.md's runtime.yaml, strictly.
const DIR = path.resolve('/projects/notes');

function read(text: string): RuntimeConfig {
  const r = parseRuntimeConfig(text, { directory: DIR });
  if (!r.ok) throw new Error(`refused: ${JSON.stringify(r.diagnostics)}`);
  return r.config;
}

function refused(text: string): string {
  const r = parseRuntimeConfig(text, { directory: DIR, file: 'app/runtime.yaml' });
  if (r.ok) throw new Error(`accepted ${JSON.stringify(text)}`);
  const d = r.diagnostics[0]!;
  expect(d).toMatchObject({ code: 'BP9010', rule: 'RUN-4', severity: 'error', file: 'app/runtime.yaml', endLine: d.line, endColumn: d.column + 1 });
  return `${d.line}:${d.column}: ${d.message}`;
}

const FULL = `limits: {timeoutMs: 30000}
models:
  local:
    provider: openai-compatible
    baseUrl: http://127.0.0.1:8080/v1
    model: some-model-id
    apiKeyEnv: OPENAI_API_KEY
    operations: [generation, classification]
    interactions: [request, stream]
    context_length: 32768
    supported_parameters: [tools, structured_outputs]
    settings:
      type: object
      properties:
        max_output_tokens: {type: integer, minimum: 1}
      additionalProperties: false
  offline:
    provider: scripted
    script: ./script.json
bind:
  notes.compose: local
  default: offline
catalog: ./catalog.json
tools:
  files.read:
    mcp: {command: node, args: [server.js], env: {ROOT: FILES_ROOT}, cwd: ./servers}
    tool: read_file
  web.fetch:
    mcp: {url: "http://127.0.0.1:3000/mcp"}
  clock.now: {module: ./host-tools.mjs, export: now}
  clock.zone: {module: ./host-tools.mjs}
grants: [files.read, clock.now]
user: {name: Ana, email: ana@example.test}
environment:
  mail: {tools: [mail.send, mail.list], writes: [mail.send]}
sessions: .berrypack/sessions
database: postgres://127.0.0.1:5432/berrypack
`;

describe('RUN-4: parseRuntimeConfig (runtime.yaml)', () => {
  it('reads every key, resolving paths against the directory', () => {
    expect(read(FULL)).toEqual({
      limits: { timeoutMs: 30_000 },
      models: {
        local: {
          provider: 'openai-compatible',
          baseUrl: 'http://127.0.0.1:8080/v1',
          model: 'some-model-id',
          apiKeyEnv: 'OPENAI_API_KEY',
          operations: ['generation', 'classification'],
          interactions: ['request', 'stream'],
          context_length: 32_768,
          supported_parameters: ['tools', 'structured_outputs'],
          settings: { type: 'object', properties: { max_output_tokens: { type: 'integer', minimum: 1 } }, additionalProperties: false },
        },
        offline: { provider: 'scripted', script: path.join(DIR, 'script.json') },
      },
      bind: { 'notes.compose': 'local', default: 'offline' },
      catalog: path.join(DIR, 'catalog.json'),
      tools: {
        'files.read': { mcp: { command: 'node', args: ['server.js'], env: { ROOT: 'FILES_ROOT' }, cwd: path.join(DIR, 'servers') }, tool: 'read_file' },
        'web.fetch': { mcp: { url: 'http://127.0.0.1:3000/mcp' }, tool: 'web.fetch' },
        'clock.now': { module: path.join(DIR, 'host-tools.mjs'), export: 'now' },
        'clock.zone': { module: path.join(DIR, 'host-tools.mjs'), export: 'default' },
      },
      grants: ['files.read', 'clock.now'],
      user: { name: 'Ana', email: 'ana@example.test' },
      environment: { mail: { tools: ['mail.send', 'mail.list'], writes: ['mail.send'] } },
      sessions: path.join(DIR, '.berrypack/sessions'),
      database: 'postgres://127.0.0.1:5432/berrypack',
    });
  });

  it('gives every key a default: nothing configured', () => {
    expect(read('limits: {}\n')).toEqual({ limits: {}, models: {}, bind: {}, tools: {}, grants: [], user: {}, environment: {} });
    // A stdio server without cwd runs in runtime.yaml's directory.
    expect(read('tools:\n  t: {mcp: {command: node}}\n').tools['t']).toEqual({ mcp: { command: 'node', args: [], env: {}, cwd: DIR }, tool: 't' });
  });

  it('refuses a bad value of every key with its line and column', () => {
    expect(refused('models:\n  local:\n    baseUrl: http://x\n')).toBe(
      '2:3: Missing `provider` in models.local, expected openai-compatible, scripted or a registered provider',
    );
    expect(refused('models:\n  local:\n    provider: openai-compatible\n    apiKey: sk-123\n')).toMatch(
      /^4:5: Unexpected `apiKey` in models\.local, expected one of provider, baseUrl/,
    );
    expect(refused('models:\n  local: {provider: openai-compatible, apiKeyEnv: "sk-1 2"}\n')).toMatch(
      /^2:51: Unexpected "sk-1 2" as models\.local\.apiKeyEnv, expected the name of an environment variable/,
    );
    expect(refused('models:\n  local: {provider: openai-compatible, baseUrl: ftp://x}\n')).toBe(
      '2:49: Unexpected "ftp://x" as models.local.baseUrl, expected an http(s) URL',
    );
    expect(refused('models:\n  m: {provider: x, operations: [generation, chat]}\n')).toBe(
      '2:45: Unexpected "chat" in models.m.operations, expected one of generation, classification',
    );
    expect(refused('models:\n  m: {provider: x, context_length: 0}\n')).toBe(
      '2:36: Unexpected 0 as models.m.context_length, expected a positive integer (tokens)',
    );
    expect(refused('models:\n  m: {provider: x, settings: [a]}\n')).toBe('2:30: Unexpected list as models.m.settings, expected a mapping');
    expect(refused('models:\n  m: {provider: openai-compatible, script: s.json}\n')).toMatch(
      /^2:3: Unexpected `script` in models\.m of provider openai-compatible/,
    );
    expect(refused('models:\n  m: {provider: x}\nbind:\n  a.b: n\n')).toBe(
      '4:8: Unexpected model key "n" as bind.a.b, expected one of the keys of `models` (m)',
    );
    expect(refused('bind: {default: m}\n')).toBe('1:17: Unexpected model key "m" as bind.default, expected one of the keys of `models` (none configured)');
    expect(refused('catalog: 3\n')).toBe('1:10: Unexpected 3 as `catalog`, expected a path');
    expect(refused('tools:\n  "bad name": {module: x.mjs}\n')).toMatch(/^2:3: Unexpected tool name `bad name`/);
    expect(refused('tools:\n  t: {module: x.mjs, mcp: {url: "http://a"}}\n')).toMatch(/^2:6: Unexpected tools\.t with both `mcp` and `module`/);
    expect(refused('tools:\n  t: {}\n')).toMatch(/^2:6: Unexpected tools\.t with neither `mcp` nor `module`/);
    expect(refused('tools:\n  t: {module: x.mjs, tool: y}\n')).toMatch(/^2:22: Unexpected `tool` in tools\.t served by `module`/);
    expect(refused('tools:\n  t: {mcp: {command: node, url: "http://a"}}\n')).toMatch(/^2:12: Unexpected tools\.t\.mcp with both `command` and `url`/);
    expect(refused('tools:\n  t: {mcp: {command: node, env: {ROOT: /tmp}}}\n')).toMatch(
      /^2:40: Unexpected "\/tmp" as tools\.t\.mcp\.env\.ROOT, expected the name of one of our environment variables/,
    );
    expect(refused('tools:\n  t: {mcp: {url: "http://a", cwd: .}}\n')).toMatch(/^2:30: Unexpected `cwd` in tools\.t\.mcp with `url`/);
    expect(refused('tools:\n  t: {mcp: {command: node, args: [1]}}\n')).toMatch(/^2:34: Unexpected list as tools\.t\.mcp\.args, expected a list of strings/);
    expect(refused('grants: files.read\n')).toBe('1:9: Unexpected "files.read" as `grants`, expected a list of strings');
    expect(refused('grants: [a, a]\n')).toBe('1:13: Unexpected duplicate "a" in `grants`, expected distinct values');
    expect(refused('user: Ana\n')).toBe('1:7: Unexpected "Ana" as `user`, expected a mapping of OpenID Connect claims');
    expect(refused('environment:\n  mail: {tools: [mail.list], writes: [mail.send]}\n')).toBe(
      '2:38: Unexpected "mail.send" in environment.mail.writes, expected one of its tools (mail.list)',
    );
    expect(refused('environment:\n  mail: {tool: [a]}\n')).toMatch(/^2:10: Unexpected `tool` in environment\.mail, expected tools, writes/);
    expect(refused('sessions: {}\n')).toBe('1:11: Unexpected mapping as `sessions`, expected a path');
    expect(refused('database: mysql://x\n')).toBe('1:11: Unexpected "mysql://x" as `database`, expected a postgres:// URL');
    expect(refused('user: {name: &n Ana, nick: *n}\n')).toBe('1:28: Unexpected alias in `user`.nick, expected plain data');
  });
});
