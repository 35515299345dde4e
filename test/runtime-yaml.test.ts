import { cpSync, mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseRuntimeConfig } from '../packages/runtime/src/config/index.js';
import { berrypack, ROOT } from './support/cli.js';

// runtime.yaml beside a manifest or a bundle file: its `limits` for `run` and `replay`
// (docs/runtime.md, "runtime.yaml"). Every package here is a real one on disk.
const tmp = mkdtempSync(path.join(os.tmpdir(), 'berrypack-runtime-yaml-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

// The routines of fixtures/runtime/flow, in packages of their own (that one also requires external tools).
const STEP = readFileSync(path.join(ROOT, 'fixtures/runtime/flow/routines/loop/step.md'), 'utf8');
const SPIN = readFileSync(path.join(ROOT, 'fixtures/runtime/flow/routines/probe/spin.md'), 'utf8');

/** A package in `tmp/name` exporting loop.step (ten calls for limit 10) or probe.spin. */
function pkg(name: string, routine: 'loop.step' | 'probe.spin', runtimeYaml?: string): string {
  const dir = path.join(tmp, name);
  mkdirSync(path.join(dir, 'routines'), { recursive: true });
  writeFileSync(
    path.join(dir, 'plugin.json'),
    JSON.stringify({
      $schema: 'https://agent-plugins.org/schemas/1.0.0/plugin.schema.json',
      name: `yaml.${name}`,
      version: '1',
      extensions: { 'ai.strawberry.berry': { sources: 'routines', exports: [routine] } },
    }),
  );
  writeFileSync(path.join(dir, 'routines', routine === 'loop.step' ? 'step.md' : 'spin.md'), routine === 'loop.step' ? STEP : SPIN);
  if (runtimeYaml !== undefined) writeFileSync(path.join(dir, 'runtime.yaml'), runtimeYaml);
  return dir;
}

interface RunJson {
  executionId: string | null;
  status: 'completed' | 'failed';
  calls: unknown[];
  output?: unknown;
  error?: { code: string; message: string };
}

function run(args: string[]): { code: number | null; json: RunJson; stderr: string } {
  const r = berrypack(['run', ...args, '--json'], { cwd: tmp });
  return { code: r.code, json: JSON.parse(r.stdout) as RunJson, stderr: r.stderr };
}

const LOOP = ['--export', 'loop.step', '--input', '{"n":0,"limit":10}'];

describe('runtime.yaml beside the manifest (berrypack run)', () => {
  it('runs with the defaults when there is no runtime.yaml', () => {
    pkg('plain', 'loop.step');
    const r = run(['plain', ...LOOP]);
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ status: 'completed', output: { n: 10, state: 'done' } });
  });

  it('lowers `calls`: the run fails limit-calls, exit 1', () => {
    pkg('few-calls', 'loop.step', '# fewer calls than the loop makes\nlimits:\n  calls: 3\n');
    const r = run(['few-calls/plugin.json', ...LOOP]);
    expect(r.code).toBe(1);
    expect(r.json).toMatchObject({ status: 'failed', error: { code: 'limit-calls' } });
    expect(r.json.executionId).toMatch(/^exec-/);
  });

  it('lowers the timeout: a spinning routine fails timeout, not limit-cpu', () => {
    pkg('short', 'probe.spin', 'limits: {timeoutMs: 300}\n');
    const r = run(['short', '--export', 'probe.spin']);
    expect(r.code).toBe(1);
    expect(r.json).toMatchObject({ status: 'failed', error: { code: 'timeout' } });
  });

  it('is overridden by --timeout and --memory, limit by limit', () => {
    // The flag replaces timeoutMs; cpuMs still comes from the file.
    pkg('flagged', 'probe.spin', 'limits:\n  timeoutMs: 300\n  cpuMs: 800\n');
    const spun = run(['flagged', '--export', 'probe.spin', '--timeout', '60000']);
    expect(spun.code).toBe(1);
    expect(spun.json.error?.code).toBe('limit-cpu');

    // One byte does not even hold the input; --memory 64 (MiB) wins.
    pkg('tight', 'loop.step', 'limits:\n  memoryBytes: 1\n');
    expect(run(['tight', ...LOOP]).json.error?.code).toBe('limit-memory');
    const roomy = run(['tight', ...LOOP, '--memory', '64']);
    expect(roomy.code).toBe(0);
    expect(roomy.json.status).toBe('completed');
  });

  it('refuses a malformed runtime.yaml with file:line:column, exit 1, before any execution', () => {
    pkg('typo', 'loop.step', 'limits:\n  calls: 5\n  timout: 100\n');
    const r = run(['typo', ...LOOP]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('');
    const message = 'Unexpected limit `timout`, expected one of timeoutMs, cpuMs, memoryBytes, outputBytes, calls, steps, concurrency';
    expect(r.json).toEqual({
      executionId: null,
      status: 'failed',
      // A diagnostic like any input's: code, rule, file, line and column.
      diagnostics: [{ code: 'BP9010', rule: 'RUN-4', severity: 'error', message, file: 'typo/runtime.yaml', line: 3, column: 3, endLine: 3, endColumn: 4 }],
      calls: [],
      error: { code: 'invalid-runtime-yaml', message: `typo/runtime.yaml:3:3: ${message}` },
    });

    pkg('broken', 'loop.step', 'limits: {calls: 3\n');
    const text = berrypack(['run', 'broken', ...LOOP], { cwd: tmp });
    expect(text.code).toBe(1);
    expect(text.stderr).toBe('');
    expect(text.stdout).toMatch(/^✖ invalid-runtime-yaml: broken\/runtime\.yaml:\d+:\d+: YAML syntax error: /);
    expect(text.stdout).toMatch(/\nfailed · 0 calls · no execution\n$/);
  });

  it('still exits 2 for a bad flag, whatever runtime.yaml says', () => {
    pkg('flag-usage', 'loop.step', 'limits: {calls: 3}\n');
    const r = berrypack(['run', 'flag-usage', ...LOOP, '--memory', '0'], { cwd: tmp });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^berrypack run: Unexpected --memory 0, expected a positive integer\n$/);
  });
});

