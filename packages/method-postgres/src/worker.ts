import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import type PgBoss from 'pg-boss';
import { reconcileStep, runQueuedStep, targetsOf, type CompiledMethod, type MethodHostOptions, type RunRecord } from '@berrypack/runtime/method';
import { Database, lock, tryLock, unlock } from './database.js';
import { advanceRun, sendStep, startBoss, STEP_QUEUE, type StepJob } from './queue.js';
import { PostgresRunStore } from './pg-run-store.js';

/** What a worker runs steps with, per run (the run's recorded meta lets a host reuse its script and runtime.yaml). */
export type WorkerHost = (record: RunRecord) => Promise<{ options: Omit<MethodHostOptions, 'dataDir'>; close(): Promise<void> }>;

export interface MethodWorkerOptions {
  database: string;
  /** This machine's mirror of the data folder. */
  dataDir: string;
  host: WorkerHost;
  /** Told about each step taken and finished, and each recovery (the CLI prints them). */
  log?: (line: string) => void;
  /** How often to look for jobs and for steps of dead workers; default 250 ms and 1000 ms. */
  pollMs?: number;
  sweepMs?: number;
}

const SLEEP = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `berrypack method worker` (docs/scale.md): takes one step at a time from the queue and runs it.
 * While it runs a step it holds, on one connection, the step's lock and a lock per state
 * (`file`) and connection it touches; a killed worker's connection closes and the locks free,
 * which is how another worker knows to recover the step. `stop()` drains: no new step is
 * taken, the one in hand is finished.
 */
export class MethodWorker {
  readonly id = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly db: Database;
  private boss: PgBoss | undefined;
  private stopping = false;
  private loop: Promise<void> | undefined;
  private readonly dataDir: string;

  constructor(private readonly options: MethodWorkerOptions) {
    this.db = new Database(options.database);
    this.dataDir = path.resolve(options.dataDir);
  }

  async start(): Promise<void> {
    this.boss = await startBoss(this.db, true);
    this.loop = this.run();
  }

  /** Drains: finishes the step in hand, takes no other, then closes its connections. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.loop;
    await this.boss?.stop({ graceful: true, wait: true });
    await this.db.close();
  }

  private log(line: string): void {
    this.options.log?.(line);
  }

  private async run(): Promise<void> {
    await Promise.all([this.take(), this.watch()]);
  }

  /** Looks for steps of dead workers on its own, so a busy worker still hands them on within a second. */
  private async watch(): Promise<void> {
    while (!this.stopping) {
      try {
        await this.sweep();
      } catch (error) {
        this.log(`error: ${error instanceof Error ? error.message : String(error)}`);
      }
      await SLEEP(this.options.sweepMs ?? 1000);
    }
  }

  private async take(): Promise<void> {
    while (!this.stopping) {
      try {
        const [job] = await this.boss!.fetch<StepJob>(STEP_QUEUE, { batchSize: 1 });
        if (!job) {
          await SLEEP(this.options.pollMs ?? 250);
          continue;
        }
        await this.handle(job.id, job.data);
        await this.boss!.complete(STEP_QUEUE, job.id).catch(() => undefined);
      } catch (error) {
        // A lost connection or a failing database: said, then tried again; never a crash.
        this.log(`error: ${error instanceof Error ? error.message : String(error)}`);
        await SLEEP(1000);
      }
    }
  }

  private async handle(jobId: string, job: StepJob): Promise<void> {
    const { runId, step } = job;
    const client = await this.db.pool.connect();
    const targetLocks: string[] = [];
    let stepLocked = false;
    try {
      stepLocked = await tryLock(client, `step:${runId}:${step}`);
      // Another worker has the step in hand (or a sweep looks at it): this job, if still its
      // claim's, comes back a second later; a stale copy is dropped.
      if (!stepLocked) {
        await lock(client, `run:${runId}`);
        try {
          await this.requeue(client, jobId, job);
        } finally {
          await unlock(client, `run:${runId}`);
        }
        return;
      }
      const claim = await this.claim(client, jobId, job, targetLocks);
      if (!claim) return;
      this.log(`step ${runId}/${step}: started`);
      const store = new PostgresRunStore(this.db, this.dataDir, runId, 'steps');
      const record = await store.readRecord();
      const host = await this.options.host(record);
      try {
        const status = await runQueuedStep(store, step, { ...host.options, dataDir: this.dataDir }, record);
        this.log(`step ${runId}/${step}: ${status}`);
      } finally {
        await host.close();
      }
      for (const name of targetLocks.splice(0)) await unlock(client, name);
      await this.release(client, runId, step);
      await this.advance(runId);
    } finally {
      for (const name of targetLocks) await unlock(client, name).catch(() => undefined);
      if (stepLocked) await unlock(client, `step:${runId}:${step}`).catch(() => undefined);
      client.release();
    }
  }

