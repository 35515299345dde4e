import { codeFrame } from '@berrypack/compiler';
import { escapeChar, escapeLine } from '@berrypack/compiler/internal-cli';

/**
 * Terminal-safe text output. Everything the CLI prints in text mode that a package, its code
 * or a bundle could have chosen (messages, hints, keys, names, paths, code lines, thrown
 * messages, run outputs) goes through here, so that it cannot drive the user's terminal: an
 * ESC or C1 sequence could recolour or rewrite lines, set the window title or write the
 * clipboard (OSC 52); a CR or line feed could overwrite or forge lines; a bidi override could
 * make the text read differently from what it is ("Trojan Source", CVE-2021-42574).
 *
 * Each such character is shown as `\uXXXX` (four lowercase hex digits, as JSON writes C0
 * controls): the C0 controls U+0000–U+001F except tab, DEL U+007F, the C1 controls
 * U+0080–U+009F, and the bidi embeddings, overrides and isolates U+202A–U+202E and
 * U+2066–U+2069. A line feed is kept only in `multiline` text that the CLI itself lays out
 * as several lines (a JSON value printed with indentation, a method step's request); inside
 * a single-line value (a message, a key, a path) it is escaped too. A backslash is not
 * escaped, so the escape is for display, not a reversible encoding: `--json` is the
 * machine-readable form. The CLI's own colours are added after escaping.
 */

const UNSAFE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const UNSAFE_MULTILINE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

export interface TerminalSafeOptions {
  /** Keep line feeds (the value is laid out over several lines by the CLI); default false. */
  multiline?: boolean;
}

/** The value as text with every terminal control, DEL, C1 and bidi control escaped. */
export function terminalSafe(value: unknown, options: TerminalSafeOptions = {}): string {
  const text = typeof value === 'string' ? value : String(value);
  const pattern = options.multiline ? UNSAFE_MULTILINE : UNSAFE;
  pattern.lastIndex = 0;
  return pattern.test(text) ? text.replace(pattern, escapeChar) : text;
}

/** The compiler's code frame, which escapes the same characters in the lines it shows. */
export { codeFrame as terminalCodeFrame, escapeChar, escapeLine };