describe('--config FILE', () => {
  it('replaces runtime.yaml beside the manifest, for run and replay; a missing file is a usage error', () => {
    pkg('configured', 'loop.step', 'limits: {calls: 3}\n');
    writeFileSync(path.join(tmp, 'roomy.yaml'), 'limits: {calls: 500}\n');
    expect(run(['configured', ...LOOP]).json.error?.code).toBe('limit-calls');
    const journal = path.join(tmp, 'configured.jsonl');
    const r = berrypack(['run', 'configured', ...LOOP, '--config', 'roomy.yaml', '--journal', journal, '--json'], { cwd: tmp });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'completed', output: { n: 10, state: 'done' } });
    // Replayed under runtime.yaml's 3 calls it diverges; under the same --config it matches.
    expect(berrypack(['replay', journal, '--json'], { cwd: tmp }).code).toBe(1);
    expect(JSON.parse(berrypack(['replay', journal, '--config', 'roomy.yaml', '--json'], { cwd: tmp }).stdout)).toMatchObject({ matches: true });
    const missing = berrypack(['run', 'configured', ...LOOP, '--config', 'nowhere.yaml'], { cwd: tmp });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe('berrypack run: Unexpected --config nowhere.yaml: ENOENT\n');
  });
});

describe('runtime.yaml beside a bundle file', () => {
  it("is read from the bundle file's directory", () => {
    pkg('to-bundle', 'loop.step');
    const built = berrypack(['build', 'to-bundle', '--out-dir', 'bundled', '--json'], { cwd: tmp });
    expect(built.code).toBe(0);
    const bundle = (JSON.parse(built.stdout) as { file: string }).file;
    expect(run([bundle, ...LOOP]).json.status).toBe('completed');
    writeFileSync(path.join(tmp, 'bundled', 'runtime.yaml'), 'limits:\n  steps: 2\n');
    const r = run([bundle, ...LOOP]);
    expect(r.code).toBe(1);
    expect(r.json.error?.code).toBe('limit-steps');
  });
});

