import type { MethodExecutor } from './step-executors.js';
import type { MethodHuman, MethodJudge } from './judge.js';
import type { CompiledMethod } from '@berrypack/compiler/method-types';
import type { RunRecord } from './run-record.js';
import type { RunStore, RunStores } from './run-store.js';

/** What every method operation accepts besides its own arguments. */
export interface MethodHostOptions {
  /**
   * The method's persistent data folder: state files, and `runs/<runId>/`. Relative to the
   * working directory. With a database store it is this machine's copy of what the database holds.
   */
  dataDir: string;
  /** Where runs live; default: the file store in `dataDir` (`fileRunStores`). */
  stores?: RunStores;
  /** Does `do` steps. Without one, a `do` step fails (`no-executor`). */
  executor?: MethodExecutor | MethodExecutor['run'];
  /** Decides plain-English checks. Without one they are `ambiguous`. */
  judge?: MethodJudge;
  /** Told about each `ask`; may answer at once. */
  human?: MethodHuman;
  /** Configuration per environment connection (paths, tools, accounts). Never saved in the run. */
  environment?: Record<string, unknown>;
}

export interface RunContext {
  method: CompiledMethod;
  store: RunStore;
  record: RunRecord;
  executor: MethodExecutor | undefined;
  judge: MethodJudge | undefined;
  human: MethodHuman | undefined;
  environment: Record<string, unknown>;
  /** Rewrites the record (atomically) after a transition. */
  persist(): void;
  /** Waits until what was persisted is durable (before an executor runs; at the end of an operation). */
  flush(): Promise<void>;
  now(): string;
  /** A state's current value from its file (or default), validated; throws `state-*` failures. */
  state(name: string): unknown;
}

export function createContext(method: CompiledMethod, store: RunStore, record: RunRecord, options: MethodHostOptions): RunContext {
  const executor = typeof options.executor === 'function' ? { run: options.executor } : options.executor;
  const context: RunContext = {
    method,
    store,
    record,
    executor,
    judge: options.judge,
    human: options.human,
    environment: options.environment ?? {},
    persist() {
      record.updatedAt = context.now();
      store.writeRecord(record);
    },
    flush: () => store.flush(),
    now: () => new Date().toISOString(),
    state(name) {
      const declaration = method.state[name];
      if (!declaration) throw new Error(`no state \`${name}\` is declared`);
      return store.readState(name, declaration).value;
    },
  };
  return context;
}
