/** The routine graph of a bundle's `content` (docs/bundle-format.md), as plain data for the page. */

export type NodeKind = 'instructions' | 'model' | 'code' | 'import' | 'external' | 'module';
export type EdgeKind = 'tools' | 'next' | 'includes' | 'imports' | 'configure' | 'route' | 'summary' | 'refs';

export interface GraphNode {
  id: string;
  label: string;
  kind: NodeKind;
  /** Agent ids whose entry this routine is. */
  agents: string[];
  exported: boolean;
  visibility?: string | undefined;
}

export interface GraphEdge {
  from: string;
  to: string;
  kind: EdgeKind;
}

export interface RoutineGraph {
  nodes: GraphNode[];
  edges: GraphEdge[];
}

type Target = { kind: 'source'; name: string } | { kind: 'import'; alias: string } | { kind: 'external'; name: string } | null | undefined;

interface SourceRecord {
  kind?: string;
  visibility?: string;
  tools?: { target?: Target }[];
  includes?: string[];
  refs?: Target[];
  dependencies?: Target[];
  next?: { to?: Target; cases?: Record<string, Target> };
  configure?: { routine?: Target };
  route?: { routine?: Target };
  compaction?: { summary?: Target };
  code?: { imports?: string[] };
}

export interface BundleContent {
  plugin?: { name?: string; version?: string };
  agents?: Record<string, { title?: string; description?: string; entry?: string }>;
  exports?: { name: string; entry: boolean; target?: Target }[];
  sources?: Record<string, SourceRecord & Record<string, unknown>>;
  imports?: { name: string; kind: string; id: string; export?: string }[];
  modules?: Record<string, { imports?: string[] }>;
  code?: { total: number; limit: number; entries: { path: string; size: number }[] };
  files?: { path: string; size: number; text: string }[];
}

export const sourceId = (name: string) => `routine:${name}`;

/** Nodes in a stable order (routines by name, then imports, modules, external tools); edges deduplicated. */
export function routineGraph(content: BundleContent): RoutineGraph {
  const sources = content.sources ?? {};
  const imports = new Map((content.imports ?? []).map((i) => [i.name, i]));
  const agentsOf = new Map<string, string[]>();
  for (const [id, agent] of Object.entries(content.agents ?? {})) if (agent.entry) agentsOf.set(agent.entry, [...(agentsOf.get(agent.entry) ?? []), id]);
  const exported = new Set((content.exports ?? []).flatMap((e) => (e.target?.kind === 'source' ? [e.target.name] : [])));

  const nodes = new Map<string, GraphNode>();
  for (const name of Object.keys(sources).sort(naturalCompare)) {
    const s = sources[name]!;
    nodes.set(sourceId(name), {
      id: sourceId(name),
      label: name,
      kind: (s.kind as NodeKind) ?? 'instructions',
      agents: agentsOf.get(name) ?? [],
      exported: exported.has(name),
      visibility: s.visibility,
    });
  }
  const extra = new Map<string, GraphNode>();
  const edges = new Map<string, GraphEdge>();
  const nodeFor = (target: Target): string | undefined => {
    if (!target) return undefined;
    if (target.kind === 'source') return sourceId(target.name);
    const id = target.kind === 'import' ? `import:${target.alias}` : `external:${target.name}`;
    if (!extra.has(id)) extra.set(id, { id, label: target.kind === 'import' ? target.alias : target.name, kind: target.kind, agents: [], exported: false });
    return id;
  };
  const link = (from: string, to: string | undefined, kind: EdgeKind) => {
    if (to !== undefined) edges.set(`${from} ${to} ${kind}`, { from, to, kind });
  };

  for (const name of Object.keys(sources).sort()) {
    const s = sources[name]!;
    const from = sourceId(name);
    for (const tool of s.tools ?? []) link(from, nodeFor(tool.target), 'tools');
    // `includes` holds names: a routine of this package or an import's alias.
    for (const inc of s.includes ?? [])
      link(from, nodeFor(sources[inc] || !imports.has(inc) ? { kind: 'source', name: inc } : { kind: 'import', alias: inc }), 'includes');
    if (s.next) {
      link(from, nodeFor(s.next.to), 'next');
      for (const target of Object.values(s.next.cases ?? {})) link(from, nodeFor(target), 'next');
    }
    link(from, nodeFor(s.configure?.routine), 'configure');
    link(from, nodeFor(s.route?.routine), 'route');
    link(from, nodeFor(s.compaction?.summary), 'summary');
    for (const target of [...(s.refs ?? []), ...(s.dependencies ?? [])]) link(from, nodeFor(target), 'refs');
    for (const module of s.code?.imports ?? []) link(from, moduleNode(extra, module), 'imports');
  }
  for (const [module, record] of Object.entries(content.modules ?? {})) {
    const from = moduleNode(extra, module);
    for (const imported of record.imports ?? []) link(from, moduleNode(extra, imported), 'imports');
  }
  const rank: Record<string, number> = { import: 0, module: 1, external: 2 };
  const rest = [...extra.values()].sort((a, b) => rank[a.kind]! - rank[b.kind]! || naturalCompare(a.label, b.label));
  return { nodes: [...nodes.values(), ...rest], edges: [...edges.values()].filter((e) => nodes.has(e.to) || extra.has(e.to)) };
}

function moduleNode(extra: Map<string, GraphNode>, path: string): string {
  const id = `module:${path}`;
  if (!extra.has(id)) extra.set(id, { id, label: path, kind: 'module', agents: [], exported: false });
  return id;
}

/** `model2` before `model10`: digit runs compare as numbers; the same order on every machine (no locale). */
export function naturalCompare(a: string, b: string): number {
  const pa = a.match(/\d+|\D+/g) ?? [];
  const pb = b.match(/\d+|\D+/g) ?? [];
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    const x = pa[i]!;
    const y = pb[i]!;
    if (x === y) continue;
    const nx = /^\d/.test(x) && /^\d/.test(y) ? Number(x) - Number(y) || x.length - y.length : 0;
    if (nx !== 0) return nx;
    return x < y ? -1 : 1;
  }
  return pa.length - pb.length || (a < b ? -1 : a > b ? 1 : 0);
}