describe('runtime.yaml and berrypack replay', () => {
  it('replays under the same limits as the run, and refuses a malformed file the same way', () => {
    const dir = pkg('replayed', 'loop.step', 'limits: {calls: 3}\n');
    const journal = path.join(tmp, 'replayed.jsonl');
    expect(berrypack(['run', 'replayed', ...LOOP, '--journal', journal], { cwd: tmp }).code).toBe(1);
    const same = berrypack(['replay', journal, '--json'], { cwd: tmp });
    expect(same.code).toBe(0);
    expect(JSON.parse(same.stdout)).toMatchObject({ matches: true, status: 'failed', error: { code: 'limit-calls' } });

    // Under the defaults the replay makes the call the run was refused: a divergence.
    rmSync(path.join(dir, 'runtime.yaml'));
    const defaults = berrypack(['replay', journal, '--json'], { cwd: tmp });
    expect(defaults.code).toBe(1);
    expect(JSON.parse(defaults.stdout)).toMatchObject({ matches: false, error: { code: 'non-determinism' } });

    writeFileSync(path.join(dir, 'runtime.yaml'), 'limits: {calls: -3}\n');
    const bad = berrypack(['replay', journal, '--json'], { cwd: tmp });
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout)).toEqual({
      matches: false,
      error: { code: 'invalid-runtime-yaml', message: 'replayed/runtime.yaml:1:17: Unexpected -3 as limits.calls, expected a positive integer (calls)' },
    });
  });
});

