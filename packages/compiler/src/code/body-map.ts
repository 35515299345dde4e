import MagicString from 'magic-string';

/** A version 3 source map as JSON, without magic-string's class methods. */
export interface BodySourceMap {
  version: 3;
  sources: string[];
  names: string[];
  mappings: string;
  file?: string;
}

/**
 * Maps the body (the code that runs) back to its `.md` file: cutting the frontmatter out
 * with magic-string keeps every body character at its line and column in the file, so a
 * run-time error at body line L points at `.md` line (first body line + L - 1).
 *
 * Lean: one segment per line (a reader adds the distance from it, and a body keeps every
 * column) and no `sourcesContent` (the `.md` text is in the bundle's `files` already).
 */
export function mapBody(text: string, bodyStart: number, sourcePath: string): BodySourceMap {
  const s = new MagicString(text);
  const cut = Math.max(0, Math.min(bodyStart, text.length));
  if (cut > 0) s.remove(0, cut);
  const m = s.generateMap({ source: sourcePath, includeContent: false, hires: false });
  // Keys in canonical (sorted) order, so the bundle's canonical JSON writes the map as it is, without a sorted copy.
  const map: BodySourceMap = { mappings: m.mappings, names: [...m.names], sources: [...m.sources], version: 3 };
  return m.file === undefined ? map : { file: m.file, ...map };
}
