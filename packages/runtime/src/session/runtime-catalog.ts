import type { Bundle } from '../bundle/load-bundle.js';
import { READERS, type ExternalTool } from '../execution/external-tool.js';
import type { CallRecord } from '../journal/entries.js';
import type { SessionStore } from './store.js';

/**
 * What a host tells `$.runtime` about itself (`createRuntime({catalog})`, docs/runtime.md,
 * "Runtime observations"): public metadata only, never credentials.
 */
export interface RuntimeCatalogOptions {
  /** Observed environments by id. @default {host: {platform, arch, node}} of this process */
  environments?: Readonly<Record<string, unknown>>;
  /** The external tool names the host serves (the CLI: runtime.yaml's `tools`). */
  tools?: readonly string[];
  /** The model catalog's entries (`--catalog`, runtime.yaml `catalog`): ids the bundle's routines may name. */
  models?: readonly { id: string; provider: string; operations?: readonly string[]; interactions?: readonly string[] }[];
}

/** An execution as the reader sees it: the runtime's own bookkeeping. */
export interface CatalogExecution {
  id: string;
  target: unknown;
  status: 'running' | 'completed' | 'failed';
  calls(): CallRecord[];
}

interface CatalogSources {
  options: RuntimeCatalogOptions;
  sessions: SessionStore | undefined;
  /** The executions this runtime started, oldest first. */
  executions(): Iterable<CatalogExecution>;
  /** The bundle the reading execution runs. */
  bundleOf(executionId: string): Bundle | undefined;
}

/** Lists are bounded: the newest entries first, `complete: false` when some were left out. */
export const CATALOG_LIST_LIMIT = 50;
/** Calls shown per execution in `$.runtime.executions`. */
export const CATALOG_CALLS_LIMIT = 200;

interface CatalogList<T> {
  items: T[];
  total: number;
  complete: boolean;
}

function list<T>(items: T[], complete = true): CatalogList<T> {
  return { items: items.slice(0, CATALOG_LIST_LIMIT), total: items.length, complete: complete && items.length <= CATALOG_LIST_LIMIT };
}

/**
 * The built-in `runtime.catalog.read` (spec "Runtime observations"): `summary`,
 * `environments`, `resources` and `agents` of the reading execution's bundle, `sessions` of
 * the session store (once each, with their status), `executions` (the technical records this
 * runtime holds for the reader's session, child calls included, never a list of sessions),
 * `tools` and `models`. Lists carry `total` and `complete`; a list the runtime cannot observe
 * is empty and incomplete, since missing discovery is not evidence of absence.
 */
export function catalogReader(sources: CatalogSources): [string, ExternalTool] {
  const read = (executionId: string) => {
    const bundle = sources.bundleOf(executionId);
    const content = bundle?.content;
    const agents = Object.entries(content?.agents ?? {}).map(([id, a]) => ({ id, title: a.title, description: a.description }));
    const resources = (content?.resources ?? []).map((r) => ({ uri: r.uri, mediaType: r.mediaType, digest: r.digest, size: r.size }));
    const environments = sources.options.environments ?? { host: { platform: process.platform, arch: process.arch, node: process.version } };
    const tools = [...(sources.options.tools ?? [])].sort();
    const models = (sources.options.models ?? []).map((m) => ({
      id: m.id,
      provider: m.provider,
      ...(m.operations ? { operations: [...m.operations] } : {}),
      ...(m.interactions ? { interactions: [...m.interactions] } : {}),
    }));
    const ownSession = sources.sessions?.sessionOf(executionId);
    const all = [...sources.executions()];
    const running = new Set(all.filter((e) => e.status === 'running').map((e) => e.id));
    const kept = sources.sessions?.list();
    const sessions = (kept ?? []).map((s) => ({
      id: s.id,
      status: (s.executions ?? []).some((id) => running.has(id)) ? 'active' : 'idle',
      opening: s.opening,
      threads: s.threads.map((t) => ({ id: t.id, title: t.title })),
      executions: (s.executions ?? []).length,
    }));
    // Accessible records: the executions of the reader's own session (all of this runtime's without a session store).
    const accessible = all.filter((e) => ownSession === undefined || sources.sessions?.sessionOf(e.id) === ownSession).reverse();
    const executions = accessible.map((e) => {
      const calls = e.calls().map((c) => ({ id: c.id, parent: c.parent, kind: c.kind, name: c.name, status: c.status }));
      return {
        executionId: e.id,
        target: e.target,
        status: e.status,
        ...(ownSession === undefined ? {} : { session: ownSession }),
        calls: list(calls.slice(0, CATALOG_CALLS_LIMIT), calls.length <= CATALOG_CALLS_LIMIT),
      };
    });
    const host = (environments as Record<string, unknown>)['host'] as { platform?: string; arch?: string; node?: string } | undefined;
    const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
    const summary =
      `Plugin ${content?.plugin.name ?? 'unknown'}: ${plural(agents.length, 'agent')}${agents.length ? ` (${agents.map((a) => a.id).join(', ')})` : ''}, ` +
      `${plural(resources.length, 'resource')}, ${plural(tools.length, 'configured tool')}, ` +
      `${kept === undefined ? 'sessions not kept' : plural(sessions.length, 'session')}` +
      (host?.platform ? `; host ${host.platform} ${host.arch ?? ''}, Node ${host.node ?? ''}.` : '.');
    return {
      summary,
      environments,
      resources: list(resources),
      agents: list(agents),
      sessions: list(sessions, kept !== undefined),
      executions: list(executions),
      tools: list(tools),
      models: list(models),
    };
  };
  return [
    READERS.runtime,
    {
      description: 'Public metadata of this runtime: environments, resources, agents, sessions, executions, tools and models.',
      invoke: (_input, context) => read(context.executionId),
    },
  ];
}
