import type { Diagnostic } from '@berrypack/compiler';
import { LineIndex } from '@berrypack/compiler/internal-adapter';
import type { Location, PartialMessage, PartialNote } from 'esbuild';

export const PLUGIN_NAME = 'berrypack';

/**
 * Converts a diagnostic (1-based line, 1-based UTF-16 column) into an esbuild message, whose
 * `location.column` and `length` count UTF-8 bytes from 0. `text` is the normalized text of
 * `diagnostic.file` (LF line ends, no BOM), as the compiler positioned it; `readText` gives the
 * text of the files that `related` names. Without a text, columns are taken as they are.
 */
export function toEsbuildMessage(
  diagnostic: Diagnostic,
  text: string | undefined,
  readText: (file: string) => string | undefined = (file) => (file === diagnostic.file ? text : undefined),
): PartialMessage {
  const notes: PartialNote[] = [];
  if (diagnostic.hint !== undefined) notes.push({ text: diagnostic.hint });
  for (const related of diagnostic.related ?? []) {
    notes.push({
      text: related.message,
      location: toLocation(related.file, readText(related.file), related.line, related.column, related.line, related.column),
    });
  }
  return {
    text: `${diagnostic.code} ${diagnostic.message}`,
    location: toLocation(diagnostic.file, text, diagnostic.line, diagnostic.column, diagnostic.endLine, diagnostic.endColumn),
    notes,
    pluginName: PLUGIN_NAME,
    detail: { code: diagnostic.code, rule: diagnostic.rule },
  };
}

function toLocation(file: string, text: string | undefined, line: number, column: number, endLine: number, endColumn: number): Partial<Location> {
  const lineText = text === undefined ? '' : new LineIndex(text).lineText(line);
  const start = Math.max(0, column - 1);
  // A span that runs onto later lines is shown up to the end of its first line.
  const end = endLine === line ? Math.max(start, endColumn - 1) : Math.max(start, lineText.length);
  if (text === undefined) return { file, namespace: 'file', line, column: start, length: Math.max(1, end - start), lineText };
  return {
    file,
    namespace: 'file',
    line,
    column: utf8Length(lineText.slice(0, start)),
    length: Math.max(1, utf8Length(lineText.slice(start, end))),
    lineText,
  };
}

function utf8Length(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}
