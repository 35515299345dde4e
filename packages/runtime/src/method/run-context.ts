import { isPlainObject } from '../json.js';
import type { MethodExecutor } from './executor.js';
import type { MethodHuman, MethodJudge } from './judge.js';
import type { CompiledMethod, CompiledStep } from './method-types.js';
import type { RunRecord } from './run-record.js';
import type { RunStore } from './run-store.js';
import { readState } from './state-files.js';

/** What every method operation accepts besides its own arguments. */
export interface MethodHostOptions {
  /** The method's persistent data folder: state files, and `runs/<runId>/`. Relative to the working directory. */
  dataDir: string;
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
  /** Rewrites run.json (atomically) after a transition. */
  persist(): void;
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
    now: () => new Date().toISOString(),
    state(name) {
      const declaration = method.state[name];
      if (!declaration) throw new Error(`no state \`${name}\` is declared`);
      return readState(store.dataDir, name, declaration).value;
    },
  };
  return context;
}

/**
 * MTH-14: "Method checks access before operations start". The connections that lack a
 * configuration, or whose configuration the executor refuses, as messages.
 */
export function environmentProblems(context: RunContext, names: readonly string[] = Object.keys(context.method.environment)): string[] {
  const problems: string[] = [];
  for (const name of names) {
    const connection = context.method.environment[name]!;
    const configuration = Object.hasOwn(context.environment, name) ? context.environment[name] : undefined;
    if (configuration === undefined || configuration === null) {
      problems.push(`connection \`${name}\` (${connection.type}: ${connection.description}) has no configuration`);
      continue;
    }
    const refused = context.executor?.checkAccess ? context.executor.checkAccess(name, connection, configuration) : isPlainObject(configuration) ? undefined : 'its configuration must be an object';
    if (refused !== undefined) problems.push(`connection \`${name}\`: ${refused}`);
  }
  return problems;
}

/** The state and connection targets a step reads or changes: steps sharing one run one at a time (MTH-13). */
export function targetsOf(step: CompiledStep): string[] {
  const targets = new Set<string>();
  const refs = [...Object.values(step.in), ...(step.each ? [step.each.ref] : []), ...(step.when ? [step.when] : []), ...step.changes];
  for (const ref of refs) if (ref.root === 'state' || ref.root === 'environment') targets.add(`${ref.root}.${ref.name}`);
  return [...targets].sort();
}

/** Connections a step uses, through `in` or `changes`. */
export function connectionsOf(step: CompiledStep): string[] {
  return targetsOf(step).filter((t) => t.startsWith('environment.')).map((t) => t.slice('environment.'.length));
}
