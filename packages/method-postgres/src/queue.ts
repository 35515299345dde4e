import type pg from 'pg';
import PgBoss from 'pg-boss';
import { readySteps, settleQueuedRun, targetsOf, type CompiledMethod, type RunRecord } from '@berrypack/runtime/method';
import { lock, unlock, type Database } from './database.js';
import { PostgresRunStore } from './pg-run-store.js';

/** The pg-boss queue of steps: one job per step that may start, `{runId, step}`. */
export const STEP_QUEUE = 'berrypack-method-step';

export interface StepJob {
  runId: string;
  step: string;
}

/**
 * pg-boss delivers the jobs; whether a step may start, and that it runs once, is decided by the
 * claim table under the run lock (docs/scale.md). A job that outlives its claim is stale and
 * completed without running anything.
 */
export async function startBoss(db: Database, supervise: boolean): Promise<PgBoss> {
  await db.init();
  const boss = new PgBoss({
    connectionString: db.url,
    max: 4,
    // Recovery of a killed worker's step is ours (its step lock frees at once); pg-boss's own
    // expiry is only the backstop for a job nobody completes.
    supervise,
    schedule: false,
    application_name: 'berrypack-method-queue',
  });
  boss.on('error', () => undefined);
  await boss.start();
  await boss.createQueue(STEP_QUEUE, { name: STEP_QUEUE, policy: 'standard', retryLimit: 0, expireInSeconds: 3600 });
  return boss;
}

/** Sends a step's job inside the caller's transaction (pg-boss writes through `client`). */
export async function sendStep(boss: PgBoss, client: pg.PoolClient, job: StepJob, delaySeconds = 0): Promise<string> {
  const id = await boss.send(STEP_QUEUE, job, {
    ...(delaySeconds > 0 ? { startAfter: delaySeconds } : {}),
    db: { executeSql: (text: string, values: unknown[]) => client.query(text, values) },
  });
  if (id === null) throw new Error(`pg-boss refused the job of step \`${job.step}\``);
  return id;
}

/**
 * After any transition: under the run lock, queue every step that may start now (dependencies
 * done, no state or connection target held by a queued or running step, the run not halted by a
 * failed or stopped step); with nothing queued, running or ready, settle the run.
 */
export async function advanceRun(db: Database, boss: PgBoss, runId: string, dataDir: string): Promise<void> {
  const client = await db.pool.connect();
  let settleNow = false;
  try {
    await lock(client, `run:${runId}`);
    try {
      await client.query('BEGIN');
      const { rows } = await client.query<{ method: CompiledMethod; record: RunRecord | null }>(
        'SELECT method, record FROM berrypack_method.runs WHERE run_id = $1 FOR UPDATE',
        [runId],
      );
      const row = rows[0];
      if (!row?.record) {
        await client.query('ROLLBACK');
        return;
      }
      const { method, record } = row;
      const claims = await client.query<{ step: string }>('SELECT step FROM berrypack_method.claims WHERE run_id = $1', [runId]);
      const claimed = new Set(claims.rows.map((r) => r.step));
      const held = new Set([...claimed].flatMap((key) => targetsOf(method.steps[key]!)));
      const halted = Object.values(record.steps).some((s) => s.status === 'failed' || s.status === 'stopped');
      const queued: string[] = [];
      if (!halted) {
        for (const key of readySteps(method, record, held)) {
          if (claimed.has(key)) continue;
          const targets = targetsOf(method.steps[key]!);
          if (targets.some((t) => held.has(t))) continue;
          for (const t of targets) held.add(t);
          const jobId = await sendStep(boss, client, { runId, step: key });
          await client.query("INSERT INTO berrypack_method.claims (run_id, step, state, job_id) VALUES ($1, $2, 'queued', $3)", [runId, key, jobId]);
          queued.push(key);
        }
      }
      if (queued.length > 0 && record.status !== 'running') {
        record.status = 'running';
        delete record.endedAt;
        await client.query('UPDATE berrypack_method.runs SET record = $2 WHERE run_id = $1', [runId, JSON.stringify(record)]);
      }
      await client.query('COMMIT');
      settleNow = claimed.size === 0 && queued.length === 0;
      if (settleNow) await settleQueuedRun(new PostgresRunStore(db, dataDir, runId, 'run'), { dataDir });
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      await unlock(client, `run:${runId}`);
    }
  } finally {
    client.release();
  }
}
