import path from 'node:path';
import type { Diagnostic } from '@berrypack/compiler';
import { codeFrame } from '@berrypack/compiler/internal-adapter';

/**
 * A Rollup log made from a Berry diagnostic; `rule` and `hint` ride along for tools that read
 * them. Declared without Rollup's types (an optional peer); it is a `RollupLog`.
 */
export interface BerryLog {
  message: string;
  frame?: string;
  id: string;
  plugin: string;
  pluginCode: string;
  rule: string;
  hint?: string;
  loc: { file: string; line: number; column: number };
}

/**
 * Turns a diagnostic into a Rollup log. Rollup's `loc.column` is 0-based, the diagnostic's is
 * 1-based. `text` is the file's normalized text (LF line ends, no BOM); with it the log gets a
 * frame. The hint goes into the message too: no host prints a log's `hint`. With `inline`, the
 * message also carries the place and the frame, for hosts that print only the message of a
 * warning (Vite).
 */
export function toRollupLog(diagnostic: Diagnostic, text?: string, inline = false): BerryLog {
  const frame =
    text === undefined
      ? undefined
      : codeFrame(text, { line: diagnostic.line, column: diagnostic.column }, { line: diagnostic.endLine, column: diagnostic.endColumn });
  let message = `${diagnostic.code} ${diagnostic.message}`;
  if (inline) message += `\n  at ${shown(diagnostic.file)}:${diagnostic.line}:${diagnostic.column}${frame === undefined ? '' : `\n${frame}`}`;
  if (diagnostic.hint !== undefined) message += `\nhint: ${diagnostic.hint}`;
  // `id` and `plugin` set here: Vite's dev server keeps a log that has a `pluginCode` as it is,
  // and prints its `File:` line from `id`.
  const log: BerryLog = {
    message,
    id: diagnostic.file,
    plugin: 'berrypack',
    pluginCode: diagnostic.code,
    rule: diagnostic.rule,
    loc: { file: diagnostic.file, line: diagnostic.line, column: diagnostic.column - 1 },
  };
  if (frame !== undefined) log.frame = frame;
  if (diagnostic.hint !== undefined) log.hint = diagnostic.hint;
  return log;
}

function shown(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative.startsWith('..') || path.isAbsolute(relative) ? file : relative.split(path.sep).join('/');
}
