/**
 * Where the cursor is in a routine, read line by line so it works while the text being typed
 * does not parse: the frontmatter key path above it (by indentation, `- key:` items included)
 * and whether a key, a value or a list item is being written; or a body marker.
 */
export type CursorContext =
  | { where: 'key'; path: string[]; prefix: string; indent: number; line: number }
  | { where: 'value'; path: string[]; prefix: string; line: number }
  | { where: 'body'; marker: '{{' | '[['; prefix: string }
  | { where: 'none' };

interface KeyLine {
  indent: number;
  key: string;
  dash: number;
}

function keyLine(line: string): KeyLine | undefined {
  const m = /^( *)(- +)?([^\s:#'"][^:#]*?|'[^']*'|"[^"]*"):(?:\s|$)/.exec(line);
  if (!m) return undefined;
  return { indent: m[1]!.length + (m[2]?.length ?? 0), key: m[3]!.replace(/^['"]|['"]$/g, ''), dash: m[2] ? m[1]!.length : -1 };
}

/** The closing fence's line, or -1 when the text has no frontmatter. */
export function fenceLine(lines: readonly string[]): number {
  if ((lines[0] ?? '').replace(/^\uFEFF/, '').trimEnd() !== '---') return -1;
  for (let i = 1; i < lines.length; i++) if (lines[i]!.trimEnd() === '---') return i;
  return lines.length; // still being written: everything below is frontmatter
}

/** Parent keys of a line whose content starts at column `indent`. */
export function parentPath(lines: readonly string[], line: number, indent: number): string[] {
  const path: string[] = [];
  let limit = indent;
  for (let i = line - 1; i >= 1 && limit > 0; i--) {
    const text = lines[i]!;
    if (text.trim() === '' || text.trimStart().startsWith('#')) continue;
    const k = keyLine(text);
    const start = text.length - text.trimStart().length;
    if (k && k.indent < limit) {
      path.unshift(k.key);
      limit = k.dash >= 0 ? k.dash : k.indent;
    } else if (start < limit) {
      limit = start; // a list item or scalar line at a shallower level
    }
  }
  return path;
}

export function cursorContext(normalized: string, line: number, character: number): CursorContext {
  const lines = normalized.split('\n');
  const fence = fenceLine(lines);
  if (fence === -1 || line === 0 || line === fence) return { where: 'none' };
  const before = (lines[line] ?? '').slice(0, character);
  if (line > fence) {
    const m = /(\{\{|\[\[)\s*([A-Za-z0-9_.-]*)$/.exec(before);
    return m ? { where: 'body', marker: m[1] as '{{' | '[[', prefix: m[2]! } : { where: 'none' };
  }
  let m = /^( *)(- +)([^:#]*)$/.exec(before);
  if (m) {
    // A list item value (`  - na`), or the key of a `- key: …` item being typed.
    const dash = m[1]!.length;
    return { where: 'value', path: parentPath(lines, line, dash), prefix: m[3]!.trim(), line };
  }
  m = /^( *)(- +)?([^\s:#'"][^:#]*?):\s+(.*)$/.exec(before);
  if (m) {
    const indent = m[1]!.length + (m[2]?.length ?? 0);
    return { where: 'value', path: [...parentPath(lines, line, indent), m[3]!], prefix: m[4]!.replace(/^['"]/, ''), line };
  }
  m = /^( *)(- +)?([^\s:#]*)$/.exec(before);
  if (m) {
    const indent = m[1]!.length + (m[2]?.length ?? 0);
    return { where: 'key', path: parentPath(lines, line, indent), prefix: m[3]!, indent, line };
  }
  return { where: 'none' };
}

/** `tools.notes.search.limits` → `tools.*.limits`; `next.cases.yes` → `next.cases.*`. */
export function tablePath(path: readonly string[]): string {
  const p = [...path];
  if (p[0] === 'tools' && p.length >= 2) p[1] = '*';
  if (p[0] === 'next' && p[1] === 'cases' && p.length >= 3) p[2] = '*';
  return p.join('.');
}

/** The `type:` written beside the cursor's key, in the same mapping. */
export function siblingType(normalized: string, line: number, indent: number): string | undefined {
  const lines = normalized.split('\n');
  const fence = fenceLine(lines);
  const own = (i: number) => {
    const t = lines[i]!;
    return t.trim() === '' ? undefined : t.length - t.trimStart().length;
  };
  for (const step of [-1, 1]) {
    for (let i = line + step; i >= 1 && i < fence; i += step) {
      const at = own(i);
      if (at === undefined) continue;
      if (at < indent) break;
      const m = at === indent ? /^\s*type:\s*['"]?([a-z]+)/.exec(lines[i]!) : null;
      if (m) return m[1];
    }
  }
  return undefined;
}
