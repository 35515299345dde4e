#!/usr/bin/env node
// The load figure of docs/performance.md: method runs per second with 1, 2 and 4
// `berrypack method worker` processes on one PostgreSQL (fixtures/methods/scale/pair.method.yaml:
// two lookups and a join, scripted, tools answering at once), and the time from a worker's
// SIGKILL to another worker starting its step again. Prints the load average beside them: the
// machine may be shared. `node scripts/scale/method-load.mjs [RUNS]` (default 24 runs per figure).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkMethod } from '@berrypack/compiler';
import { openPostgresMethods } from '@berrypack/method-postgres';
import { methodStatus, runMethod } from '@berrypack/runtime/method';
import { startPostgres } from './postgres.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = path.join(ROOT, 'packages/cli/bin/berrypack.js');
const FIXTURE = path.join(ROOT, 'fixtures/methods/scale');
const RUNS = Number(process.argv[2] ?? 24);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const file = path.join(FIXTURE, 'pair.method.yaml');
const { method } = checkMethod(file, readFileSync(file));
const pg = await startPostgres();
const root = mkdtempSync(path.join(os.tmpdir(), 'berrypack-load-'));
const log = path.join(root, 'tools.log');
let n = 0;
const workers = [];

async function startWorkers(count, env) {
  const started = [];
  for (let i = 0; i < count; i++) {
    const dir = path.join(root, `worker-${++n}`);
    mkdirSync(dir);
    const child = spawn(process.execPath, [BIN, 'method', 'worker', '--database', pg.url], { cwd: dir, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    const lines = [];
    child.stderr.on('data', (d) => {
      err += d;
      for (const line of String(d).split('\n')) if (line) lines.push({ at: Date.now(), line });
    });
    const done = new Promise((resolve) => child.on('close', resolve));
    started.push({ child, done, lines, ready: () => err.includes('taking steps') });
  }
  while (!started.every((w) => w.ready())) await sleep(50);
  workers.push(...started);
  return started;
}

async function stopWorkers(list) {
  for (const w of list) w.child.kill('SIGTERM');
  await Promise.all(list.map((w) => w.done));
}

const methods = openPostgresMethods(pg.url, path.join(root, 'submit'));
const options = {
  dataDir: path.join(root, 'submit'),
  stores: methods.stores,
  environment: { shelf_a: {}, shelf_b: {} },
  meta: { cli: { script: path.join(FIXTURE, 'scale.script.json'), config: path.join(FIXTURE, 'runtime.yaml') } },
};

async function throughput(count) {
  const list = await startWorkers(count, { ...process.env, SCALE_STEP_MS: '0' });
  const started = Date.now();
  const ids = [];
  for (let i = 0; i < RUNS; i++) ids.push((await runMethod(method, { ...options, inputs: { topic: `t${i}` } })).runId);
  for (const id of ids) {
    for (;;) {
      const run = await methodStatus(id, options);
      if (run.status === 'completed') break;
      if (run.status !== 'running') throw new Error(`run ${id} ended ${run.status}`);
      await sleep(50);
    }
  }
  const seconds = (Date.now() - started) / 1000;
  await stopWorkers(list);
  return { workers: count, runs: RUNS, seconds, perSecond: RUNS / seconds };
}

async function recovery() {
  // Three workers: two take the two lookups, the third is idle when one of them is killed.
  const list = await startWorkers(3, { ...process.env, SCALE_STEP_MS: '3000', SCALE_LOG: log });
  await runMethod(method, { ...options, inputs: { topic: 'recovery' } });
  const events = () =>
    existsSync(log)
      ? readFileSync(log, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l))
      : [];
  let victim;
  while (!victim) {
    const starts = events().filter((e) => e.event === 'start');
    victim = starts.find((e) => e.pid !== starts[0]?.pid);
    await sleep(20);
  }
  const killedAt = Date.now();
  list.find((w) => w.child.pid === victim.pid).child.kill('SIGKILL');
  // The retry may not call the tool again (the scripted provider answers the step's next
  // decision), so the other workers' own lines say when they took the step up.
  let retry;
  while (!retry) {
    retry = list
      .filter((w) => w.child.pid !== victim.pid)
      .flatMap((w) => w.lines)
      .find((l) => l.at >= killedAt && l.line.endsWith(`/part_${victim.part}: started`));
    await sleep(20);
  }
  await stopWorkers(list.filter((w) => w.child.pid !== victim.pid));
  return (retry.at - killedAt) / 1000;
}

try {
  const rows = [];
  for (const count of [1, 2, 4]) rows.push(await throughput(count));
  const recover = await recovery();
  const load = os.loadavg().map((l) => l.toFixed(2));
  for (const r of rows) process.stdout.write(`${r.workers} worker(s): ${r.runs} runs in ${r.seconds.toFixed(1)} s = ${r.perSecond.toFixed(2)} runs/s\n`);
  process.stdout.write(`recovery: ${recover.toFixed(2)} s from SIGKILL to another worker starting the step\n`);
  process.stdout.write(`load average: ${load.join(' ')} (${os.cpus().length} cores)\n`);
} finally {
  await stopWorkers(workers.filter((w) => w.child.exitCode === null && w.child.signalCode === null));
  await methods.close();
  pg.stop();
  rmSync(root, { recursive: true, force: true });
}
