/**
 * The page's only script, inlined. Plain ES2020 (it runs in the browser as written). It builds
 * the details panel with textContent only: every string comes from the bundle.
 */
export const PAGE_SCRIPT = String.raw`
(() => {
  const data = JSON.parse(document.getElementById('bp-data').textContent);
  const panel = document.getElementById('details-body');
  const graph = document.getElementById('graph');
  const nodes = Array.from(document.querySelectorAll('.node'));
  const byId = new Map(nodes.map((n) => [n.dataset.id, n]));
  const edges = Array.from(document.querySelectorAll('.edge'));

  function el(tag, props, children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(props || {})) {
      if (k === 'text') e.textContent = v;
      else if (k === 'onclick') e.addEventListener('click', v);
      else e.setAttribute(k, v);
    }
    for (const c of children || []) if (c) e.append(c);
    return e;
  }
  const json = (v) => JSON.stringify(v, null, 2);
  const section = (title, body) => [el('h3', { text: title }), body];
  const pre = (text, label) => el('pre', { text, tabindex: '0', 'aria-label': label });

  function links(ids, direction) {
    if (!ids.length) return el('p', { class: 'empty', text: 'none' });
    return el('ul', { class: 'links' }, ids.map(([id, kind]) => {
      const info = data.nodes[id];
      return el('li', {}, [el('button', { type: 'button', 'data-target': id, text: info.label + ' (' + kind + ')', 'aria-label': direction + ' ' + info.label + ' by ' + kind, onclick: () => show(id, true) })]);
    }));
  }

  function show(id, focus) {
    const info = data.nodes[id];
    if (!info) return;
    for (const n of nodes) n.classList.toggle('selected', n.dataset.id === id);
    for (const e of edges) e.classList.toggle('active', e.dataset.from === id || e.dataset.to === id);
    graph.classList.add('graph-dim');
    const pills = [el('span', { class: 'pill', text: info.kindLabel })];
    if (info.visibility) pills.push(el('span', { class: 'pill', text: info.visibility }));
    for (const a of info.agents || []) pills.push(el('span', { class: 'pill', text: 'agent ' + a }));
    if (info.exported) pills.push(el('span', { class: 'pill', text: 'exported' }));
    const facts = [];
    for (const [k, v] of info.facts) facts.push(el('dt', { text: k }), el('dd', { text: v }));
    const parts = [el('h2', { id: 'details-title', text: info.label }), el('p', {}, pills), el('dl', {}, facts)];
    if (info.frontmatter !== undefined) parts.push(...section('Frontmatter', pre(info.frontmatter, 'frontmatter of ' + info.label)));
    if (info.input !== undefined) parts.push(...section('Input schema', pre(json(info.input), 'input schema of ' + info.label)));
    if (info.output !== undefined) parts.push(...section('Output schema', pre(json(info.output), 'output schema of ' + info.label)));
    if (info.body !== undefined) parts.push(...section(info.kind === 'code' ? 'Code' : info.kind === 'module' ? 'Module' : 'Body', pre(info.body, 'body of ' + info.label)));
    const out = data.edges.filter((e) => e.from === id).map((e) => [e.to, e.kind]);
    const inc = data.edges.filter((e) => e.to === id).map((e) => [e.from, e.kind]);
    parts.push(...section('Uses', links(out, 'go to')), ...section('Used by', links(inc, 'go to')));
    panel.replaceChildren(...parts);
    const node = byId.get(id);
    if (node && node.scrollIntoView) node.scrollIntoView({ block: 'nearest', inline: 'nearest' });
    if (focus) node ? node.focus() : panel.focus();
    if (history.replaceState) history.replaceState(null, '', '#' + encodeURIComponent(id));
  }

  nodes.forEach((n, i) => {
    n.addEventListener('click', () => show(n.dataset.id, false));
    n.addEventListener('keydown', (e) => {
      const move = { ArrowDown: 1, ArrowRight: 1, ArrowUp: -1, ArrowLeft: -1 }[e.key];
      if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); show(n.dataset.id, false); }
      else if (move) { e.preventDefault(); nodes[(i + move + nodes.length) % nodes.length].focus(); }
      else if (e.key === 'Home' || e.key === 'End') { e.preventDefault(); nodes[e.key === 'Home' ? 0 : nodes.length - 1].focus(); }
    });
  });
  for (const cell of document.querySelectorAll('.cell')) {
    const open = () => { if (cell.dataset.node) show(cell.dataset.node, false); };
    cell.addEventListener('click', open);
    cell.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); open(); } });
  }
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') {
      for (const n of nodes) n.classList.remove('selected');
      for (const x of edges) x.classList.remove('active');
      graph.classList.remove('graph-dim');
    }
  });
  document.getElementById('find').addEventListener('submit', (e) => {
    e.preventDefault();
    const wanted = document.getElementById('find-input').value.trim();
    const id = Object.keys(data.nodes).find((k) => data.nodes[k].label === wanted);
    if (id) show(id, true);
  });
  const theme = document.getElementById('theme');
  theme.addEventListener('click', () => {
    const dark = document.documentElement.dataset.theme ? document.documentElement.dataset.theme === 'dark' : matchMedia('(prefers-color-scheme: dark)').matches;
    document.documentElement.dataset.theme = dark ? 'light' : 'dark';
    theme.setAttribute('aria-pressed', String(!dark));
  });
  const wanted = decodeURIComponent(location.hash.slice(1));
  show(data.nodes[wanted] ? wanted : data.start, false);
})();
`;
