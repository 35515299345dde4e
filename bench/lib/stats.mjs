// Small statistics and formatting helpers for the harness.

export function median(values) {
  const v = values.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return undefined;
  const mid = v.length >> 1;
  return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

/** {median, min, max, count} of the finite values, or undefined when there are none. */
export function summarize(values) {
  const v = values.filter((x) => Number.isFinite(x));
  if (v.length === 0) return undefined;
  return { median: median(v), min: Math.min(...v), max: Math.max(...v), count: v.length };
}

/** About three significant digits, with thousands separators: 1,234 / 12.3 / 1.23 / 0.123. */
export function fmt(value) {
  if (value === undefined || value === null || !Number.isFinite(value)) return '—';
  const a = Math.abs(value);
  if (a >= 100) return Math.round(value).toLocaleString('en-US');
  if (a >= 10) return value.toFixed(1);
  if (a >= 1) return value.toFixed(2);
  if (a >= 0.01) return value.toFixed(3);
  if (a === 0) return '0';
  return value.toPrecision(2);
}

export function fmtRange(s, unit = '') {
  if (!s) return '—';
  return `${fmt(s.min)}–${fmt(s.max)}${unit}`;
}

export function fmtRatio(value) {
  if (value === undefined || !Number.isFinite(value)) return '—';
  if (value >= 100) return `${Math.round(value).toLocaleString('en-US')}×`;
  return `${value >= 10 ? value.toFixed(1) : value.toFixed(2)}×`;
}

/** A plain-text table: columns padded to their widest cell; `align` 'r' right-aligns a column. */
export function table(header, rows, align = []) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i] ?? '').length)));
  const line = (cells) =>
    cells
      .map((c, i) => (align[i] === 'r' ? String(c ?? '').padStart(widths[i]) : String(c ?? '').padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}
