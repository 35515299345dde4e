import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import {
  checkRunId,
  FileRunStore,
  MethodError,
  writeAtomic,
  type CompiledMethod,
  type FileValue,
  type RunRecord,
  type RunStore,
  type StateSnapshot,
} from '@berrypack/runtime/method';
import { lock, unlock, type Database } from './database.js';

/**
 * `steps`: a worker's store, which writes only the step subtrees it changed (each with one
 * `jsonb_set`, so workers on different steps of one run never overwrite each other).
 * `run`: an operation holding the run lock (start, resume, confirm, settle), which also
 * writes the run's own fields (status, result, error).
 */
export type WriteScope = 'run' | 'steps';

/**
 * A run in PostgreSQL (docs/scale.md): the record and method in `runs`, file outputs in `files`
 * (by their path in the data folder), states in `states` (by their `file`). The data folder on
 * this machine is a mirror: reading the record brings the run's files and the method's states
 * there, so steps and checks read them as they read the file store's; every write goes to
 * both, the database's in order, durable at `flush()`.
 */
export class PostgresRunStore implements RunStore {
  private readonly local: FileRunStore;
  private pending: Promise<void> = Promise.resolve();
  private failed: unknown;
  private pushed: { top: string; steps: Map<string, string> } | undefined;

  constructor(
    private readonly db: Database,
    readonly dataDir: string,
    readonly runId: string,
    private readonly scope: WriteScope,
  ) {
    checkRunId(runId);
    this.local = new FileRunStore(dataDir, runId);
  }

  get location(): string {
    return `run \`${this.runId}\` in the database`;
  }

  async exists(): Promise<boolean> {
    await this.db.init();
    const { rows } = await this.db.query('SELECT 1 FROM berrypack_method.runs WHERE run_id = $1 AND record IS NOT NULL', [this.runId]);
    return rows.length > 0;
  }

  async readMethod(): Promise<CompiledMethod> {
    await this.db.init();
    const { rows } = await this.db.query<{ method: CompiledMethod }>('SELECT method FROM berrypack_method.runs WHERE run_id = $1', [this.runId]);
    if (rows.length === 0) throw new MethodError('unknown-run', `Unexpected run id \`${this.runId}\`: no run in the database`);
    return rows[0]!.method;
  }

  /** The record, with the run's files and the method's states brought into the local data folder. */
  async readRecord(): Promise<RunRecord> {
    await this.db.init();
    const { rows } = await this.db.query<{ record: RunRecord | null; method: CompiledMethod }>(
      'SELECT record, method FROM berrypack_method.runs WHERE run_id = $1',
      [this.runId],
    );
    const row = rows[0];
    if (!row?.record) throw new MethodError('unknown-run', `Unexpected run id \`${this.runId}\`: no run in the database`);
    await this.mirror(row.method);
    this.remember(row.record);
    return row.record;
  }

  async writeMethod(method: CompiledMethod): Promise<void> {
    await this.db.init();
    await this.db.query('INSERT INTO berrypack_method.runs (run_id, method) VALUES ($1, $2) ON CONFLICT (run_id) DO UPDATE SET method = EXCLUDED.method', [
      this.runId,
      JSON.stringify(method),
    ]);
  }

  writeRecord(record: RunRecord): void {
    this.local.writeRecord(record);
    const { steps, ...top } = record;
    const topText = JSON.stringify(top);
    const stepTexts = new Map(Object.entries(steps).map(([k, v]) => [k, JSON.stringify(v)]));
    const before = this.pushed;
    this.remember(record);
    const changed = before ? [...stepTexts].filter(([key, text]) => before.steps.get(key) !== text).map(([key]) => key) : undefined;
    const topChanged = before?.top !== topText;
    if (changed?.length === 0 && !topChanged) return;
    const snapshot = JSON.parse(JSON.stringify(record)) as RunRecord;
    this.enqueue(() =>
      this.patch((current) => {
        if (!current || !changed) return snapshot;
        for (const key of changed) current.steps[key] = snapshot.steps[key]!;
        if (this.scope === 'run') return { ...snapshot, steps: current.steps };
        current.updatedAt = snapshot.updatedAt;
        return current;
      }),
    );
  }

