import { failure } from '../errors.js';

/** One thread of a session: the main one (`main`) and those a `route` opened. */
export interface SessionThread {
  id: string;
  title: string;
  request?: unknown;
}

/** What `$.session` reads (spec "Runtime instruction templates"): identity, current thread, opening and threads. */
export interface SessionView {
  id: string;
  thread: SessionThread;
  opening: { executionId: string; target?: unknown };
  threads: SessionThread[];
}

/** A versioned session State value, as `$.session.state.KEY` reads it. */
export interface StateValue {
  value: unknown;
  version: number;
}

/** A session as a backing stores it. */
export interface SessionData extends SessionView {
  state: Record<string, StateValue>;
  /** The executions attached to it, so a store read back from disk finds an execution's session. */
  executions?: string[];
}

/**
 * Sessions for `runtime.session.read` and `runtime.session.state.read` (docs/runtime.md,
 * "Sessions"): each execution belongs to one session (a new one unless the host names it), a
 * session has threads (a `route` to a thread adds one) and State keys whose every write bumps
 * the version. A template read selects only the execution's own session.
 */
export interface SessionStore {
  /** Attaches an execution to a session, creating it on first use. */
  attach(executionId: string, sessionId: string, target?: unknown): void;
  read(executionId: string): SessionView;
  readState(executionId: string, key: string): StateValue;
  /** Writes a State key; with `expectedVersion`, refuses when the stored version differs. Returns the new version. */
  writeState(sessionId: string, key: string, value: unknown, expectedVersion?: number): number;
  /** A `route` output `{route: "thread", thread, title, request}`: records the thread in the execution's session. */
  routed(executionId: string, output: Record<string, unknown>): void;
  sessionOf(executionId: string): string | undefined;
  /** Every session the backing keeps, once each (`$.runtime.sessions`); undefined when the backing cannot list them. */
  list(): SessionData[] | undefined;
}

/** Where a session store keeps its sessions: memory here; the CLI keeps them in files. */
export interface SessionBacking {
  load(id: string): SessionData | undefined;
  save(data: SessionData): void;
  /** The session an execution was attached to in an earlier process, if the backing keeps that. */
  find?(executionId: string): string | undefined;
  /** The ids of every session kept; without it `$.runtime.sessions` says the list is incomplete. */
  ids?(): string[];
}

export function createSessionStore(backing: SessionBacking): SessionStore {
  const executions = new Map<string, string>();
  const sessionFor = (executionId: string): SessionData => {
    const id = executions.get(executionId) ?? backing.find?.(executionId);
    const data = id === undefined ? undefined : backing.load(id);
    if (!data) throw failure('missing-value', `Missing the session of execution ${executionId}, expected the runtime to have attached one`);
    return data;
  };
  return {
    attach(executionId, sessionId, target) {
      executions.set(executionId, sessionId);
      const existing = backing.load(sessionId);
      if (existing) {
        existing.executions = [...(existing.executions ?? []), executionId];
        backing.save(existing);
        return;
      }
      const main: SessionThread = { id: 'main', title: 'Main' };
      backing.save({
        id: sessionId,
        thread: main,
        opening: { executionId, ...(target === undefined ? {} : { target }) },
        threads: [main],
        state: {},
        executions: [executionId],
      });
    },
    read(executionId) {
      const { state: _, executions: __, ...view } = sessionFor(executionId);
      return structuredClone(view);
    },
    readState(executionId, key) {
      const data = sessionFor(executionId);
      if (!Object.hasOwn(data.state, key))
        throw failure(
          'missing-value',
          `Missing session State key \`${key}\` in session ${data.id}, expected it written before it is read (stored null is data; a missing key refuses)`,
        );
      return structuredClone(data.state[key]!);
    },
    writeState(sessionId, key, value, expectedVersion) {
      const data = backing.load(sessionId);
      if (!data) throw failure('missing-value', `Missing session ${sessionId}`);
      const current = Object.hasOwn(data.state, key) ? data.state[key]!.version : 0;
      if (expectedVersion !== undefined && expectedVersion !== current)
        throw failure('version-conflict', `Unexpected version ${expectedVersion} of State key \`${key}\`, expected ${current}`);
      data.state[key] = { value: structuredClone(value), version: current + 1 };
      backing.save(data);
      return current + 1;
    },
    routed(executionId, output) {
      const data = sessionFor(executionId);
      const thread: SessionThread = { id: String(output['thread']), title: String(output['title']), request: output['request'] };
      data.threads = [...data.threads.filter((t) => t.id !== thread.id), thread];
      backing.save(data);
    },
    sessionOf(executionId) {
      return executions.get(executionId) ?? backing.find?.(executionId);
    },
    list() {
      const ids = backing.ids?.();
      if (ids === undefined) return undefined;
      return ids.flatMap((id) => {
        const data = backing.load(id);
        return data === undefined ? [] : [structuredClone(data)];
      });
    },
  };
}

export function createMemorySessionStore(): SessionStore {
  const sessions = new Map<string, SessionData>();
  return createSessionStore({
    load: (id) => sessions.get(id),
    save: (data) => void sessions.set(data.id, data),
    ids: () => [...sessions.keys()],
  });
}
