import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { berrypackAsync, ROOT, type CliResult } from './support/cli.js';
import { tempDir } from './support/temp.js';
import { startTriageModel } from './support/triage-model.js';

const tmp = tempDir('berrypack-method-mcp-');

const SERVER = path.join(ROOT, 'fixtures/methods/tracker-server.mjs');
const KEY = 'sk-triage-secret-4711';

function run(args: string[], env: Record<string, string>): Promise<CliResult> {
  return berrypackAsync(args, { cwd: tmp, env });
}

/**
 * fixtures/methods/ticket-triage.runtime.yaml with this test's model address and the tracker
 * server by absolute path (it imports the MCP SDK from the repository), beside a copy of the
 * method document.
 */
function project(name: string, edit: (yaml: string) => string = (y) => y): string {
  const dir = path.join(tmp, name);
  mkdirSync(path.join(dir, 'data/triage'), { recursive: true });
  copyFileSync(path.join(ROOT, 'fixtures/methods/ticket-triage.method.yaml'), path.join(dir, 'ticket-triage.method.yaml'));
  writeFileSync(path.join(dir, 'data/triage/triaged.json'), '["T-4"]');
  const yaml = readFileSync(path.join(ROOT, 'fixtures/methods/ticket-triage.runtime.yaml'), 'utf8').replaceAll(
    'command: node, args: [tracker-server.mjs]',
    `command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(SERVER)}]`,
  );
  writeFileSync(path.join(dir, 'runtime.yaml'), edit(yaml.replace('http://127.0.0.1:8080/v1', baseUrl)));
  return dir;
}

let baseUrl: string;
let model: Awaited<ReturnType<typeof startTriageModel>>;
beforeAll(async () => {
  model = await startTriageModel();
  baseUrl = model.baseUrl;
});
afterAll(() => model.close());