  /**
   * Under the run lock: the job must be its step's current claim. A claim left `running` by a
   * dead worker (we hold its step lock now) is recovered first. Then every target lock is
   * taken, or the job goes back to the queue for a second later. True when this worker runs it.
   */
  private async claim(client: pg.PoolClient, jobId: string, job: StepJob, targetLocks: string[]): Promise<boolean> {
    const { runId, step } = job;
    await lock(client, `run:${runId}`);
    let after: 'run' | 'advance' | 'none' = 'none';
    try {
      const { rows } = await client.query<{ state: string; job_id: string }>(
        'SELECT state, job_id FROM berrypack_method.claims WHERE run_id = $1 AND step = $2',
        [runId, step],
      );
      const claim = rows[0];
      if (!claim || claim.job_id !== jobId) return false;
      if (claim.state === 'running' && !(await this.recover(client, runId, step))) {
        after = 'advance';
        return false;
      }
      const { rows: methods } = await client.query<{ method: CompiledMethod }>('SELECT method FROM berrypack_method.runs WHERE run_id = $1', [runId]);
      const method = methods[0]!.method;
      for (const target of targetsOf(method.steps[step]!)) {
        // A state is one file shared by every run of the data folder (locked by its `file`); a connection is the run's.
        const name = target.startsWith('state.') ? `state-file:${method.state[target.slice('state.'.length)]!.file}` : `connection:${runId}:${target}`;
        if (await tryLock(client, name)) targetLocks.push(name);
        else {
          for (const taken of targetLocks.splice(0)) await unlock(client, taken);
          await this.requeue(client, jobId, job);
          return false;
        }
      }
      await client.query("UPDATE berrypack_method.claims SET state = 'running', worker = $3 WHERE run_id = $1 AND step = $2", [runId, step, this.id]);
      after = 'run';
      return true;
    } finally {
      await unlock(client, `run:${runId}`);
      if (after === 'advance') await this.advance(runId);
    }
  }

  /**
   * The step of a worker that died (its step lock was free): a step that records no outcome and
   * changes nothing starts over; one with `changes` is `uncertain` (MTH-18: never retried
   * blindly) and waits for a person. True when the step runs again now.
   */
  private async recover(client: pg.PoolClient, runId: string, step: string): Promise<boolean> {
    const store = new PostgresRunStore(this.db, this.dataDir, runId, 'steps');
    const method = await store.readMethod();
    const record = await store.readRecord();
    reconcileStep(method, record, step);
    store.writeRecord(record);
    await store.flush();
    const status = record.steps[step]!.status;
    this.log(`step ${runId}/${step}: recovered from a worker that stopped (${status})`);
    if (status === 'pending' || status === 'checking') return true;
    await client.query('DELETE FROM berrypack_method.claims WHERE run_id = $1 AND step = $2', [runId, step]);
    return false;
  }

  /** Steps whose worker died: found by their free step lock, handed to a worker again through the queue. */
  private async sweep(): Promise<void> {
    const { rows } = await this.db.query<{ run_id: string; step: string; job_id: string }>(
      "SELECT run_id, step, job_id FROM berrypack_method.claims WHERE state = 'running'",
    );
    for (const row of rows) {
      const client = await this.db.pool.connect();
      try {
        if (!(await tryLock(client, `step:${row.run_id}:${row.step}`))) continue;
        try {
          await lock(client, `run:${row.run_id}`);
          try {
            await client.query('BEGIN');
            const current = await client.query<{ state: string; job_id: string }>(
              'SELECT state, job_id FROM berrypack_method.claims WHERE run_id = $1 AND step = $2 FOR UPDATE',
              [row.run_id, row.step],
            );
            // Its worker finished (or another sweep got here first) between our two reads.
            if (current.rows[0]?.state !== 'running' || current.rows[0].job_id !== row.job_id) {
              await client.query('COMMIT');
              continue;
            }
            // The job goes back to the queue as a new one; the worker that takes it recovers the step.
            const next = await sendStep(this.boss!, client, { runId: row.run_id, step: row.step });
            await client.query('UPDATE berrypack_method.claims SET job_id = $3 WHERE run_id = $1 AND step = $2', [row.run_id, row.step, next]);
            await client.query('COMMIT');
            this.log(`step ${row.run_id}/${row.step}: its worker stopped; queued again`);
          } catch (error) {
            await client.query('ROLLBACK').catch(() => undefined);
            throw error;
          } finally {
            await unlock(client, `run:${row.run_id}`);
          }
        } finally {
          await unlock(client, `step:${row.run_id}:${row.step}`);
        }
      } finally {
        client.release();
      }
    }
  }

  /** Under the run lock: the step's claim, if this job is still it, waits for a new job a second from now. */
  private async requeue(client: pg.PoolClient, jobId: string, job: StepJob): Promise<void> {
    await client.query('BEGIN');
    try {
      const { rows } = await client.query<{ job_id: string }>('SELECT job_id FROM berrypack_method.claims WHERE run_id = $1 AND step = $2 FOR UPDATE', [
        job.runId,
        job.step,
      ]);
      if (rows[0]?.job_id === jobId) {
        const next = await sendStep(this.boss!, client, job, 1);
        await client.query('UPDATE berrypack_method.claims SET job_id = $3 WHERE run_id = $1 AND step = $2', [job.runId, job.step, next]);
      }
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  }

  private async release(client: pg.PoolClient, runId: string, step: string): Promise<void> {
    await lock(client, `run:${runId}`);
    try {
      await client.query('DELETE FROM berrypack_method.claims WHERE run_id = $1 AND step = $2', [runId, step]);
    } finally {
      await unlock(client, `run:${runId}`);
    }
  }

  private advance(runId: string): Promise<void> {
    return advanceRun(this.db, this.boss!, runId, this.dataDir);
  }
}
