const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export type DecodeResult = { ok: true; text: string } | { ok: false; offset: number };

/**
 * Decodes UTF-8 strictly, drops a leading BOM and turns CRLF/CR into LF, so a Windows
 * checkout yields the same text (and the same bundle) as a POSIX one.
 */
export function decodeSourceText(input: Uint8Array | string): DecodeResult {
  let text: string;
  if (typeof input === 'string') text = input;
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

/** Byte offset of the first invalid UTF-8 sequence, for the diagnostic's position. */
function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    const need = b < 0x80 ? 0 : b >= 0xc2 && b < 0xe0 ? 1 : b >= 0xe0 && b < 0xf0 ? 2 : b >= 0xf0 && b < 0xf5 ? 3 : -1;
    if (need < 0) return i;
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) return i;
    }
    i += need + 1;
  }
  return i;
}

/** Text before a byte offset decoded leniently, to turn a byte offset into a character offset. */
export function charOffsetOfByte(bytes: Uint8Array, byteOffset: number): { text: string; offset: number } {
  const lenient = new TextDecoder('utf-8');
  const text = normalizeNewlines(lenient.decode(bytes));
  const before = normalizeNewlines(lenient.decode(bytes.subarray(0, byteOffset)));
  return { text, offset: before.length };
}
