/** CODE-6: 1 MiB of packaged code (bodies plus captured modules, UTF-8 bytes). */
export const CODE_SIZE_LIMIT = 1_048_576;

export interface SizeAccount {
  total: number;
  limit: number;
  /** Sorted by size, largest first, then by path. */
  entries: { path: string; size: number }[];
}

/** Adds up the packaged code; the package is over the limit when `total > limit`. */
export function accountCodeSize(entries: readonly { path: string; size: number }[], limit: number = CODE_SIZE_LIMIT): SizeAccount {
  const sorted = entries.map(({ path, size }) => ({ path, size })).sort((a, b) => b.size - a.size || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { total: sorted.reduce((sum, e) => sum + e.size, 0), limit, entries: sorted };
}

/**
 * "Unexpected 1,100,000 bytes of packaged code, expected at most 1,048,576: largest are
 * lib/big.js (900,000), notes/count.md (150,000) and 2 more".
 */
export function sizeExcessMessage(account: SizeAccount, top = 5): string {
  const shown = account.entries.slice(0, Math.max(1, top));
  const rest = account.entries.length - shown.length;
  const list = shown.map((e) => `${e.path} (${groupDigits(e.size)})`);
  const joined =
    rest > 0 ? `${list.join(', ')} and ${rest} more` : list.length > 1 ? `${list.slice(0, -1).join(', ')} and ${list[list.length - 1]}` : list.join('');
  const head = `Unexpected ${groupDigits(account.total)} bytes of packaged code, expected at most ${groupDigits(account.limit)}`;
  if (list.length === 0) return head;
  return `${head}: ${shown.length === 1 && rest === 0 ? 'largest is' : 'largest are'} ${joined}`;
}

/** Thousands separators without Intl, so the message does not depend on the ICU build. */
function groupDigits(n: number): string {
  const sign = n < 0 ? '-' : '';
  return sign + String(Math.abs(Math.trunc(n))).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}
