// Method runs on PostgreSQL (docs/scale.md): a run store (`RunStores` of @berrypack/runtime/method)
// whose runs are worked on by `MethodWorker`s through a pg-boss queue of steps.
import path from 'node:path';
import type { RunStores } from '@berrypack/runtime/method';
import type PgBoss from 'pg-boss';
import { Database } from './database.js';
import { PostgresRunStore } from './pg-run-store.js';
import { advanceRun, startBoss } from './queue.js';

export { MethodWorker, type MethodWorkerOptions, type WorkerHost } from './worker.js';
export { PostgresRunStore, type WriteScope } from './pg-run-store.js';
export { STEP_QUEUE, type StepJob } from './queue.js';

export interface PostgresMethods {
  /** Pass as `stores` to runMethod, resumeMethod, confirmStep and methodStatus: the run goes to the workers. */
  stores: RunStores;
  close(): Promise<void>;
}

/** Runs in the database `url`; `dataDir` is this machine's mirror of the data folder. */
export function openPostgresMethods(url: string, dataDir: string): PostgresMethods {
  const db = new Database(url);
  const root = path.resolve(dataDir);
  let boss: Promise<PgBoss> | undefined;
  return {
    stores: {
      open: (runId) => new PostgresRunStore(db, root, runId, 'run'),
      async dispatch(runId) {
        boss ??= startBoss(db, false);
        await advanceRun(db, await boss, runId, root);
      },
    },
    async close() {
      if (boss) await (await boss).stop({ graceful: true, wait: true });
      await db.close();
    },
  };
}
