import { closeSync, existsSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';
import { sha256, writeAtomic } from './atomic-file.js';
import { MethodError } from './method-error.js';
import type { CompiledMethod } from '@berrypack/compiler/method-types';
import type { FileValue, RunRecord } from './run-record.js';
import type { RunStore, RunStores } from './run-store.js';
import { readState, writeState, type StateSnapshot } from './state-files.js';

const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;

/** The embedded default: runs in the data folder on this machine. */
export function fileRunStores(dataDir: string): RunStores {
  const root = path.resolve(dataDir);
  return { open: (runId) => new FileRunStore(root, runId) };
}

/** Refuses a run id that is not a plain name (it becomes a folder or a key). */
export function checkRunId(runId: string): void {
  if (!RUN_ID.test(runId)) throw new MethodError('invalid-run-id', `Unexpected run id \`${runId}\`, expected letters, digits, \`_\` and \`-\` (at most 100)`);
}

/** The run folder: `run.json` (the record), `method.json` (what runs), `files/`, `lock`. */
export class FileRunStore implements RunStore {
  readonly dir: string;

  constructor(
    readonly dataDir: string,
    readonly runId: string,
  ) {
    checkRunId(runId);
    this.dir = path.join(dataDir, 'runs', runId);
  }

  get location(): string {
    return this.dir;
  }

  exists(): Promise<boolean> {
    return Promise.resolve(existsSync(path.join(this.dir, 'run.json')));
  }

  readRecord(): Promise<RunRecord> {
    return Promise.resolve(this.recordNow());
  }

  readMethod(): Promise<CompiledMethod> {
    return Promise.resolve(this.methodNow());
  }

  /** The record as the folder holds it now (`readMethodRun` reads synchronously). */
  recordNow(): RunRecord {
    return this.readJson('run.json') as RunRecord;
  }

  methodNow(): CompiledMethod {
    return this.readJson('method.json') as CompiledMethod;
  }

  liveNow(): boolean {
    return heldElsewhere(this);
  }

  writeMethod(method: CompiledMethod): Promise<void> {
    writeAtomic(path.join(this.dir, 'method.json'), `${JSON.stringify(method)}\n`);
    return Promise.resolve();
  }

  readState(name: string, declaration: CompiledMethod['state'][string]): StateSnapshot {
    return readState(this.dataDir, name, declaration);
  }

  writeState(declaration: CompiledMethod['state'][string], value: unknown): string {
    return writeState(this.dataDir, declaration, value);
  }

  /** Every write is synchronous and flushed to disk as it happens. */
  flush(): Promise<void> {
    return Promise.resolve();
  }

  lock(): Promise<() => Promise<void>> {
    const release = lockRun(this);
    return Promise.resolve(() => Promise.resolve(release()));
  }

  heldElsewhere(): Promise<boolean> {
    return Promise.resolve(this.liveNow());
  }

  /** After every transition: a reader (or a resume after a crash) sees one whole record or the previous one. */
  writeRecord(record: RunRecord): void {
    writeAtomic(path.join(this.dir, 'run.json'), `${JSON.stringify(record, null, 2)}\n`);
  }

  /** Saves a file output under `files/` and returns what the record keeps of it. */
  saveFile(relative: string, bytes: Uint8Array, format: string | undefined): FileValue {
    const target = path.join(this.dir, 'files', ...relative.split('/'));
    writeAtomic(target, bytes);
    const value: FileValue = { path: this.dataPath(target), sha256: sha256(bytes), size: bytes.length };
    if (format !== undefined) value.format = format;
    return value;
  }

  /** A path below the data folder as the record writes it: relative, `/`-separated. */
  dataPath(absolute: string): string {
    return path.relative(this.dataDir, absolute).split(path.sep).join('/');
  }

  private readJson(name: string): unknown {
    const file = path.join(this.dir, name);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT')
        throw new MethodError('unknown-run', `Unexpected run id \`${this.runId}\`: no ${name} in ${this.dir}`);
      throw error;
    }
    try {
      return JSON.parse(text) as unknown;
    } catch (error) {
      throw new MethodError('invalid-run', `Unexpected ${file} that is not JSON (${(error as Error).message})`);
    }
  }
}

/** Runs this process is working on: a second operation on one of them is refused. */
const active = new Set<string>();

/**
 * One process works on a run at a time. The lock file names the owner's pid; a lock whose
 * owner is gone (killed mid-run) is taken over, which is how a run survives a crash.
 */
function lockRun(store: FileRunStore): () => void {
  const key = path.resolve(store.dir);
  if (active.has(key)) throw new MethodError('run-busy', `Unexpected second operation on run \`${store.runId}\`, which this process is working on`);
  const lock = path.join(store.dir, 'lock');
  mkdirSync(store.dir, { recursive: true });
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(lock, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw error;
      const owner = lockOwner(store);
      if (owner !== undefined && owner !== process.pid && isAlive(owner)) {
        throw new MethodError('run-busy', `Unexpected operation on run \`${store.runId}\`, which process ${owner} is working on`);
      }
      unlinkSync(lock);
    }
  }
  active.add(key);
  return () => {
    active.delete(key);
    try {
      unlinkSync(lock);
    } catch {
      // Already gone: nothing to release.
    }
  };
}

/** Whether another live process holds the run (status then reports it as running). */
function heldElsewhere(store: FileRunStore): boolean {
  if (active.has(path.resolve(store.dir))) return true;
  const owner = lockOwner(store);
  return owner !== undefined && owner !== process.pid && isAlive(owner);
}

function lockOwner(store: FileRunStore): number | undefined {
  try {
    const pid = Number(readFileSync(path.join(store.dir, 'lock'), 'utf8').trim());
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
