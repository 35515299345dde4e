// Renders a harness result (the object `--json` prints) as the text table or as Markdown.
import { fmt, fmtRange, fmtRatio, table } from './stats.mjs';

const SECTIONS = ['cold', 'memory', 'bundlers', 'watch', 'runtime'];
const HEADER = ['section', 'figure', 'N', 'median', 'min–max', 'ratio (min–max)', 'vs', 'target', 'status'];
const pct = (v) => `${(v * 100).toFixed(1)} %`;

function rows(result) {
  const out = [];
  for (const section of SECTIONS) {
    for (const f of result.sections[section] ?? []) {
      const [first, ...rest] = f.comparisons;
      const cells = (c) => {
        if (!c) return ['', '', '', ''];
        const ratio = !c.ratio
          ? ''
          : c.percent
            ? `${pct(c.ratio.median)} (${pct(c.ratio.min)}–${pct(c.ratio.max)})`
            : `${fmtRatio(c.ratio.median)} (${fmtRatio(c.ratio.min)}–${fmtRatio(c.ratio.max)})`;
        const vs = c.against === 'absolute' ? (c.targetLabel ?? '') : c.against;
        const target = c.target
          ? `${c.target.op} ${c.target.kind === 'absolute' ? `${c.target.value} ${c.target.unit}` : c.percent ? `${c.target.value * 100} %` : `${c.target.value}×`}`
          : '';
        const status = c.status === 'met' ? 'met' : c.status === 'missed' ? 'MISSED' : (c.status ?? '');
        return [ratio, vs, target, status + (c.status && c.against === 'absolute' ? ` (${fmt(c.value)} ${c.target.unit})` : '')];
      };
      out.push([
        section,
        f.label,
        f.n === undefined || f.n === null ? '' : f.n.toLocaleString('en-US'),
        `${fmt(f.median)} ${f.unit}`,
        fmtRange(f),
        ...cells(first),
      ]);
      for (const c of rest) out.push(['', '', '', '', '', ...cells(c)]);
    }
  }
  return out;
}

function summary(result) {
  const { targets } = result;
  const met = targets.filter((t) => t.status === 'met').length;
  const missed = targets.filter((t) => t.status === 'missed');
  const show = (t) => (t.unit === '×' ? fmtRatio(t.value) : t.unit === '%' ? pct(t.value) : `${fmt(t.value)} ${t.unit}`);
  return {
    line: `targets: ${met} met, ${missed.length} missed, ${targets.length - met - missed.length} not measured`,
    missed: missed.map((t) => `MISSED ${t.label}: ${show(t)} (target ${t.target})`),
  };
}

function heading(m) {
  const load = m.load1DuringRun;
  return [
    `berrypack bench (${m.mode}): N = ${m.ns.map((n) => n.toLocaleString('en-US')).join(', ')}; runs ${Object.entries(m.runs)
      .map(([n, r]) => `${r} at ${Number(n).toLocaleString('en-US')}`)
      .join(', ')}; ${m.edits} edits of each kind per watch process; ${m.iterations} runtime iterations`,
    `node ${m.node}, ${m.platform}, ${m.cpus} × ${m.cpuModel}, ${m.memoryMB.toLocaleString('en-US')} MB; load1 ${fmt(load?.median)} median (${fmtRange(load)}) during ${fmt(m.durationS)} s${m.commit ? `; commit ${m.commit}${m.changedPackageFiles ? ` + ${m.changedPackageFiles} changed files under packages/` : ''}` : ''}`,
  ];
}

export function renderText(result) {
  const s = summary(result);
  const out = [...heading(result.meta), '', table(HEADER, rows(result), ['', '', 'r', 'r', 'r', 'r']), '', s.line];
  for (const line of s.missed) out.push(`  ${line}`);
  for (const e of result.errors) out.push(`error: ${e}`);
  return out.join('\n') + '\n';
}

/** The targets alone, as a Markdown table: what, N, the measured value, the target, met or missed. */
export function renderTargetsMarkdown(result) {
  const show = (t) =>
    t.value === undefined || t.value === null ? '—' : t.unit === '×' ? fmtRatio(t.value) : t.unit === '%' ? pct(t.value) : `${fmt(t.value)} ${t.unit}`;
  const out = ['| target | measured | wanted | status |', '|---|---:|---|---|'];
  for (const t of result.targets)
    out.push(`| ${t.label.replace(/\|/g, '\\|')} | ${show(t)} | ${t.target.replace(/^<=/, '≤')} | ${t.status === 'missed' ? '**missed**' : t.status} |`);
  return out.join('\n') + '\n';
}

export function renderMarkdown(result) {
  const s = summary(result);
  const esc = (cell) => String(cell).replace(/\|/g, '\\|');
  const out = heading(result.meta).map((l) => `${l}  `);
  out.push('', `| ${HEADER.join(' | ')} |`, `|${HEADER.map((_, i) => ([2, 3, 4, 5].includes(i) ? '---:' : '---')).join('|')}|`);
  for (const r of rows(result)) out.push(`| ${r.map(esc).join(' | ')} |`);
  out.push('', `${s.line}.`);
  for (const line of s.missed) out.push(`- ${line}`);
  for (const e of result.errors) out.push(`- error: ${e.split('\n')[0]}`);
  return out.join('\n') + '\n';
}
