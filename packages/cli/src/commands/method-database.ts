import { methodStatus, readMethodRun, type MethodHostOptions, type MethodRun } from '@berrypack/runtime';
import type { RunStores } from '@berrypack/runtime/method';
import type { CliMeta } from './method-config.js';
import type { ActionContext } from './method.js';

/** `--database URL`: runs in PostgreSQL (docs/scale.md). The driver is loaded only when asked for. */
export interface OpenDatabase {
  stores: RunStores;
  url: string;
  close(): Promise<void>;
}

export async function openDatabase(url: string, dataDir: string): Promise<OpenDatabase> {
  const { openPostgresMethods } = await import('@berrypack/method-postgres');
  const opened = openPostgresMethods(url, dataDir);
  return { stores: opened.stores, url, close: () => opened.close() };
}

/** The run's recorded `meta` (its --script, --environment, runtime.yaml), from wherever it lives. */
export async function recordedMeta(c: ActionContext): Promise<Record<string, unknown> | undefined> {
  if (!c.database) return readMethodRun(c.target, { dataDir: c.dataDir }).record.meta;
  return (await c.database.stores.open(c.target).readRecord()).meta;
}

const POLL_MS = 200;

/** With workers, the command waits until they have taken the run as far as it goes (it no longer runs). */
export async function untilSettled(c: ActionContext, run: MethodRun): Promise<MethodRun> {
  if (!c.database) return run;
  let current = run;
  while (current.status === 'running') {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    current = await methodStatus(run.runId, { dataDir: c.dataDir, stores: c.database.stores });
  }
  return current;
}

/**
 * `berrypack method worker`: runs steps until SIGTERM or SIGINT, then drains (finishes the step
 * in hand, takes no other) and exits 0. One line on stderr per step taken, finished or recovered.
 */
export async function workerCommand(
  c: ActionContext,
  host: (recorded: CliMeta) => Promise<{ options: MethodHostOptions; close(): Promise<void> }>,
): Promise<number> {
  const { MethodWorker } = await import('@berrypack/method-postgres');
  const { readCliMeta } = await import('./method-config.js');
  const worker = new MethodWorker({
    database: c.database!.url,
    dataDir: c.dataDir,
    host: async (record) => {
      const made = await host(readCliMeta(record.meta));
      const { dataDir: _local, stores: _stores, ...options } = made.options;
      return { options, close: made.close };
    },
    log: (line) => c.io.stderr.write(`worker: ${line}\n`),
  });
  await worker.start();
  c.io.stderr.write(`worker: ${worker.id} taking steps from ${redact(c.database!.url)}\n`);
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      resolve();
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
  c.io.stderr.write('worker: draining\n');
  await worker.stop();
  c.io.stderr.write('worker: stopped\n');
  return 0;
}

/** A password in the URL never reaches output. */
function redact(url: string): string {
  return url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');
}
