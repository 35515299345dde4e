import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkMethod } from '../packages/compiler/src/index.js';
import { runMethod } from '../packages/runtime/src/index.js';
import { berrypack } from './support/cli.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'berrypack-method-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const FIXTURE = 'fixtures/methods/weekly-report.method.yaml';
const SCRIPT = 'fixtures/methods/weekly-report.script.json';
const PEOPLE = [
  { name: 'Ada Lovelace', handle: 'ada' },
  { name: 'Grace Hopper', handle: 'grace' },
];
const ENVIRONMENT = '{"tracker": {}, "wiki": {}}';
const URL = 'https://wiki.example.com/Weekly_Reports#Week_2025-W14';
const SUMMARY = 'The team closed two issues and kept one in progress. Login is faster and the build is quiet. Session caching continues next week.';

interface MethodJson {
  runId: string | null;
  status: string;
  steps: Record<string, string>;
  pending: { step: string; item?: number; kind: string; request: string }[];
  diagnostics: { code: string; severity: string; file: string }[];
  result?: unknown;
  error?: { code: string; message: string };
}

function dataDir(name: string): string {
  const dir = path.join(tmp, name);
  rmSync(dir, { recursive: true, force: true });
  return dir;
}
/** A data folder holding the method's state: the approved people, read from people.json. */
function withPeople(name: string): string {
  const dir = dataDir(name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'people.json'), JSON.stringify(PEOPLE));
  return dir;
}
function method(args: string[]): { code: number | null; json: MethodJson; stderr: string } {
  const r = berrypack(['method', ...args, '--json']);
  expect(r.stdout.trimEnd().split('\n'), r.stderr).toHaveLength(1);
  return { code: r.code, json: JSON.parse(r.stdout) as MethodJson, stderr: r.stderr };
}

