import type { PathSegment } from './types.js';
import { isHighSurrogate, isLowSurrogate, hexEscape, SHORT_ESCAPES } from './chars.js';

/**
 * Writes segments in the RFC 9535 normalized path form (section 2.7): `$['a'][0]`.
 * Negative indices have no normalized form and are written as they are (`[-1]`); a name
 * holding a lone surrogate cannot be written in RFC 9535 at all and gets a `\uXXXX` escape.
 */
export function formatPath(segments: PathSegment[]): string {
  let out = '$';
  for (const segment of segments) {
    out += segment.kind === 'index' ? `[${segment.index}]` : `['${escapeName(segment.name)}']`;
  }
  return out;
}

function escapeName(name: string): string {
  let out = '';
  for (let i = 0; i < name.length; i++) {
    const ch = name[i]!;
    const code = name.charCodeAt(i);
    const short = SHORT_ESCAPES[ch];
    if (short !== undefined) out += short;
    else if (code < 0x20) out += hexEscape(code);
    else if (isHighSurrogate(code) && isLowSurrogate(name.charCodeAt(i + 1))) {
      out += name.slice(i, i + 2);
      i++;
    } else if (isHighSurrogate(code) || isLowSurrogate(code)) out += hexEscape(code);
    else out += ch;
  }
  return out;
}
