/** Whether two byte arrays hold the same bytes (the same object, or equal length and content). */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a === b || (a.length === b.length && Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b));
}
