import pg from 'pg';

/** Tables of the run store (`json`, not `jsonb`: key order is kept, as the file store keeps it) and the claim table of the queue, in schema `berrypack_method` (pg-boss keeps its own, `pgboss`). */
const SCHEMA = `
CREATE SCHEMA IF NOT EXISTS berrypack_method;
CREATE TABLE IF NOT EXISTS berrypack_method.runs (
  run_id text PRIMARY KEY,
  method json NOT NULL,
  record json
);
CREATE TABLE IF NOT EXISTS berrypack_method.states (
  key text PRIMARY KEY,
  body text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS berrypack_method.files (
  path text PRIMARY KEY,
  body bytea NOT NULL
);
CREATE TABLE IF NOT EXISTS berrypack_method.claims (
  run_id text NOT NULL,
  step text NOT NULL,
  state text NOT NULL CHECK (state IN ('queued', 'running')),
  job_id text NOT NULL,
  worker text,
  PRIMARY KEY (run_id, step)
);`;

/** A connection pool with the schema in place. Advisory-lock keys are namespaced by `lockKey`. */
export class Database {
  readonly pool: pg.Pool;
  private ready: Promise<void> | undefined;

  constructor(readonly url: string) {
    this.pool = new pg.Pool({ connectionString: url, max: 10, application_name: 'berrypack-method' });
    // An idle client losing its server must not take the process down; the next query reports it.
    this.pool.on('error', () => undefined);
  }

  /** Creates the schema once per process; concurrent creators (several workers starting) wait for each other. */
  async init(): Promise<void> {
    this.ready ??= (async () => {
      const client = await this.pool.connect();
      try {
        await client.query('SELECT pg_advisory_lock($1)', [lockKey('schema')]);
        try {
          await client.query(SCHEMA);
        } finally {
          await client.query('SELECT pg_advisory_unlock($1)', [lockKey('schema')]);
        }
      } finally {
        client.release();
      }
    })();
    return this.ready;
  }

  query<T extends pg.QueryResultRow = Record<string, unknown>>(text: string, values: unknown[] = []): Promise<pg.QueryResult<T>> {
    return this.pool.query<T>(text, values);
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}

/**
 * A 64-bit advisory-lock key for a name (as a decimal string: pg returns bigint as text).
 * Session-level locks die with their connection, so a killed worker's locks are free at once.
 */
export function lockKey(name: string): string {
  let hash = 0xcbf29ce484222325n;
  for (const byte of Buffer.from(`berrypack-method:${name}`, 'utf8')) {
    hash ^= BigInt(byte);
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return BigInt.asIntN(64, hash).toString();
}

/** Takes a session-level lock on `client` without waiting; whether it was free. */
export async function tryLock(client: pg.PoolClient, name: string): Promise<boolean> {
  const { rows } = await client.query<{ got: boolean }>('SELECT pg_try_advisory_lock($1) AS got', [lockKey(name)]);
  return rows[0]!.got;
}

export async function lock(client: pg.PoolClient, name: string): Promise<void> {
  await client.query('SELECT pg_advisory_lock($1)', [lockKey(name)]);
}

export async function unlock(client: pg.PoolClient, name: string): Promise<void> {
  await client.query('SELECT pg_advisory_unlock($1)', [lockKey(name)]);
}
