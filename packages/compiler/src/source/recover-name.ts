/**
 * The name a source that failed to parse declares, read leniently from its frontmatter lines
 * (`name: x`, quoted or not), so that references to it are not reported as unknown names: the
 * parse error is the root cause, and a cascade of "unknown `next` target" would bury it.
 */
export function recoverName(text: string): string | undefined {
  const lines = text.split('\n');
  if (lines[0]?.trimEnd() !== '---') return undefined;
  for (let i = 1; i < lines.length && lines[i]!.trimEnd() !== '---'; i++) {
    const m = /^name:[ \t]*(['"]?)([A-Za-z0-9_][A-Za-z0-9_.-]*)\1[ \t]*(?:#.*)?$/.exec(lines[i]!.trimEnd());
    if (m) return m[2];
  }
  return undefined;
}
