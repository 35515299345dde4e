// Method runs on PostgreSQL shared by `berrypack method worker` processes (docs/scale.md), as a
// team would run them: every worker and every command a separate process in its own working
// directory, standing for machines. Used by test/method-workers.test.ts (each claim asserted)
// and `npm run e2e:scale` (one summary line).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startPostgres } from './postgres.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = path.join(ROOT, 'packages/cli/bin/berrypack.js');
const FIXTURE = path.join(ROOT, 'fixtures/methods/scale');
const SCRIPT = path.join(FIXTURE, 'scale.script.json');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A `berrypack` child process in `cwd`; resolves with its exit code and output. */
function berrypack(args, cwd, env) {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  // A worker's stderr, line by line with the time each arrived: what it took up and finished.
  const lines = [];
  child.stdout.on('data', (d) => (out += d));
  let partial = '';
  child.stderr.on('data', (d) => {
    err += d;
    const parts = (partial + d).split('\n');
    partial = parts.pop();
    for (const line of parts) if (line) lines.push({ pid: child.pid, at: Date.now(), line });
  });
  const done = new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, out, err })));
  return { child, done, output: () => err, lines };
}

/** `worker: step RUN/STEP: WHAT` lines of every worker, in order of arrival. */
function stepLines(workers) {
  return workers
    .flatMap((w) => w.lines)
    .map((l) => ({ ...l, match: /^worker: step ([^/]+)\/([a-z_]+): (.*)$/.exec(l.line) }))
    .filter((l) => l.match)
    .map((l) => ({ pid: l.pid, at: l.at, run: l.match[1], step: l.match[2], what: l.match[3] }))
    .sort((a, b) => a.at - b.at);
}