  /** Read, change and write the record in one transaction (the row locked meanwhile). */
  private async patch(change: (current: RunRecord | null) => RunRecord): Promise<void> {
    const client = await this.db.pool.connect();
    try {
      await client.query('BEGIN');
      const { rows } = await client.query<{ record: RunRecord | null }>('SELECT record FROM berrypack_method.runs WHERE run_id = $1 FOR UPDATE', [this.runId]);
      const next = change(rows[0]?.record ?? null);
      await client.query('UPDATE berrypack_method.runs SET record = $2 WHERE run_id = $1', [this.runId, JSON.stringify(next)]);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  saveFile(relative: string, bytes: Uint8Array, format: string | undefined): FileValue {
    const value = this.local.saveFile(relative, bytes, format);
    const copy = Buffer.from(bytes);
    this.enqueue(() =>
      this.db.query('INSERT INTO berrypack_method.files (path, body) VALUES ($1, $2) ON CONFLICT (path) DO UPDATE SET body = EXCLUDED.body', [
        value.path,
        copy,
      ]),
    );
    return value;
  }

  readState(name: string, declaration: CompiledMethod['state'][string]): StateSnapshot {
    return this.local.readState(name, declaration);
  }

  writeState(declaration: CompiledMethod['state'][string], value: unknown): string {
    const hash = this.local.writeState(declaration, value);
    const text = readFileSync(path.join(this.dataDir, ...declaration.file.split('/')), 'utf8');
    this.enqueue(() =>
      this.db.query(
        'INSERT INTO berrypack_method.states (key, body) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET body = EXCLUDED.body, updated_at = now()',
        [declaration.file, text],
      ),
    );
    return hash;
  }

  async flush(): Promise<void> {
    await this.pending;
    if (this.failed !== undefined) throw this.failed;
  }

  /** The run lock (an advisory lock on its own connection): waits for a worker's short transition to end. */
  async lock(): Promise<() => Promise<void>> {
    await this.db.init();
    const client = await this.db.pool.connect();
    try {
      await lock(client, `run:${this.runId}`);
    } catch (error) {
      client.release();
      throw error;
    }
    return async () => {
      try {
        await unlock(client, `run:${this.runId}`);
      } finally {
        client.release();
      }
    };
  }

  /** A run with queued or running steps is being worked on. */
  async heldElsewhere(): Promise<boolean> {
    await this.db.init();
    const { rows } = await this.db.query('SELECT 1 FROM berrypack_method.claims WHERE run_id = $1 LIMIT 1', [this.runId]);
    return rows.length > 0;
  }

  private remember(record: RunRecord): void {
    const { steps, ...top } = record;
    this.pushed = { top: JSON.stringify(top), steps: new Map(Object.entries(steps).map(([k, v]) => [k, JSON.stringify(v)])) };
  }

  private enqueue(write: () => Promise<unknown>): void {
    this.pending = this.pending.then(async () => {
      if (this.failed !== undefined) return;
      try {
        await write();
      } catch (error) {
        this.failed = error;
      }
    });
  }

  /** The database is the truth: states it holds replace local files, states it lacks have none here. */
  private async mirror(method: CompiledMethod): Promise<void> {
    const keys = Object.values(method.state).map((s) => s.file);
    const states = await this.db.query<{ key: string; body: string }>('SELECT key, body FROM berrypack_method.states WHERE key = ANY($1)', [keys]);
    const held = new Map(states.rows.map((r) => [r.key, r.body]));
    for (const key of keys) {
      const file = path.join(this.dataDir, ...key.split('/'));
      const body = held.get(key);
      if (body === undefined) rmSync(file, { force: true });
      else if (!existsSync(file) || readFileSync(file, 'utf8') !== body) writeAtomic(file, body);
    }
    const prefix = `runs/${this.runId}/`;
    const files = await this.db.query<{ path: string; body: Buffer }>('SELECT path, body FROM berrypack_method.files WHERE starts_with(path, $1)', [prefix]);
    for (const row of files.rows) {
      const file = path.join(this.dataDir, ...row.path.split('/'));
      if (!existsSync(file) || !readFileSync(file).equals(row.body)) writeAtomic(file, row.body);
    }
  }
}