describe('berrypack method run with runtime.yaml: a model from `models`, connections served by an MCP server', () => {
  it('MTH-18: triages through the real tracker MCP server (stdio) with the bound openai-compatible model, the key never in output or the run', async () => {
    const dir = project('triage');
    const tickets = path.join(dir, 'tickets.json');
    const result = await run(
      ['method', 'run', path.join(dir, 'ticket-triage.method.yaml'), '--data-dir', path.join(dir, 'data'), '--inputs', '{"since": "2025-03-01"}', '--json'],
      { TRACKER_FILE: tickets, TRIAGE_KEY: KEY },
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as { runId: string; status: string; steps: Record<string, string>; result: Record<string, unknown> };
    expect(report).toMatchObject({ status: 'completed', steps: { find: 'passed', reply: 'passed', remember: 'passed' } });
    expect(report.result).toEqual({
      Triaged: [
        { ticket: 'T-1', label: 'bug', comment_url: 'https://tracker.example/T-1#comment-1' },
        { ticket: 'T-2', label: 'billing', comment_url: 'https://tracker.example/T-2#comment-1' },
      ],
      'Known tickets': ['T-4', 'T-1', 'T-2'],
    });
    // The MCP server process saw the calls and changed its tickets file.
    const db = JSON.parse(readFileSync(tickets, 'utf8')) as { tickets: { id: string; labels: string[]; comments: string[] }[]; calls: { tool: string }[] };
    expect(db.calls.map((c) => c.tool)).toEqual(['search', 'set_label', 'comment', 'set_label', 'comment']);
    expect(db.tickets.map((t) => `${t.id} ${t.labels.join(',')} ${t.comments.length}`)).toEqual(['T-3  0', 'T-1 bug 1', 'T-2 billing 1', 'T-4  0']);
    // The key went to the model server, and nowhere else.
    expect(model.requests.every((r) => r.authorization === `Bearer ${KEY}`)).toBe(true);
    const runDir = path.join(dir, 'data/runs', report.runId);
    for (const file of readdirSync(runDir, { recursive: true, withFileTypes: true }).filter((f) => f.isFile())) {
      expect(readFileSync(path.join(file.parentPath, file.name), 'utf8')).not.toContain(KEY);
    }
    expect(result.stdout).not.toContain(KEY);
    // The run records which runtime.yaml it read, for resume and confirm.
    const record = JSON.parse(readFileSync(path.join(runDir, 'run.json'), 'utf8')) as { meta: { cli: { config: string } } };
    expect(record.meta.cli.config).toBe(path.join(dir, 'runtime.yaml'));
  });

  it('MTH-14: a tool the MCP server does not offer fails the access check before any step, naming the tool', async () => {
    const dir = project('missing', (yaml) => yaml.replace('tool: comment', 'tool: post_comment'));
    const tickets = path.join(dir, 'tickets.json');
    const result = await run(
      ['method', 'run', path.join(dir, 'ticket-triage.method.yaml'), '--data-dir', path.join(dir, 'data'), '--inputs', '{"since": "2025-03-01"}', '--json'],
      { TRACKER_FILE: tickets, TRIAGE_KEY: KEY },
    );
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as { status: string; error: { code: string; message: string } };
    expect(report.status).toBe('failed');
    expect(report.error.message).toContain('tool `tracker.comment` of connection `tracker` is not offered by its server');
    expect(report.error.message).toContain('post_comment');
    expect(report.error.message).not.toContain('tracker.search');
    // Nothing was called: the check came first.
    expect((JSON.parse(readFileSync(tickets, 'utf8')) as { calls: unknown[] }).calls).toEqual([]);
  });
  it('MTH-14: a tool whose MCP server will not start fails the access check, naming that tool only', async () => {
    const requestsBefore = model.requests.length;
    const dir = project('broken', (yaml) =>
      yaml.replace(/(tracker\.search:\n {4}mcp: \{command: [^,]+, args: \[)[^\]]+\]/, `$1${JSON.stringify(path.join(tmp, 'no-such-server.mjs'))}]`),
    );
    const result = await run(
      ['method', 'run', path.join(dir, 'ticket-triage.method.yaml'), '--data-dir', path.join(dir, 'data'), '--inputs', '{"since": "2025-03-01"}', '--json'],
      {
        TRACKER_FILE: path.join(dir, 'tickets.json'),
        TRIAGE_KEY: KEY,
      },
    );
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as { status: string; error: { message: string } };
    expect(report.status).toBe('failed');
    expect(report.error.message).toContain('tool `tracker.search` of connection `tracker` is not offered by its server: Unexpected MCP server');
    expect(report.error.message).not.toContain('tracker.label');
    expect(model.requests.length).toBe(requestsBefore);
  });

  it('MTH-18: resume reads the runtime.yaml the run recorded: the step after an ask runs with its model and MCP tools', async () => {
    const dir = project('resume');
    const find = readFileSync(path.join(ROOT, 'fixtures/methods/ticket-triage.method.yaml'), 'utf8');
    const doText = / {4}do: >-\n((?: {6}.*\n)+)/.exec(find.slice(find.indexOf('  find:')))![1]!;
    writeFileSync(
      path.join(dir, 'ask-then-find.method.yaml'),
      `format: method/2
name: ask_then_find
goal: Ask from which date to look, then find the support tickets opened since then.
inputs:
  done:
    type: list
    description: Ids of tickets to leave out.
    items: text
    default: []
environment:
  tracker:
    type: service
    description: The Acme support tracker.
steps:
  date:
    name: Ask the date
    ask: From which date (YYYY-MM-DD) should new tickets be found?
    out:
      since:
        type: text
        description: The date.
  find:
    name: Find new tickets
    in:
      tracker: environment.tracker
      since: since
      done: inputs.done
    do: >-
${doText}    out:
      tickets:
        type: list
        description: The new tickets, oldest first.
        fields:
          id: text
          title: text
          body: text
result:
  Found: tickets
`,
    );
    const tickets = path.join(dir, 'tickets.json');
    const env = { TRACKER_FILE: tickets, TRIAGE_KEY: KEY };
    const first = await run(['method', 'run', path.join(dir, 'ask-then-find.method.yaml'), '--data-dir', path.join(dir, 'data'), '--json'], env);
    expect(first.stderr).toBe('');
    const waiting = JSON.parse(first.stdout) as { runId: string; status: string };
    expect(waiting.status).toBe('needs_attention');
    // Without --config or the document at hand: the recorded runtime.yaml binds the model and the tools.
    const resumed = await run(
      ['method', 'resume', waiting.runId, '--data-dir', path.join(dir, 'data'), '--step', 'date', '--response', '2025-03-02', '--json'],
      env,
    );
    expect(resumed.stderr).toBe('');
    expect(JSON.parse(resumed.stdout)).toMatchObject({ status: 'completed', result: { Found: [{ id: 'T-2' }, { id: 'T-4' }] } });
    expect((JSON.parse(readFileSync(tickets, 'utf8')) as { calls: { tool: string; arguments: unknown }[] }).calls).toEqual([
      { tool: 'search', arguments: { since: '2025-03-02' } },
    ]);
  });
});