async function until(what, test, ms = 120_000) {
  const end = Date.now() + ms;
  for (;;) {
    const value = test();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

function readLog(file) {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

function json(result, what) {
  try {
    return JSON.parse(result.out);
  } catch {
    throw new Error(`${what} printed no JSON (exit ${result.code}): ${result.out}${result.err}`);
  }
}

/**
 * Starts PostgreSQL and two workers, runs `scale.method.yaml`, and along the way: SIGKILLs the
 * worker in the middle of a lookup (no changes: retried elsewhere), starts a replacement,
 * SIGKILLs the worker in the middle of filing a note (an external write: reported uncertain),
 * confirms that note from another directory, answers the `ask` from a third, then SIGTERMs a
 * worker in the middle of a step of a second run (drain). Returns what was observed.
 */
export async function runMethodWorkersScenario({ stepMs = 2000, writeMs = 6000 } = {}) {
  const pg = await startPostgres();
  const root = mkdtempSync(path.join(os.tmpdir(), 'berrypack-workers-'));
  const log = path.join(root, 'tools.log');
  // Slow enough that a kill lands mid-call even on a loaded machine (checked: the killed call never ends).
  const env = { ...process.env, SCALE_LOG: log, SCALE_STEP_MS: String(stepMs), SCALE_WRITE_MS: String(writeMs), NO_COLOR: '1' };
  const workers = new Map();
  const everyWorker = [];
  let n = 0;
  const startWorker = async () => {
    const dir = path.join(root, `worker-${++n}`);
    mkdirSync(dir);
    const w = berrypack(['method', 'worker', '--database', pg.url], dir, env);
    await until(`worker ${n} to start`, () => w.output().includes('taking steps'));
    workers.set(w.child.pid, w);
    everyWorker.push(w);
    return w;
  };
  const dirFor = (name) => {
    const dir = path.join(root, name);
    mkdirSync(dir, { recursive: true });
    return dir;
  };
  try {
    await startWorker();
    await startWorker();
    const submitted = Date.now();
    const run = berrypack(
      ['method', 'run', path.join(FIXTURE, 'scale.method.yaml'), '--database', pg.url, '--script', SCRIPT, '--inputs', '{"topic":"tides"}', '--json'],
      dirFor('submit'),
      env,
    );
    // Two lookups in flight on two workers: the later one's worker is killed outright.
    const lookup = await until('lookups on two workers', () => {
      const starts = readLog(log).filter((e) => e.tool === 'lookup' && e.event === 'start');
      return starts.find((e) => e.pid !== starts[0].pid);
    });
    const killedLookupAt = Date.now();
    workers.get(lookup.pid).child.kill('SIGKILL');
    await startWorker();
    // A note being filed (an external write): its worker is killed too.
    const note = await until('a note to be filed', () => readLog(log).find((e) => e.tool === 'file' && e.event === 'start'), 180_000);
    workers.get(note.pid).child.kill('SIGKILL');
    const killedNoteAt = Date.now();
    await startWorker();
    const first = json(await run.done, 'method run');
    const runId = first.runId;
    const noteStep = note.part === 'one' ? 'note_one' : 'note_two';
    const confirmed = json(
      await berrypack(
        ['method', 'confirm', runId, '--database', pg.url, '--step', noteStep, '--done', '--response', `note-${note.part}`, '--json'],
        dirFor('desk-1'),
        env,
      ).done,
      'method confirm',
    );
    const resumed = json(
      await berrypack(['method', 'resume', runId, '--database', pg.url, '--step', 'approve', '--response-json', 'true', '--json'], dirFor('desk-2'), env).done,
      'method resume',
    );
    const status = json(await berrypack(['method', 'status', runId, '--database', pg.url, '--json'], dirFor('desk-3'), env).done, 'method status');
    const firstRunEvents = readLog(log);

    // Drain: a second run; the worker holding its first lookup gets SIGTERM mid-step.
    const secondStart = Date.now();
    const second = berrypack(
      ['method', 'run', path.join(FIXTURE, 'pair.method.yaml'), '--database', pg.url, '--script', SCRIPT, '--inputs', '{"topic":"tides"}', '--json'],
      dirFor('submit-2'),
      env,
    );
    const drained = await until('a lookup of the second run', () => readLog(log).find((e) => e.at >= secondStart && e.event === 'start'));
    const sigtermAt = Date.now();
    const drainedWorker = workers.get(drained.pid);
    drainedWorker.child.kill('SIGTERM');
    const drainedExit = await drainedWorker.done;
    workers.delete(drained.pid);
    const secondRun = json(await second.done, 'method run (second)');
    const events = readLog(log);
    return {
      first,
      confirmed,
      resumed,
      status,
      noteStep,
      killed: { lookup, note, killedLookupAt, killedNoteAt },
      firstRunEvents,
      drain: { event: drained, sigtermAt, exit: drainedExit.code, output: drainedExit.err, events: events.filter((e) => e.at >= secondStart) },
      secondRun,
      steps: stepLines(everyWorker),
      seconds: (Date.now() - submitted) / 1000,
    };
  } finally {
    for (const w of workers.values()) w.child.kill('SIGTERM');
    await Promise.all([...workers.values()].map((w) => w.done));
    pg.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

const overlaps = (a, b) => a.start < b.end && b.start < a.end;

/** Start/end pairs of one tool's calls, by part and pid (a call cut short ends when its worker was killed). */
function intervals(events, tool, killedAt) {
  const result = [];
  for (const start of events.filter((e) => e.tool === tool && e.event === 'start')) {
    const end = events.find((e) => e.tool === tool && e.event === 'end' && e.part === start.part && e.pid === start.pid && e.at >= start.at);
    result.push({ part: start.part, pid: start.pid, start: start.at, end: end?.at ?? killedAt(start) });
  }
  return result;
}

/** Each claim of #20 with what was observed; the scenario holds when every one does. */
export function checkMethodWorkers(r) {
  const { lookup, note, killedNoteAt, killedLookupAt } = r.killed;
  const ev = r.firstRunEvents;
  const killedAt = (s) => (s.pid === lookup.pid ? killedLookupAt : killedNoteAt);
  const lookups = intervals(ev, 'lookup', killedAt);
  const files = intervals(ev, 'file', killedAt);
  const parallel = lookups.some((a) => lookups.some((b) => a.pid !== b.pid && overlaps(a, b)));
  const serial = files.every((a) => files.every((b) => a === b || !overlaps(a, b)));
  const ends = (tool, part) => ev.filter((e) => e.tool === tool && e.event === 'end' && e.part === part);
  // What the workers said: a step is finished when a worker reports its status (not `started`).
  const firstRun = r.steps.filter((l) => l.run === r.first.runId);
  const finished = (step) =>
    firstRun.filter((l) => l.step === step && !['started'].includes(l.what) && !l.what.startsWith('recovered') && !l.what.startsWith('its worker'));
  const lookupStep = `part_${lookup.part}`;
  const retried = finished(lookupStep);
  const noteStarts = ev.filter((e) => e.tool === 'file' && e.event === 'start' && e.part === note.part);
  const onceEach = Object.keys(r.status.steps).every((step) => finished(step).length <= 1) && finished(lookupStep).length === 1;
  const drainEnd = r.drain.events.find((e) => e.event === 'end' && e.pid === r.drain.event.pid && e.part === r.drain.event.part);
  const retryStart = firstRun.find((l) => l.step === lookupStep && l.what === 'started' && l.pid !== lookup.pid && l.at >= killedLookupAt);
  return [
    {
      claim: 'independent steps ran on different workers at once',
      ok: parallel,
      observed: lookups.map((l) => `${l.part}@${l.pid} ${l.start % 100000}-${l.end % 100000}`).join(', '),
    },
    {
      claim: 'steps on one connection (the ledger) never overlapped, across workers',
      ok: serial && files.length >= 2,
      observed: files.map((f) => `${f.part}@${f.pid} ${f.start % 100000}-${f.end % 100000}`).join(', '),
    },
    {
      claim: 'a lookup (no changes) whose worker got SIGKILL ran again on another worker and completed once',
      ok:
        !ev.some((e) => e.tool === 'lookup' && e.event === 'end' && e.pid === lookup.pid && e.part === lookup.part) &&
        retried.length === 1 &&
        retried[0].pid !== lookup.pid &&
        r.status.steps[lookupStep] === 'unchecked',
      observed: `${lookupStep}: killed on ${lookup.pid}, finished on ${retried.map((e) => `${e.pid} (${e.what})`).join(', ') || 'none'}`,
    },
    {
      claim: 'a note being filed (an external write) whose worker got SIGKILL was reported uncertain, not retried',
      ok:
        !ev.some((e) => e.tool === 'file' && e.event === 'end' && e.pid === note.pid) &&
        r.first.status === 'needs_attention' &&
        r.first.steps[r.noteStep] === 'uncertain' &&
        r.first.pending.some((p) => p.step === r.noteStep && p.kind === 'uncertain') &&
        noteStarts.length === 1,
      observed: `run ${r.first.status}, ${r.noteStep} ${r.first.steps[r.noteStep]}, filed ${noteStarts.length} time(s)`,
    },
    {
      claim: 'confirm from another directory continued the run to the ask, which waited',
      ok: r.confirmed.status === 'needs_attention' && r.confirmed.pending.some((p) => p.step === 'approve' && p.kind === 'ask'),
      observed: `${r.confirmed.status}, pending ${r.confirmed.pending.map((p) => `${p.step}:${p.kind}`).join(', ')}`,
    },
    {
      claim: 'resume from a third directory answered the ask and the run completed',
      ok:
        r.resumed.status === 'completed' &&
        r.status.status === 'completed' &&
        JSON.stringify(r.resumed.result) === '{"one":"note-one","two":"note-two","tally":1}',
      observed: `${r.resumed.status}, result ${JSON.stringify(r.resumed.result)}`,
    },
    {
      claim: 'no step completed twice',
      ok: onceEach && ['a', 'b', 'c', 'd'].every((p) => ends('lookup', p).length <= 1),
      observed: Object.keys(r.status.steps)
        .map((step) => `${step} ${finished(step).length}`)
        .join(', '),
    },
    {
      claim: 'a worker given SIGTERM mid-step finished that step, then exited 0; its run completed',
      ok: r.drain.exit === 0 && drainEnd !== undefined && drainEnd.at > r.drain.sigtermAt && r.secondRun.status === 'completed',
      observed: `exit ${r.drain.exit}, step ${drainEnd ? 'finished' : 'NOT finished'} after SIGTERM, second run ${r.secondRun.status}`,
    },
    {
      claim: "the killed worker's lookup was taken up again (recovery, reported)",
      ok: retryStart !== undefined,
      observed: retryStart ? `${((retryStart.at - killedLookupAt) / 1000).toFixed(2)} s from SIGKILL to another worker starting it` : 'no retry',
    },
  ];
}

/** Seconds from the lookup's SIGKILL to another worker starting it again. */
export function recoverySeconds(r) {
  const step = `part_${r.killed.lookup.part}`;
  const retry = r.steps.find(
    (l) => l.run === r.first.runId && l.step === step && l.what === 'started' && l.pid !== r.killed.lookup.pid && l.at >= r.killed.killedLookupAt,
  );
  return retry ? (retry.at - r.killed.killedLookupAt) / 1000 : undefined;
}