describe('berrypack method (the real bin, MTH-18)', () => {
  it('MTH-18: runs the weekly report end to end: needs attention at the ask, resume, completed, status', () => {
    expect(berrypack(['check', FIXTURE]).code).toBe(0);
    const dir = withPeople('weekly');

    const started = method(['run', FIXTURE, '--data-dir', dir, '--inputs', '{"week": "2025-W14"}', '--environment', ENVIRONMENT, '--script', SCRIPT]);
    expect(started.code).toBe(0);
    const runId = started.json.runId!;
    expect(runId).toMatch(/^run-[0-9a-f-]{36}$/);
    expect(started.json).toEqual({
      runId,
      status: 'needs_attention',
      steps: { collect: 'passed', draft: 'passed', approve: 'waiting', publish: 'pending', remember: 'pending' },
      pending: [
        {
          step: 'approve',
          kind: 'ask',
          request: `Please review the weekly report for week 2025-W14 (attached). Summary: ${SUMMARY}\nApprove it for publication, or say what to change.\n`,
        },
      ],
      diagnostics: [],
    });
    expect(method(['status', runId, '--data-dir', dir])).toEqual({ code: 0, json: started.json, stderr: '' });

    // resume reuses the run's --script and --environment: they were recorded at the start.
    const resumed = method(['resume', runId, '--data-dir', dir, '--step', 'approve', '--response-json', '{"approved": true, "comment": "Ship it"}']);
    const report = `# Weekly report 2025-W14\n\n${SUMMARY}\n\n## Ada Lovelace\n\n- ENG-12 Fix the login timeout: closed\n- ENG-15 Cache session tokens: updated\n\n## Grace Hopper\n\n- ENG-9 Silence compiler warnings: closed\n\nPrevious report: none (none).\n`;
    const file = {
      path: `runs/${runId}/files/draft/report_file.md`,
      sha256: createHash('sha256').update(report).digest('hex'),
      size: Buffer.byteLength(report),
      format: 'markdown',
    };
    expect(resumed).toEqual({
      code: 0,
      stderr: '',
      json: {
        runId,
        status: 'completed',
        // No check: unchecked. A plain-English check the script does not judge: ambiguous.
        steps: { collect: 'passed', draft: 'passed', approve: 'unchecked', publish: 'passed', remember: 'ambiguous' },
        pending: [],
        diagnostics: [],
        result: { Report: file, Approval: { approved: true, comment: 'Ship it' }, 'Wiki section': URL },
      },
    });
    expect(readFileSync(path.join(dir, file.path), 'utf8')).toBe(report);
    expect(JSON.parse(readFileSync(path.join(dir, 'reports/last.json'), 'utf8'))).toEqual({ week: '2025-W14', url: URL });
    expect(method(['status', runId, '--data-dir', dir])).toEqual({ code: 0, json: resumed.json, stderr: '' });

    const record = JSON.parse(readFileSync(path.join(dir, 'runs', runId, 'run.json'), 'utf8')) as {
      steps: Record<string, { check?: { status: string; reason?: string }; changes?: unknown }>;
    };
    expect(record.steps['publish']!.changes).toEqual({
      'environment.wiki': {
        target: 'environment.wiki',
        after: { section: 'Week 2025-W14', observed: 'The section is at the top of the page; its text matches the report file.' },
      },
    });
    expect(record.steps['remember']!.check).toMatchObject({ status: 'ambiguous', reason: 'no judge: the script has no `remember.check` entry' });
    expect(record.steps['draft']!.check).toMatchObject({ status: 'passed' });

    const again = berrypack(['method', 'resume', runId, '--data-dir', dir, '--step', 'approve', '--response', 'yes']);
    expect(again).toEqual({ code: 2, stdout: '', stderr: `berrypack method: Unexpected operation on run \`${runId}\`, which has completed\n` });
  });

  it('MTH-12: a rejection skips publishing and remembering; the result leaves the wiki section out', () => {
    const dir = withPeople('rejected');
    const runId = method(['run', FIXTURE, '--data-dir', dir, '--inputs', '{"week": "2025-W14"}', '--environment', ENVIRONMENT, '--script', SCRIPT]).json.runId!;
    const wrong = berrypack(['method', 'resume', runId, '--data-dir', dir, '--step', 'approve', '--response', 'no']);
    expect(wrong).toEqual({
      code: 2,
      stdout: '',
      stderr: 'berrypack method: Unexpected response: the response to `approve` (`approval`) must be a record, not text (give JSON with --response-json)\n',
    });
    const done = method(['resume', runId, '--data-dir', dir, '--step', 'approve', '--response-json', '{"approved": false, "comment": "Add the outage"}']);
    expect(done.json).toMatchObject({ status: 'completed', steps: { publish: 'skipped', remember: 'skipped' } });
    expect(Object.keys(done.json.result as object)).toEqual(['Report', 'Approval']);
    expect(existsSync(path.join(dir, 'reports/last.json'))).toBe(false);
  });

  it('prints the steps, the waiting request and the next command as text', () => {
    const dir = withPeople('text');
    const r = berrypack(['method', 'run', FIXTURE, '--data-dir', dir, '--inputs', '{"week": "2025-W14"}', '--environment', ENVIRONMENT, '--script', SCRIPT]);
    expect(r.code).toBe(0);
    const runId = /run-[0-9a-f-]{36}/.exec(r.stdout)![0];
    const shownDir = path.relative(process.cwd(), dir).startsWith('..') ? dir : path.relative(process.cwd(), dir);
    expect(r.stdout).toContain(
      ['✔ collect   passed', '✔ draft     passed', '… approve   waiting', '· publish   pending', '· remember  pending', ''].join('\n'),
    );
    expect(r.stdout).toContain(`→ berrypack method resume ${runId} --data-dir ${shownDir} --step approve`);
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe(`needs_attention · 5 steps · ${runId}`);
  });

  it('reports a document with errors: diagnostics, runId null, exit 1', () => {
    const r = method(['run', 'fixtures/methods/broken/cycle.method.yaml', '--data-dir', dataDir('broken')]);
    expect(r.code).toBe(1);
    expect(Object.keys(r.json)).toEqual(['runId', 'status', 'steps', 'pending', 'diagnostics', 'error']);
    expect(r.json).toMatchObject({ runId: null, status: 'failed', steps: {}, pending: [], error: { code: 'invalid-method' } });
    expect(r.json.diagnostics).toEqual([expect.objectContaining({ code: 'BP6091', severity: 'error', file: 'fixtures/methods/broken/cycle.method.yaml' })]);
    expect(existsSync(path.join(tmp, 'broken'))).toBe(false);
  });

  it('fails a run without the environment configuration before any step, exit 1', () => {
    const dir = withPeople('no-env');
    const r = method(['run', FIXTURE, '--data-dir', dir, '--inputs', '{"week": "2025-W14"}', '--script', SCRIPT]);
    expect(r.code).toBe(1);
    expect(r.json).toEqual({
      runId: expect.stringMatching(/^run-/),
      status: 'failed',
      steps: { collect: 'pending', draft: 'pending', approve: 'pending', publish: 'pending', remember: 'pending' },
      pending: [],
      diagnostics: [],
      error: {
        code: 'environment-missing',
        message:
          "Unexpected environment: connection `tracker` (service: Read access to the team's projects in the Acme issue tracker, through the team's service account.) has no configuration; connection `wiki` (browser: A browser session signed in to the company wiki with permission to edit the Weekly Reports page.) has no configuration",
      },
    });
  });

  it("MTH-18: confirm --done takes the step's outputs with --response-json; without them the step waits (missing-output), never completed with a null result", async () => {
    const file = path.join(tmp, 'post.method.yaml');
    writeFileSync(
      file,
      [
        'format: method/2',
        'name: post',
        'goal: Post a note on the wiki and share its address.',
        'environment:',
        '  wiki: {type: browser, description: A browser signed in to the wiki.}',
        'steps:',
        '  post:',
        '    in: {wiki: environment.wiki}',
        '    do: Post the note on {{wiki}}.',
        '    changes: [environment.wiki]',
        '    out: {url: {type: text, description: The address of the post.}}',
        '    check: {present: url}',
        '  share:',
        '    in: {url: url}',
        '    do: Share {{url}}.',
        '    out: {note: {type: text, description: The message.}}',
        'result: note',
        '',
      ].join('\n'),
    );
    const checked = checkMethod(file, readFileSync(file));
    // A process that dies mid-change: the run is left `running` with `post` started.
    const dir = dataDir('confirm-live');
    let runId = '';
    let entered!: () => void;
    const started = new Promise<void>((resolve) => (entered = resolve));
    void runMethod(checked.method!, {
      dataDir: dir,
      environment: { wiki: {} },
      executor: async (r) => ((runId = r.runId), entered(), new Promise<never>(() => {})),
    });
    await started;
    const copy = dataDir('confirm');
    cpSync(dir, copy, { recursive: true });
    rmSync(path.join(copy, 'runs', runId, 'lock'));
    const script = path.join(tmp, 'post.script.json');
    writeFileSync(script, JSON.stringify({ share: [{ output: { note: 'Shared https://wiki.example/p' } }] }));
    const common = ['--data-dir', copy, '--step', 'post', '--environment', '{"wiki": {}}', '--script', script];

    const uncertain = method(['status', runId, '--data-dir', copy]);
    expect(uncertain.json).toMatchObject({ status: 'needs_attention', steps: { post: 'uncertain' } });
    const waiting = method(['confirm', runId, ...common, '--done']);
    expect(waiting.code).toBe(0);
    expect(waiting.json).toEqual({
      runId,
      status: 'needs_attention',
      steps: { post: 'waiting', share: 'pending' },
      pending: [{ step: 'post', kind: 'missing-output', request: expect.stringContaining('its outputs (`url`) were not given') }],
      diagnostics: [],
    });
    const text = berrypack(['method', 'status', runId, '--data-dir', copy]);
    expect(text.stdout).toContain(`Waiting for outputs: post\n`);
    expect(text.stdout).toContain(`→ berrypack method confirm ${runId} --data-dir ${copy} --step post --done --response-json OUTPUTS | --redo`);
    const wrong = berrypack(['method', 'confirm', runId, ...common, '--done', '--response-json', '1']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toBe('berrypack method: Unexpected response: the response to `post` (`url`) must be text, not number 1\n');
    const done = method(['confirm', runId, ...common, '--done', '--response-json', '"https://wiki.example/p"']);
    expect(done.code).toBe(0);
    expect(done.json).toEqual({
      runId,
      status: 'completed',
      steps: { post: 'passed', share: 'unchecked' },
      pending: [],
      diagnostics: [],
      result: 'Shared https://wiki.example/p',
    });
  });

  it('refuses usage mistakes with one line on stderr and exit 2', () => {
    const dir = dataDir('usage');
    const cases: [string[], string][] = [
      [['method'], ''],
      [
        ['method', 'launch', 'x'],
        'berrypack method: Unexpected subcommand `launch`, expected run, resume, confirm, status or worker (see berrypack method --help)\n',
      ],
      [['method', 'run', FIXTURE], "berrypack method: Unexpected arguments without --data-dir DIR, expected the method's data folder\n"],
      [
        ['method', 'worker', '--data-dir', dir],
        'berrypack method: Unexpected `method worker` without --database URL, expected the PostgreSQL database the runs are in\n',
      ],
      [
        ['method', 'worker', 'x', '--database', 'postgres://127.0.0.1:1/x'],
        'berrypack method: Unexpected 1 arguments, expected none (see berrypack method --help)\n',
      ],
      [
        ['method', 'status', 'run-nope', '--data-dir', dir],
        `berrypack method: Unexpected run id \`run-nope\`: no method.json in ${path.join(dir, 'runs', 'run-nope')}\n`,
      ],
      [['method', 'confirm', 'run-x', '--data-dir', dir, '--step', 'a'], 'berrypack method: Unexpected arguments, expected exactly one of --done or --redo\n'],
      [
        ['method', 'confirm', 'run-x', '--data-dir', dir, '--step', 'a', '--redo', '--response', 'x'],
        "berrypack method: Unexpected a response with --redo, expected the step's outputs only with --done\n",
      ],
      [['method', 'status', 'run-x', '--data-dir', dir, '--script', 'x'], 'berrypack method: Unexpected --script for `method status`, expected --database\n'],
      [
        ['method', 'resume', 'run-x', '--data-dir', dir, '--step', 'a'],
        'berrypack method: Unexpected --step without a response (or a response without --step), expected --step KEY with --response TEXT or --response-json VALUE\n',
      ],
    ];
    for (const [args, stderr] of cases) {
      const r = berrypack(args);
      expect(r.code, args.join(' ')).toBe(2);
      if (stderr) expect(r.stderr).toBe(stderr);
      else expect(r.stderr).toContain('Usage: berrypack method run FILE');
    }
  });
});

describe('RUN-4: method run reads runtime.yaml beside the document, or --config', () => {
  it('refuses a malformed file with its diagnostic (exit 1), and a missing --config as a usage error', () => {
    const dir = path.join(tmp, 'configured');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'weekly-report.method.yaml'), readFileSync(FIXTURE, 'utf8'));
    writeFileSync(path.join(dir, 'runtime.yaml'), 'environment:\n  tracker: {tools: [a], writes: [b]}\n');
    const bad = method(['run', path.join(dir, 'weekly-report.method.yaml'), '--data-dir', dataDir('configured-data'), '--script', SCRIPT]);
    expect(bad.code).toBe(1);
    expect(bad.json).toMatchObject({
      runId: null,
      status: 'failed',
      error: { code: 'invalid-runtime-yaml' },
      diagnostics: [
        expect.objectContaining({
          code: 'BP9010',
          line: 2,
          column: 33,
          message: 'Unexpected "b" in environment.tracker.writes, expected one of its tools (a)',
        }),
      ],
    });
    const missing = berrypack(['method', 'run', FIXTURE, '--data-dir', dataDir('configured-missing'), '--config', 'nowhere.yaml']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/Unexpected --config nowhere\.yaml: ENOENT/);
  });
});
