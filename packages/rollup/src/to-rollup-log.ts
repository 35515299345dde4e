import { codeFrame, type Diagnostic } from '@berrypack/compiler';
import type { RollupLog } from 'rollup';

/** A Rollup log made from a Berry diagnostic; `rule` and `hint` ride along for tools that read them. */
export interface BerryLog extends RollupLog {
  message: string;
  pluginCode: string;
  rule: string;
  hint?: string;
  loc: { file: string; line: number; column: number };
}

/**
 * Turns a diagnostic into a Rollup log. Rollup's `loc.column` is 0-based, the diagnostic's is
 * 1-based. `text` is the file's normalized text (LF line ends, no BOM); with it the log gets a frame.
 */
export function toRollupLog(diagnostic: Diagnostic, text?: string): BerryLog {
  const log: BerryLog = {
    message: `${diagnostic.code} ${diagnostic.message}`,
    pluginCode: diagnostic.code,
    rule: diagnostic.rule,
    loc: { file: diagnostic.file, line: diagnostic.line, column: diagnostic.column - 1 },
  };
  if (text !== undefined) {
    log.frame = codeFrame(text, { line: diagnostic.line, column: diagnostic.column }, { line: diagnostic.endLine, column: diagnostic.endColumn });
  }
  if (diagnostic.hint !== undefined) log.hint = diagnostic.hint;
  return log;
}
