/** The first path (in canonical key order) where two JSON values differ, with both values shortened. */
export function firstDifference(a: unknown, b: unknown, at = '$'): { path: string; a: string; b: string } | undefined {
  if (Object.is(a, b)) return undefined;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      const d = firstDifference(a[i], b[i], `${at}[${i}]`);
      if (d) return d;
    }
    return undefined;
  }
  if (isObject(a) && isObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    for (const key of keys) {
      const d = firstDifference(a[key], b[key], /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `${at}.${key}` : `${at}[${JSON.stringify(key)}]`);
      if (d) return d;
    }
    return undefined;
  }
  return { path: at, a: show(a), b: show(b) };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function show(v: unknown): string {
  const text = v === undefined ? '(absent)' : JSON.stringify(v);
  return text.length > 200 ? text.slice(0, 197) + '...' : text;
}