describe('docs/runtime.md', () => {
  it('runs the runtime.yaml example as written and prints what the doc says', () => {
    const doc = readFileSync(path.join(ROOT, 'docs/runtime.md'), 'utf8');
    const fence = /```[a-z]*\n([\s\S]*?)\n```/g;
    fence.lastIndex = doc.indexOf('<!-- example: runtime-yaml -->');
    expect(fence.lastIndex).toBeGreaterThan(0);
    const [yaml, command, printed] = [fence.exec(doc)![1]!, fence.exec(doc)![1]!, fence.exec(doc)![1]!];
    expect(limitsOf(yaml)).toEqual({ ok: true, limits: { timeoutMs: 10_000, steps: 1 } });
    expect(command).toContain('npx berrypack run /tmp/notebook --agent notebook');
    const notebook = path.join(tmp, 'notebook');
    cpSync(path.join(ROOT, 'fixtures/notebook'), notebook, { recursive: true });
    const args = [
      'run',
      notebook,
      '--agent',
      'notebook',
      '--input',
      '{"message":"Note: buy oat milk."}',
      '--script',
      path.join(ROOT, 'fixtures/runtime/scripts/notebook.json'),
    ];
    expect(berrypack(args).stdout).toMatch(/^"Saved your note; /);
    writeFileSync(path.join(notebook, 'runtime.yaml'), `${yaml}\n`);
    const r = berrypack(args);
    expect(r.code).toBe(1);
    expect(r.stdout.replace(/exec-[0-9a-f-]{36}/, 'exec-…')).toBe(`${printed}\n`);
  });
});

/** The limits a text gives, or the refusal as `file:line:column: message`. */
function limitsOf(text: string): { ok: true; limits: unknown } | { ok: false; message: string } {
  const r = parseRuntimeConfig(text, { directory: tmp });
  if (r.ok) return { ok: true, limits: r.config.limits };
  const d = r.diagnostics[0]!;
  return { ok: false, message: `${d.file}:${d.line}:${d.column}: ${d.message}` };
}

describe('parseRuntimeConfig: limits', () => {
  const parseRuntimeYaml = (text: string, _file: string) => limitsOf(text);
  const refused = (text: string): string => {
    const r = limitsOf(text);
    if (r.ok) throw new Error(`accepted ${JSON.stringify(text)}`);
    return r.message;
  };

  it('reads every limit, in the units of createRuntime({limits})', () => {
    const text = 'limits:\n  timeoutMs: 10000\n  cpuMs: 2000\n  memoryBytes: 33554432\n  outputBytes: 1048576\n  calls: 50\n  steps: 20\n  concurrency: 2\n';
    expect(parseRuntimeYaml(text, 'runtime.yaml')).toEqual({
      ok: true,
      limits: { timeoutMs: 10_000, cpuMs: 2_000, memoryBytes: 33_554_432, outputBytes: 1_048_576, calls: 50, steps: 20, concurrency: 2 },
    });
    expect(parseRuntimeYaml('limits: {}\n', 'runtime.yaml')).toEqual({ ok: true, limits: {} });
    expect(parseRuntimeYaml('# only limits\nlimits: {calls: 9} # nine\n', 'runtime.yaml')).toEqual({ ok: true, limits: { calls: 9 } });
    expect(parseRuntimeYaml('\ufefflimits:\r\n  steps: 4\r\n', 'runtime.yaml')).toEqual({ ok: true, limits: { steps: 4 } });
  });

  it('refuses, with line and column, anything else', () => {
    const keys = 'limits, models, bind, catalog, tools, grants, user, environment, sessions, database';
    expect(refused('')).toBe(`runtime.yaml:1:1: Unexpected empty value in runtime.yaml, expected a mapping of ${keys}`);
    expect(refused('- limits\n')).toBe(`runtime.yaml:1:1: Unexpected list in runtime.yaml, expected a mapping of ${keys}`);
    expect(refused('limits: {calls: 3}\nmodel: {}\n')).toBe(`runtime.yaml:2:1: Unexpected \`model\` in runtime.yaml, expected one of ${keys}`);
    expect(refused('limits:\n')).toBe(
      'runtime.yaml:1:1: Unexpected empty value as `limits`, expected a mapping of limits (timeoutMs, cpuMs, memoryBytes, outputBytes, calls, steps, concurrency)',
    );
    expect(refused('limits: [calls]\n')).toMatch(/^runtime\.yaml:1:9: Unexpected list as `limits`/);
    expect(refused('\ufefflimits: {callz: 1}\r\n')).toMatch(/^runtime\.yaml:1:10: Unexpected limit `callz`/);
    expect(refused('limits:\n  timeout: 30s\n')).toMatch(/^runtime\.yaml:2:3: Unexpected limit `timeout`, expected one of timeoutMs, /);
    expect(refused('limits:\n  timeoutMs: 30s\n')).toBe('runtime.yaml:2:14: Unexpected "30s" as limits.timeoutMs, expected a positive integer (milliseconds)');
    expect(refused('limits:\n  timeoutMs: "3000"\n')).toMatch(/^runtime\.yaml:2:14: Unexpected "3000" as limits\.timeoutMs/);
    expect(refused('limits:\n  calls: 0\n')).toBe('runtime.yaml:2:10: Unexpected 0 as limits.calls, expected a positive integer (calls)');
    expect(refused('limits:\n  memoryBytes: 1.5\n')).toMatch(
      /^runtime\.yaml:2:16: Unexpected 1\.5 as limits\.memoryBytes, expected a positive integer \(bytes\)$/,
    );
    expect(refused('limits:\n  steps: .inf\n')).toMatch(/^runtime\.yaml:2:10: Unexpected Infinity as limits\.steps/);
    expect(refused('limits:\n  steps:\n')).toMatch(/^runtime\.yaml:2:3: Unexpected empty value as limits\.steps/);
    expect(refused('limits:\n  calls: 3\n  calls: 4\n')).toMatch(/^runtime\.yaml:3:3: YAML syntax error: Map keys must be unique/);
    expect(refused('a: &x 3\nlimits:\n  calls: *x\n')).toMatch(/^runtime\.yaml:1:1: Unexpected `a` in runtime\.yaml/);
    expect(refused('limits:\n  steps: &x 3\n  calls: *x\n')).toBe('runtime.yaml:3:10: Unexpected alias as limits.calls, expected a positive integer (calls)');
    expect(refused('limits:\n  calls: !int 3\n')).toMatch(/^runtime\.yaml:2:10: YAML syntax error: /);
    expect(refused('limits: {calls: 3}\n---\nlimits: {calls: 4}\n')).toMatch(/^runtime\.yaml:\d+:\d+: YAML syntax error: /);
    expect(refused(`limits: ${'['.repeat(2_000)}`)).toBe('runtime.yaml:1:1: Unexpected nesting deeper than 256 levels, expected runtime settings');
    expect(refused(`user: ${'['.repeat(20_000)}${']'.repeat(20_000)}`)).toBe(
      'runtime.yaml:1:1: Unexpected nesting deeper than 256 levels, expected runtime settings',
    );
    expect(refused(`user: ${'[0, '.repeat(300)}${']'.repeat(300)}`)).toBe(
      'runtime.yaml:1:1: Unexpected nesting deeper than 256 levels, expected runtime settings',
    );
    // Many collections side by side are not deep.
    expect(limitsOf(`user: {a: [${'[1], '.repeat(500)}]}\n`).ok).toBe(true);
  });
});

describe('$.user and $.runtime served by the CLI host', () => {
  function readers(name: string, yaml: string): string {
    const dir = path.join(tmp, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      path.join(dir, 'plugin.json'),
      JSON.stringify({
        $schema: 'https://agent-plugins.org/schemas/1.0.0/plugin.schema.json',
        name: `yaml.${name}`,
        version: '1',
        extensions: { 'ai.strawberry.berry': { agents: { greeter: { title: 'Greeter', description: 'Greets.', entry: 'greet' } }, exports: ['whole'] } },
      }),
    );
    writeFileSync(
      path.join(dir, 'greet.md'),
      '---\nname: greet\ndescription: Greets the user.\nmodel:\n  select:\n    operation: generation\n---\nGreet {{ $.user.name }}. Agents: {{ $.runtime.agents.total }} ({{ $.runtime.agents.items[0].id }}).\n\n{{ $.runtime.summary }}\n',
    );
    writeFileSync(
      path.join(dir, 'whole.md'),
      '---\nname: whole\ndescription: Shows the whole profile.\nmodel:\n  select:\n    operation: generation\n---\nProfile: {{ $.user }}\n',
    );
    writeFileSync(path.join(dir, 'runtime.yaml'), yaml);
    return dir;
  }
  const instructions = (r: RunJson) =>
    (r.calls as { kind: string; input?: { instructions?: string } }[]).find((c) => c.kind === 'model')?.input?.instructions ?? '';

  it('renders runtime.yaml `user` claims and the runtime overview into the instructions, through granted readers', () => {
    readers('greets', 'user: {name: Ana, email: ana@example.test}\ngrants: [runtime.user.profile.read, runtime.catalog.read]\n');
    const r = run(['greets', '--agent', 'greeter']);
    expect(r.json.status).toBe('completed');
    expect(instructions(r.json)).toMatch(
      /^Greet Ana\. Agents: 1 \(greeter\)\.\n\nPlugin yaml\.greets: 1 agent \(greeter\), 0 resources, 0 configured tools, 0 sessions; host \w+ \w+, Node v\d+/,
    );
    const reads = (r.json.calls as { kind: string; name: string }[])
      .filter((c) => c.kind === 'read')
      .map((c) => c.name)
      .sort();
    expect(reads).toEqual(['runtime.catalog.read', 'runtime.user.profile.read']);
  });

  it('lists the sessions of the file session store in $.runtime.sessions, and the executions of its own session', () => {
    const dir = readers('sessions', 'grants: [runtime.session.read, runtime.catalog.read, runtime.user.profile.read]\n');
    writeFileSync(
      path.join(dir, 'whole.md'),
      '---\nname: whole\ndescription: Counts sessions.\nmodel:\n  select:\n    operation: generation\n---\nSessions: {{ $.runtime.sessions.total }} {{ $.runtime.sessions.complete }}; executions: {{ $.runtime.executions.total }}\n',
    );
    const first = run(['sessions', '--export', 'whole']);
    expect(instructions(first.json)).toBe('Sessions: 1 true; executions: 1\n');
    const second = run(['sessions', '--export', 'whole']);
    expect(instructions(second.json)).toBe('Sessions: 2 true; executions: 1\n');
    // Without the session readers granted the store is only listed: nothing new is written.
    writeFileSync(path.join(dir, 'runtime.yaml'), 'grants: [runtime.catalog.read, runtime.user.profile.read]\n');
    expect(instructions(run(['sessions', '--export', 'whole']).json)).toBe('Sessions: 2 true; executions: 1\n');
    expect(readdirSync(path.join(dir, '.berrypack/sessions'))).toHaveLength(2);
  });

  it('serves {} without `user`: the whole profile renders, a selected claim refuses before inference', () => {
    readers('anonymous', 'grants: [runtime.user.profile.read, runtime.catalog.read]\n');
    const whole = run(['anonymous', '--export', 'whole']);
    expect(whole.json.status).toBe('completed');
    expect(instructions(whole.json)).toBe('Profile: {}\n');
    const named = run(['anonymous', '--agent', 'greeter']);
    expect(named.json).toMatchObject({ status: 'failed', error: { code: 'missing-value' } });
    expect((named.json.calls as { kind: string }[]).some((c) => c.kind === 'model')).toBe(false);
  });
});
