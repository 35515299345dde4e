import path from 'node:path';
import type { Diagnostic } from '@berrypack/compiler';
import { codeFrame } from '@berrypack/compiler/internal-adapter';

/** A webpack (or Rspack) error made from a Berry diagnostic; `code`, `rule` and `hint` ride along for tools that read them. */
export interface BerryWebpackError extends Error {
  /** The diagnostic's file, relative to the compiler's context when inside it, with `/`. */
  file: string;
  /** webpack's location: 1-based lines, 0-based columns. */
  loc: { start: { line: number; column: number }; end: { line: number; column: number } };
  code: string;
  rule: string;
  hint?: string;
  hideStack: boolean;
}

/**
 * Turns a diagnostic into an instance of the host's `WebpackError`, positioned as webpack's own
 * errors are (`loc` with 0-based columns, the diagnostic's are 1-based). The message carries the
 * code frame and the hint, as webpack prints a parse error's frame, because the stats output shows
 * `details` only for the first few errors. `text` is the file's normalized text (LF, no BOM).
 */
export function toWebpackError(
  WebpackError: new (message?: string) => Error,
  diagnostic: Diagnostic,
  text: string | undefined,
  context: string,
): BerryWebpackError {
  const parts = [`${diagnostic.code} ${diagnostic.message}`];
  if (text !== undefined) {
    parts.push(codeFrame(text, { line: diagnostic.line, column: diagnostic.column }, { line: diagnostic.endLine, column: diagnostic.endColumn }));
  }
  if (diagnostic.hint !== undefined) parts.push(`hint: ${diagnostic.hint}`);
  for (const related of diagnostic.related ?? []) parts.push(`${displayPath(related.file, context)}:${related.line}:${related.column}: ${related.message}`);
  const error = Object.assign(new WebpackError(parts.join('\n\n')), {
    file: displayPath(diagnostic.file, context),
    loc: { start: { line: diagnostic.line, column: diagnostic.column - 1 }, end: { line: diagnostic.endLine, column: diagnostic.endColumn - 1 } },
    code: diagnostic.code,
    rule: diagnostic.rule,
    hideStack: true,
  });
  return diagnostic.hint === undefined ? error : Object.assign(error, { hint: diagnostic.hint });
}

/** Relative to `context` with `/` when inside it, absolute otherwise (as the CLI prints paths). */
export function displayPath(file: string, context: string): string {
  const relative = path.relative(context, file);
  const outside = relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative);
  return outside ? file : relative.split(path.sep).join('/');
}
