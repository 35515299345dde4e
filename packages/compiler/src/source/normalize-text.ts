import type { Code } from '../diagnostics/codes.js';
import { LineIndex } from '../diagnostics/line-index.js';
import { Reporter } from '../diagnostics/reporter.js';
import { firstInvalidUtf8 } from '../text/first-invalid-utf8.js';

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The most UTF-8 bytes that can become a JavaScript string: V8's longest string is 0x1fffffe8
 * UTF-16 code units, and a UTF-8 byte never decodes to more than one unit. A larger file
 * cannot be decoded at all; without this bound the decoder throws instead of reporting.
 */
export const MAX_TEXT_BYTES = 0x1fff_ffe8;

/** `tooLarge`: the file is longer than MAX_TEXT_BYTES (then `offset` is 0). */
export type DecodeResult = { ok: true; text: string } | { ok: false; offset: number; tooLarge?: true };

/**
 * Decodes UTF-8 strictly, drops a leading BOM and turns CRLF/CR into LF, so a Windows
 * checkout yields the same text (and the same bundle) as a POSIX one.
 */
export function decodeSourceText(input: Uint8Array | string): DecodeResult {
  let text: string;
  if (typeof input === 'string') text = input;
  else if (input.length > MAX_TEXT_BYTES) return { ok: false, offset: 0, tooLarge: true };
  else {
    try {
      text = decoder.decode(input);
    } catch {
      return { ok: false, offset: firstInvalidUtf8(input) };
    }
  }
  return { ok: true, text: normalizeNewlines(text) };
}

export function normalizeNewlines(text: string): string {
  const noBom = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  return noBom.includes('\r') ? noBom.replace(/\r\n?/g, '\n') : noBom;
}

/**
 * The text up to a byte offset (and a little past it) decoded leniently, to turn the offset
 * into a character offset and a position. Only that prefix: the rest of a file that failed
 * to decode is never needed, and may be too large to decode at all.
 */
export function charOffsetOfByte(bytes: Uint8Array, byteOffset: number): { text: string; offset: number } {
  const lenient = new TextDecoder('utf-8');
  const text = normalizeNewlines(lenient.decode(bytes.subarray(0, Math.min(bytes.length, byteOffset + 4))));
  const before = normalizeNewlines(lenient.decode(bytes.subarray(0, byteOffset)));
  return { text, offset: before.length };
}

/** The message for a file that is too large to be text (see MAX_TEXT_BYTES). */
export function tooLargeMessage(bytes: number): string {
  return `Unexpected file of ${bytes} bytes, expected at most ${MAX_TEXT_BYTES} bytes of text`;
}

/**
 * A reporter for `file` holding the one diagnostic of bytes that are not text: a file too
 * large to decode (at 1:1), or invalid UTF-8 (at the first offending byte). `hints` name the
 * likely fix for each case.
 */
export function reportUndecodable(
  file: string,
  bytes: Uint8Array,
  failure: { offset: number; tooLarge?: true },
  code: Code,
  hints: { tooLarge: string; invalid: string },
): Reporter {
  const { text, offset } = charOffsetOfByte(bytes, failure.offset);
  const reporter = new Reporter(file, new LineIndex(text));
  if (failure.tooLarge) reporter.report(code, { start: 0, end: 0 }, tooLargeMessage(bytes.length), { hint: hints.tooLarge });
  else
    reporter.report(code, { start: offset, end: offset + 1 }, `Unexpected invalid UTF-8 at byte ${failure.offset}, expected UTF-8 text`, {
      hint: hints.invalid,
    });
  return reporter;
}
