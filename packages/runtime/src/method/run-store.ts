import type { CompiledMethod } from '@berrypack/compiler/method-types';
import type { FileValue, RunRecord } from './run-record.js';
import type { StateSnapshot } from './state-files.js';

/**
 * Where one run lives: its record, the method it runs, its file outputs, and the states of the
 * data folder. The file store (a folder on this machine, the default) and the PostgreSQL store
 * (`@berrypack/method-postgres`) implement it.
 *
 * The runner writes synchronously (a write is visible to its next read at once) and awaits
 * `flush()` where a write must be durable before it goes on: before a `do` step's executor
 * runs, and at the end of every operation. Steps and checks read states and files through
 * `dataDir`, which a store keeps current on this machine (the PostgreSQL store mirrors what it
 * holds there).
 */
export interface RunStore {
  readonly runId: string;
  /** The data folder on this machine, absolute: states and `runs/<runId>/files` as steps and checks read them. */
  readonly dataDir: string;
  /** Where the run is, for messages (a folder, or a database and run id). */
  readonly location: string;
  exists(): Promise<boolean>;
  readRecord(): Promise<RunRecord>;
  readMethod(): Promise<CompiledMethod>;
  writeMethod(method: CompiledMethod): Promise<void>;
  /** After every transition: a reader (or a resume after a crash) sees one whole record or the previous one. */
  writeRecord(record: RunRecord): void;
  /** Saves a file output (path relative to the run's `files/`) and returns what the record keeps of it. */
  saveFile(relative: string, bytes: Uint8Array, format: string | undefined): FileValue;
  /** A state's current value (its `file` is its key), or the declared default; validated. */
  readState(name: string, declaration: CompiledMethod['state'][string]): StateSnapshot;
  /** A complete replacement, already validated; returns the sha256 of the bytes stored. */
  writeState(declaration: CompiledMethod['state'][string], value: unknown): string;
  /** Resolves when every write so far is durable; rejects with the first that failed. */
  flush(): Promise<void>;
  /** One operation on a run at a time; the release function. Refuses (`run-busy`) when another holds it. */
  lock(): Promise<() => Promise<void>>;
  /** Whether another live process works on the run (status then reports it as running). */
  heldElsewhere(): Promise<boolean>;
}

/** Opens runs by id; `dispatch`, when present, hands a run's work to workers instead of this process. */
export interface RunStores {
  open(runId: string): RunStore;
  /** Queues the run's ready steps for workers (`berrypack method worker`); the caller does not drive it. */
  dispatch?(runId: string): Promise<void>;
}
