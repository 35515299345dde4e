/**
 * Bundles and journals write canonical JSON, which refuses nesting deeper than 1000 levels
 * (MAX_JSON_DEPTH in @berrypack/compiler); a value that could not be recorded is refused
 * where it crosses the sandbox boundary instead.
 */
export const MAX_JSON_DEPTH = 1000;

/** Nesting depth of JSON text (arrays and objects), counted without parsing it. */
export function jsonDepthExceeds(text: string, max: number = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return false;
}
