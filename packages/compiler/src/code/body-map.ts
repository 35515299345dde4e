/** A version 3 source map as JSON. */
export interface BodySourceMap {
  version: 3;
  sources: string[];
  names: string[];
  mappings: string;
  file?: string;
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/**
 * Maps the body (the code that runs) back to its `.md` file: the body keeps every character at
 * its line and column in the file, so a run-time error at body line L points at `.md` line
 * (first body line + L - 1).
 *
 * Lean: one segment per non-empty line, at its first column (a reader adds the distance from
 * it), and no `sourcesContent` (the `.md` text is in the bundle's `files` already). The bytes
 * are those magic-string gave for the same cut (`remove(0, bodyStart)`, `hires: false`), which
 * this replaced on a cold build's path; test/body-map.test.ts compares both.
 */
export function mapBody(text: string, bodyStart: number, sourcePath: string): BodySourceMap {
  const cut = Math.max(0, Math.min(bodyStart, text.length));
  // The cut's line and column in the file.
  let line = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < cut; i = text.indexOf('\n', i + 1)) line++;
  let column = cut - (text.lastIndexOf('\n', cut - 1) + 1);
  let mappings = '';
  let previousLine = 0;
  let previousColumn = 0;
  for (let start = cut; start < text.length; line++, column = 0) {
    const end = text.indexOf('\n', start);
    const lineEnd = end === -1 ? text.length : end;
    // A segment [generated column 0, source 0, line, column] on each non-empty line, fields relative to the last segment's.
    if (lineEnd > start) {
      mappings += 'AA' + vlq(line - previousLine) + vlq(column - previousColumn);
      previousLine = line;
      previousColumn = column;
    }
    if (end === -1) break;
    mappings += ';';
    start = end + 1;
  }
  return { version: 3, sources: [sourcePath.split(/[/\\]/).join('/')], names: [], mappings };
}

/** One Base64 VLQ field of a source map segment. */
function vlq(value: number): string {
  let rest = value < 0 ? (-value << 1) | 1 : value << 1;
  let out = '';
  do {
    let digit = rest & 31;
    rest >>>= 5;
    if (rest > 0) digit |= 32;
    out += BASE64[digit];
  } while (rest > 0);
  return out;
}
