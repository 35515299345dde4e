/**
 * Index of the first UTF-16 code unit of `text` that is half of no pair, or -1. Only for
 * naming it in a message: `String.prototype.isWellFormed` answers whether there is one.
 */
export function firstLoneSurrogate(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    const next = text.charCodeAt(i + 1);
    if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) i++;
    else return i;
  }
  return -1;
}
