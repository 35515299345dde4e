/** The page's only stylesheet, inlined. Colours are variables so light and dark share every rule. */
export const PAGE_STYLE = `
:root { color-scheme: light; --bg: #fbfbfd; --fg: #1d1f24; --muted: #5b6170; --panel: #ffffff; --line: #d5d9e2;
  --edge: #8a93a6; --focus: #1f5fd1; --accent: #1f5fd1;
  --k-model: #2f6fdb; --k-code: #1e8a5a; --k-instructions: #9a6700; --k-import: #8250df; --k-external: #b4235a; --k-module: #4b6a88;
  --e-tools: #2f6fdb; --e-next: #c2410c; --e-includes: #9a6700; --e-imports: #4b6a88; --e-refs: #8a93a6; --e-configure: #8250df; --e-route: #8250df; --e-summary: #8250df; }
:root[data-theme="dark"] { color-scheme: dark; --bg: #14161b; --fg: #e6e8ee; --muted: #a3a9b8; --panel: #1c1f26; --line: #343946;
  --edge: #7d869a; --focus: #79a8ff; --accent: #79a8ff;
  --k-model: #79a8ff; --k-code: #4fd08f; --k-instructions: #e3b341; --k-import: #c297ff; --k-external: #ff7eb0; --k-module: #8fb3d4;
  --e-tools: #79a8ff; --e-next: #ff9b5c; --e-includes: #e3b341; --e-imports: #8fb3d4; --e-refs: #7d869a; --e-configure: #c297ff; --e-route: #c297ff; --e-summary: #c297ff; }
@media (prefers-color-scheme: dark) { :root:not([data-theme="light"]) { color-scheme: dark; --bg: #14161b; --fg: #e6e8ee; --muted: #a3a9b8; --panel: #1c1f26; --line: #343946;
  --edge: #7d869a; --focus: #79a8ff; --accent: #79a8ff;
  --k-model: #79a8ff; --k-code: #4fd08f; --k-instructions: #e3b341; --k-import: #c297ff; --k-external: #ff7eb0; --k-module: #8fb3d4;
  --e-tools: #79a8ff; --e-next: #ff9b5c; --e-includes: #e3b341; --e-imports: #8fb3d4; --e-refs: #7d869a; --e-configure: #c297ff; --e-route: #c297ff; --e-summary: #c297ff; } }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; }
header { display: flex; flex-wrap: wrap; gap: 8px 24px; align-items: baseline; padding: 16px 24px; border-bottom: 1px solid var(--line); }
header h1 { font-size: 20px; margin: 0; }
header .id, code, pre { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 12px; }
header .id { color: var(--muted); overflow-wrap: anywhere; }
header .counts { color: var(--muted); }
#theme { margin-left: auto; }
#find { margin: 0 0 8px; font-size: 13px; }
#find input { font: inherit; color: var(--fg); background: var(--bg); border: 1px solid var(--line); border-radius: 6px; padding: 2px 6px; width: 18em; }
button { font: inherit; color: var(--fg); background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 2px 10px; cursor: pointer; }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
main { display: grid; grid-template-columns: minmax(0, 1fr) minmax(300px, 34%); gap: 16px; padding: 16px 24px; }
section, aside { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 12px 16px; min-width: 0; }
h2 { font-size: 15px; margin: 0 0 8px; }
h3 { font-size: 13px; margin: 12px 0 4px; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; }
main > .left { display: flex; flex-direction: column; gap: 16px; min-width: 0; }
#details { position: sticky; top: 8px; align-self: start; max-height: calc(100vh - 16px); overflow: auto; }
.legend { display: flex; flex-wrap: wrap; gap: 4px 14px; margin: 0 0 8px; padding: 0; list-style: none; color: var(--muted); font-size: 12px; }
.legend .sw { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 4px; vertical-align: -1px; }
.legend .ln { display: inline-block; width: 18px; height: 0; border-top: 2px solid; margin-right: 4px; vertical-align: 3px; }
.graph-scroll { overflow: auto; max-height: 70vh; border: 1px solid var(--line); border-radius: 6px; }
svg text { fill: var(--fg); font: 12px ui-monospace, Menlo, Consolas, monospace; }
.node rect.box { fill: var(--panel); stroke: var(--line); stroke-width: 1.5; }
.node rect.stripe { stroke: none; }
.node.agent rect.box { stroke: var(--accent); stroke-width: 2.5; }
.node.exported rect.box { stroke-dasharray: none; }
.node .badge { font-size: 10px; fill: var(--muted); }
.node { cursor: pointer; }
.node:focus { outline: none; }
.node:focus-visible rect.box, .node.selected rect.box { stroke: var(--focus); stroke-width: 3; }
.edge { fill: none; stroke-width: 1.5; opacity: .75; }
.edge.active { stroke-width: 3; opacity: 1; }
.graph-dim .edge:not(.active) { opacity: .3; }
${['model', 'code', 'instructions', 'import', 'external', 'module'].map((k) => `.k-${k} { fill: var(--k-${k}); background: var(--k-${k}); }`).join('\n')}
${['tools', 'next', 'includes', 'imports', 'refs', 'configure', 'route', 'summary'].map((k) => `.e-${k} { stroke: var(--e-${k}); border-color: var(--e-${k}); color: var(--e-${k}); }`).join('\n')}
.edge.e-refs { stroke-dasharray: 4 3; }
.edge.e-includes { stroke-dasharray: 1 3; stroke-linecap: round; stroke-width: 2; }
.treemap { position: relative; width: 100%; aspect-ratio: 3 / 1; border: 1px solid var(--line); border-radius: 6px; overflow: hidden; }
.cell { position: absolute; overflow: hidden; border: 1px solid var(--bg); padding: 3px 5px; color: #fff; font-size: 11px; line-height: 1.25; cursor: pointer; }
.cell.k-code { background: var(--k-code); } .cell.k-module { background: var(--k-module); }
:root[data-theme="dark"] .cell { color: #0d0f13; }
@media (prefers-color-scheme: dark) { :root:not([data-theme="light"]) .cell { color: #0d0f13; } }
.cell span { display: block; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.cell:focus-visible { outline-offset: -3px; }
.meter { height: 8px; background: var(--line); border-radius: 4px; overflow: hidden; margin: 4px 0 10px; }
.meter div { height: 100%; background: var(--accent); }
table { border-collapse: collapse; width: 100%; font-size: 12px; margin-top: 10px; }
th, td { text-align: left; padding: 2px 6px; border-bottom: 1px solid var(--line); }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
pre { background: var(--bg); border: 1px solid var(--line); border-radius: 6px; padding: 8px; overflow: auto; max-height: 40vh; white-space: pre-wrap; overflow-wrap: anywhere; margin: 0; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 10px; margin: 0; }
dt { color: var(--muted); } dd { margin: 0; overflow-wrap: anywhere; }
.pill { display: inline-block; border: 1px solid var(--line); border-radius: 10px; padding: 0 7px; font-size: 11px; margin-right: 4px; color: var(--muted); }
.links { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: 4px; }
.links button { font-size: 12px; padding: 0 8px; }
.empty { color: var(--muted); }
@media (max-width: 900px) { main { grid-template-columns: 1fr; } #details { position: static; max-height: none; } }
`;
