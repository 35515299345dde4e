/** Levenshtein distance, bounded for speed on short field names. */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = prev[j]!;
      prev[j] = Math.min(above + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = above;
    }
  }
  return prev[b.length]!;
}

/** The closest candidate within a distance that scales with the word, or undefined. */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  const limit = Math.max(1, Math.floor(word.length / 3));
  let best: string | undefined;
  let bestDistance = Infinity;
  const lower = word.toLowerCase();
  for (const candidate of candidates) {
    // The distance is at least the difference in length: most candidates of a valid key end here.
    if (Math.abs(candidate.length - word.length) > limit) continue;
    const d = candidate.toLowerCase() === lower ? 0.5 : editDistance(lower, candidate.toLowerCase());
    if (d < bestDistance && d <= limit) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

/** Up to `max` candidates sorted by distance (for "did you mean one of …"). */
export function nearest(word: string, candidates: Iterable<string>, max = 3): string[] {
  const scored = [...candidates]
    .map((c) => ({ c, d: editDistance(word.toLowerCase(), c.toLowerCase()) }))
    .filter(({ c, d }) => d <= Math.max(2, Math.floor(Math.max(word.length, c.length) / 2)))
    .sort((x, y) => x.d - y.d || (x.c < y.c ? -1 : 1));
  return scored.slice(0, max).map(({ c }) => c);
}

export function quoteList(items: readonly string[]): string {
  const q = items.map((i) => '`' + i + '`');
  if (q.length <= 1) return q.join('');
  return q.slice(0, -1).join(', ') + ' or ' + q[q.length - 1];
}
