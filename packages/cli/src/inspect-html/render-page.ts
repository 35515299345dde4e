import { routineGraph, sourceId, type BundleContent, type GraphNode, type RoutineGraph } from './graph.js';
import { layoutGraph, NODE_HEIGHT, NODE_WIDTH, squarify, type GraphLayout } from './layout.js';
import { PAGE_SCRIPT } from './page-script.js';
import { PAGE_STYLE } from './page-style.js';

/** Treemap layout units: the container keeps this 3:1 aspect ratio, cells are placed in percent. */
export const TREEMAP_WIDTH = 1200;
export const TREEMAP_HEIGHT = 400;

const KIND_LABELS: Record<GraphNode['kind'], string> = {
  model: 'model routine',
  code: 'code routine',
  instructions: 'instructions',
  import: 'import',
  external: 'external tool',
  module: 'code module',
};

/**
 * One self-contained HTML page for a verified bundle: styles, script and data inline, and a
 * Content-Security-Policy that forbids every network request. The graph and the treemap are
 * rendered here (readable without the script); the script adds selection and the details panel.
 */
export function renderInspectorPage(bundle: { id: string; content: BundleContent; format?: string; bytes?: number }): string {
  const content = bundle.content;
  const graph = routineGraph(content);
  const layout = layoutGraph(graph);
  const name = content.plugin?.name ?? '(unnamed)';
  const counts = countKinds(graph);
  const data = { start: startNode(content, graph), nodes: nodeDetails(content, graph), edges: graph.edges };
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>${esc(name)} · berrypack inspect</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
<header>
<h1>${esc(name)}</h1>
<span class="id">${esc(bundle.id)}</span>
<span class="counts">${esc(counts)}</span>
<button type="button" id="theme" aria-pressed="false">Light / dark</button>
</header>
<main>
<div class="left">
<section id="graph-section" aria-labelledby="graph-title">
<h2 id="graph-title">Routine graph</h2>
<form id="find" role="search"><label for="find-input">Find a routine</label> <input id="find-input" list="find-names" autocomplete="off" spellcheck="false"> <button type="submit">Show</button><datalist id="find-names">${graph.nodes.map((n) => `<option value="${esc(n.label)}"></option>`).join('')}</datalist></form>
${legend()}
<div class="graph-scroll">${renderGraph(graph, layout)}</div>
</section>
<section id="size-section" aria-labelledby="size-title">
<h2 id="size-title">Size account</h2>
${bundle.bytes !== undefined ? renderFileSize(content, bundle.bytes, bundle.format) : ''}${renderSizes(content)}
</section>
</div>
<aside id="details" aria-label="Details" tabindex="-1">
<div id="details-body" aria-live="polite"><p class="empty">Select a routine (click, or Tab to it and press Enter) to see its frontmatter, schemas and body.</p></div>
</aside>
</main>
<script type="application/json" id="bp-data">${scriptJson(data)}</script>
<script>${PAGE_SCRIPT}</script>
</body>
</html>
`;
}

function renderGraph(graph: RoutineGraph, layout: GraphLayout): string {
  const at = (id: string) => layout.positions.get(id)!;
  const labels = new Map(graph.nodes.map((n) => [n.id, n.label]));
  const edges = graph.edges.map((e) => {
    const a = at(e.from);
    const b = at(e.to);
    const x1 = a.x + NODE_WIDTH;
    const y1 = a.y + NODE_HEIGHT / 2;
    const x2 = b.x;
    const y2 = b.y + NODE_HEIGHT / 2;
    // Back and same-column edges bend outward so they do not run through the boxes.
    const bend = Math.max(40, Math.abs(x2 - x1) / 2);
    const d = x2 > x1 ? `M${x1} ${y1} C${x1 + bend} ${y1} ${x2 - bend} ${y2} ${x2} ${y2}` : `M${x1} ${y1} C${x1 + 60} ${y1} ${x2 - 60} ${y2} ${x2} ${y2}`;
    return `<path class="edge e-${e.kind}" data-from="${esc(e.from)}" data-to="${esc(e.to)}" data-kind="${e.kind}" d="${d}" marker-end="url(#arrow-${e.kind})"><title>${esc(`${labels.get(e.from)} ${e.kind} ${labels.get(e.to)}`)}</title></path>`;
  });
  const markers = ['tools', 'next', 'includes', 'imports', 'refs', 'configure', 'route', 'summary'].map(
    (k) =>
      `<marker id="arrow-${k}" viewBox="0 0 10 10" refX="9" refY="5" markerUnits="userSpaceOnUse" markerWidth="9" markerHeight="9" orient="auto-start-reverse"><path d="M0 0L10 5L0 10z" class="e-${k}" style="fill: var(--e-${k})"/></marker>`,
  );
  const nodes = graph.nodes.map((n) => {
    const { x, y } = at(n.id);
    const classes = ['node', `kind-${n.kind}`, n.agents.length ? 'agent' : '', n.exported ? 'exported' : ''].filter(Boolean).join(' ');
    const badges = [n.agents.length ? '★ agent' : '', n.exported ? 'export' : ''].filter(Boolean).join(' · ');
    const label = `${n.label}, ${KIND_LABELS[n.kind]}${n.agents.length ? `, entry of agent ${n.agents.join(', ')}` : ''}${n.exported ? ', exported' : ''}`;
    return `<g class="${classes}" data-id="${esc(n.id)}" data-kind="${n.kind}" tabindex="0" role="button" aria-label="${esc(label)}" transform="translate(${x} ${y})"><title>${esc(label)}</title><rect class="box" width="${NODE_WIDTH}" height="${NODE_HEIGHT}" rx="6"/><rect class="stripe k-${n.kind}" width="6" height="${NODE_HEIGHT}" rx="2"/><text x="14" y="${badges ? 15 : 21}">${esc(fit(n.label, 23))}</text>${badges ? `<text class="badge" x="14" y="28">${esc(badges)}</text>` : ''}</g>`;
  });
  return `<svg id="graph" role="group" aria-label="Routine graph: ${graph.nodes.length} nodes, ${graph.edges.length} edges" width="${layout.width}" height="${layout.height}" viewBox="0 0 ${layout.width} ${layout.height}"><defs>${markers.join('')}</defs><g class="edges">${edges.join('')}</g><g class="nodes">${nodes.join('')}</g></svg>`;
}

function legend(): string {
  const kinds = (['model', 'code', 'instructions', 'import', 'module', 'external'] as const).map(
    (k) => `<li><span class="sw k-${k}"></span>${KIND_LABELS[k]}</li>`,
  );
  const edges = ['tools', 'next', 'includes', 'imports', 'refs', 'configure', 'route', 'summary'].map((k) => `<li><span class="ln e-${k}"></span>${k}</li>`);
  return `<ul class="legend" aria-label="Legend">${kinds.join('')}<li>★ agent entry</li><li>export: exported</li>${edges.join('')}</ul>`;
}

/** The bundle file against the text it captures: what the format costs beyond the sources. */
function renderFileSize(content: BundleContent, bytes: number, format: string | undefined): string {
  const text = (content.files ?? []).reduce((sum, f) => sum + (typeof f.size === 'number' ? f.size : 0), 0);
  const ratio = text > 0 ? ` (${(bytes / text).toFixed(2)}× the ${fmt(text)} bytes of text it captures)` : '';
  return `<p>Bundle file: <strong>${fmt(bytes)}</strong> bytes${format ? `, format <code>${esc(format)}</code>` : ''}${ratio}.</p>\n`;
}

function renderSizes(content: BundleContent): string {
  const code = content.code;
  if (!code) return '<p class="empty">This bundle has no size account.</p>';
  const routineByPath = new Map(Object.entries(content.sources ?? {}).map(([name, s]) => [s.path as string, name]));
  const cells = squarify(code.entries, (e) => e.size, TREEMAP_WIDTH, TREEMAP_HEIGHT).map((c) => {
    const routine = routineByPath.get(c.item.path);
    const node = routine !== undefined ? sourceId(routine) : `module:${c.item.path}`;
    const pct = (v: number, of: number) => `${((100 * v) / of).toFixed(4)}%`;
    const label = `${c.item.path}: ${fmt(c.item.size)} bytes`;
    return `<div class="cell ${routine !== undefined ? 'k-code' : 'k-module'}" role="listitem" tabindex="0" data-path="${esc(c.item.path)}" data-size="${c.item.size}" data-node="${esc(node)}" aria-label="${esc(label)}" title="${esc(label)}" style="left:${pct(c.x, TREEMAP_WIDTH)};top:${pct(c.y, TREEMAP_HEIGHT)};width:${pct(c.width, TREEMAP_WIDTH)};height:${pct(c.height, TREEMAP_HEIGHT)}"><span>${esc(c.item.path)}</span><span>${fmt(c.item.size)} B</span></div>`;
  });
  const share = code.limit > 0 ? Math.min(100, (100 * code.total) / code.limit) : 0;
  const rows = code.entries.map((e) => `<tr><td><code>${esc(e.path)}</code></td><td class="num">${fmt(e.size)}</td></tr>`);
  return `<p>Code: <strong>${fmt(code.total)}</strong> of ${fmt(code.limit)} bytes (${share.toFixed(share < 1 ? 2 : 1)} %)</p>
<div class="meter" role="meter" aria-label="code size against the limit" aria-valuemin="0" aria-valuemax="${code.limit}" aria-valuenow="${code.total}"><div style="width:${share.toFixed(3)}%"></div></div>
${
  cells.length
    ? `<div class="treemap" id="treemap" role="list" aria-label="Code size treemap: each area is proportional to a file's bytes">${cells.join('')}</div>
<table><thead><tr><th>path</th><th class="num">bytes</th></tr></thead><tbody>${rows.join('')}</tbody></table>`
    : '<p class="empty">No code routines or modules.</p>'
}`;
}

interface NodeDetails {
  label: string;
  kind: GraphNode['kind'];
  kindLabel: string;
  visibility?: string;
  agents: string[];
  exported: boolean;
  facts: [string, string][];
  frontmatter?: string;
  body?: string;
  input?: unknown;
  output?: unknown;
}

function nodeDetails(content: BundleContent, graph: RoutineGraph): Record<string, NodeDetails> {
  const files = new Map((content.files ?? []).map((f) => [f.path, f]));
  const imports = new Map((content.imports ?? []).map((i) => [i.name, i]));
  const out: Record<string, NodeDetails> = {};
  for (const n of graph.nodes) {
    const d: NodeDetails = { label: n.label, kind: n.kind, kindLabel: KIND_LABELS[n.kind], agents: n.agents, exported: n.exported, facts: [] };
    if (n.visibility) d.visibility = n.visibility;
    if (n.id === sourceId(n.label) && content.sources?.[n.label]) {
      const s = content.sources[n.label]!;
      for (const key of ['title', 'description', 'path'] as const) if (typeof s[key] === 'string') d.facts.push([key, s[key]]);
      const text = files.get(s.path as string)?.text;
      if (text !== undefined) Object.assign(d, splitSource(text));
      if (s.input !== undefined) d.input = s.input;
      if (s.output !== undefined) d.output = s.output;
    } else if (n.kind === 'import') {
      const i = imports.get(n.label);
      if (i) d.facts.push(['kind', i.kind], ['id', i.id], ...(i.export ? ([['export', i.export]] as [string, string][]) : []));
    } else if (n.kind === 'module') {
      const f = files.get(n.label);
      d.facts.push(['path', n.label]);
      if (f) {
        d.facts.push(['size', `${fmt(f.size)} bytes`]);
        d.body = f.text;
      }
    } else if (n.kind === 'external') {
      d.facts.push(['provided by', 'the host (requirements.tools)']);
    }
    out[n.id] = d;
  }
  return out;
}

/** The frontmatter and body of a source's normalized text (fences at the first line and the next `---` line). */
export function splitSource(text: string): { frontmatter?: string; body: string } {
  const m = /^---\n([\s\S]*?)\n?---[ \t]*(?:\n|$)/.exec(text);
  return m ? { frontmatter: m[1]!, body: text.slice(m[0].length) } : { body: text };
}

function startNode(content: BundleContent, graph: RoutineGraph): string | undefined {
  const entry = Object.values(content.agents ?? {})[0]?.entry;
  if (entry !== undefined && graph.nodes.some((n) => n.id === sourceId(entry))) return sourceId(entry);
  return graph.nodes[0]?.id;
}

function countKinds(graph: RoutineGraph): string {
  const routines = graph.nodes.filter((n) => n.kind === 'model' || n.kind === 'code' || n.kind === 'instructions').length;
  const agents = graph.nodes.filter((n) => n.agents.length).length;
  return `${routines} routine${routines === 1 ? '' : 's'} · ${agents} agent entr${agents === 1 ? 'y' : 'ies'} · ${graph.edges.length} edge${graph.edges.length === 1 ? '' : 's'}`;
}

function fit(text: string, max: number): string {
  return [...text].length <= max ? text : [...text].slice(0, max - 1).join('') + '…';
}

function fmt(n: number): string {
  return n.toLocaleString('en-US');
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** JSON that cannot close its `<script>` element or break a JavaScript parser. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}
