// @berrypack/method-postgres in one process (docs/scale.md): a run dispatched from one data-folder
// mirror, its steps taken by two MethodWorkers with mirrors of their own, resumed from a third;
// records, states and file outputs end up in PostgreSQL. The worker processes, kills and drains
// are test/method-workers.test.ts; this is the package's API as a host embeds it.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { methodStatus, resumeMethod, runMethod, type CompiledMethod, type MethodRun, type RunStores, type StepRequest } from '@berrypack/runtime/method';
import { MethodWorker, openPostgresMethods, type PostgresMethods } from '../src/index.js';
import { compileMethod } from '../../../test/support/method.js';
import { postgresOrSkip, startPostgres, type PostgresServer } from '../../../test/support/postgres.js';
import { tempDir } from '../../../test/support/temp.js';

const available = postgresOrSkip('@berrypack/method-postgres in process') !== undefined;

const text = (description: string) => ({ type: 'text', description });
const method: CompiledMethod = compileMethod(
  {
    inputs: { week: text('The week.') },
    state: {
      last: { type: 'record', description: 'The last report.', file: 'state/last.json', fields: { week: { type: 'text' } }, default: { week: 'none' } },
    },
    steps: {
      draft: {
        in: { week: 'inputs.week', previous: 'state.last' },
        do: 'Draft {{week}} after {{previous.week}}.',
        out: { report: { type: 'file', format: 'markdown', description: 'The report.' } },
      },
      count: { in: { week: 'inputs.week' }, do: 'Count {{week}}.', out: { total: { type: 'number', description: 'How many.' } } },
      approve: {
        in: { week: 'inputs.week' },
        ask: 'Approve {{week}}?',
        out: { approval: { type: 'record', description: 'The decision.', fields: { approved: { type: 'boolean' } } } },
      },
      remember: { when: 'approval.approved', in: { week: 'inputs.week' }, do: 'Remember {{week}}.', changes: ['state.last'] },
    },
    result: { Report: 'report', Total: 'total' },
  },
  'Exercise the PostgreSQL store.',
);

describe.skipIf(!available)('@berrypack/method-postgres: runs shared through PostgreSQL, in process', () => {
  let server: PostgresServer;
  const opened: PostgresMethods[] = [];
  const workers: MethodWorker[] = [];
  const calls: { worker: number; step: string }[] = [];

  const executor = (worker: number) => (r: StepRequest) => {
    calls.push({ worker, step: r.step });
    if (r.step === 'draft') return { output: { report: `# ${String(r.inputs['week'])}\nAfter ${(r.inputs['previous'] as { week: string }).week}.\n` } };
    if (r.step === 'count') return { output: { total: 3 } };
    return { changes: { 'state.last': { week: r.inputs['week'] } } };
  };
  const open = (dir: string): RunStores => {
    const methods = openPostgresMethods(server.url, dir);
    opened.push(methods);
    return methods.stores;
  };
  /** The command's wait: the workers take the run as far as it goes, then it no longer runs. */
  const settled = async (runId: string, dataDir: string, stores: RunStores): Promise<MethodRun> => {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const view = await methodStatus(runId, { dataDir, stores });
      if (view.status !== 'running') return view;
      if (Date.now() > deadline) throw new Error(`run ${runId} still running: ${JSON.stringify(view)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  beforeAll(async () => {
    server = await startPostgres();
    for (const n of [1, 2]) {
      const worker = new MethodWorker({
        database: server.url,
        dataDir: tempDir(`berrypack-pg-worker${n}-`),
        host: () => Promise.resolve({ options: { executor: executor(n) }, close: () => Promise.resolve() }),
        pollMs: 50,
        sweepMs: 200,
      });
      await worker.start();
      workers.push(worker);
    }
  }, 120_000);

  afterAll(async () => {
    for (const worker of workers) await worker.stop();
    for (const methods of opened) await methods.close();
    server?.stop();
  }, 60_000);

  it('MTH-18: steps run on the workers; an ask waits; a resume from another mirror completes the run; each step runs once', { timeout: 240_000 }, async () => {
    const first = tempDir('berrypack-pg-mirror-a-');
    const stores = open(first);
    const started = await runMethod(method, { dataDir: first, stores, inputs: { week: 'W14' } });
    const waiting = await settled(started.runId, first, stores);
    expect(waiting).toMatchObject({
      status: 'needs_attention',
      steps: { draft: 'unchecked', count: 'unchecked', approve: 'waiting', remember: 'pending' },
      pending: [{ step: 'approve', kind: 'ask', request: 'Approve W14?' }],
    });
    // The dispatching process ran no step itself: only the workers' executors were called.
    expect(calls.map((c) => c.step).sort()).toEqual(['count', 'draft']);

    const second = tempDir('berrypack-pg-mirror-b-');
    const elsewhere = open(second);
    await resumeMethod(started.runId, { dataDir: second, stores: elsewhere, step: 'approve', response: { approved: true } });
    const done = await settled(started.runId, second, elsewhere);
    const report = { path: `runs/${started.runId}/files/draft/report.md`, format: 'markdown' };
    expect(done).toMatchObject({ status: 'completed', result: { Report: report, Total: 3 } });
    expect(calls.map((c) => c.step).sort()).toEqual(['count', 'draft', 'remember']);
    expect(calls.every((c) => c.worker === 1 || c.worker === 2)).toBe(true);

    // PostgreSQL holds the record, the file output (by its data-folder path) and the state (by its `file`).
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    try {
      const runs = await client.query<{ record: { status: string } }>('SELECT record FROM berrypack_method.runs WHERE run_id = $1', [started.runId]);
      expect(runs.rows[0]!.record.status).toBe('completed');
      const files = await client.query<{ body: Buffer }>('SELECT body FROM berrypack_method.files WHERE path = $1', [report.path]);
      expect(files.rows[0]!.body.toString('utf8')).toBe('# W14\nAfter none.\n');
      const states = await client.query<{ body: string }>('SELECT body FROM berrypack_method.states WHERE key = $1', ['state/last.json']);
      expect(JSON.parse(states.rows[0]!.body)).toEqual({ week: 'W14' });
    } finally {
      await client.end();
    }
    // A mirror is brought up to date from the database when it reads the run.
    await methodStatus(started.runId, { dataDir: first, stores });
    expect(readFileSync(path.join(first, 'runs', started.runId, 'files/draft/report.md'), 'utf8')).toBe('# W14\nAfter none.\n');
    expect(JSON.parse(readFileSync(path.join(first, 'state/last.json'), 'utf8'))).toEqual({ week: 'W14' });
  });

  it('MTH-5: the next run reads the state the previous run saved in PostgreSQL, from a fresh mirror', { timeout: 240_000 }, async () => {
    const fresh = tempDir('berrypack-pg-mirror-c-');
    expect(existsSync(path.join(fresh, 'state'))).toBe(false);
    const stores = open(fresh);
    const started = await runMethod(method, { dataDir: fresh, stores, inputs: { week: 'W15' } });
    const waiting = await settled(started.runId, fresh, stores);
    expect(waiting.status).toBe('needs_attention');
    const report = path.join(fresh, 'runs', started.runId, 'files/draft/report.md');
    expect(readFileSync(report, 'utf8')).toBe('# W15\nAfter W14.\n');
  });
});
