import { checkName } from '../routine/names.js';

/** Half-open range of UTF-16 offsets into a body. */
export interface BodySpan {
  start: number;
  end: number;
}

export type Marker = '{{' | '[[';

/**
 * One lexical piece of a model or instructions body. `text` is final literal text: TPL-5
 * escapes are already applied, so nothing downstream re-reads backslashes.
 */
export type ScanItem =
  | { kind: 'text'; text: string }
  /** `{{name}}`: `at` is the name inside the braces. */
  | { kind: 'include'; name: string; at: BodySpan }
  /** `[[name]]`: `raw` is the whole marker as written, kept in the template. */
  | { kind: 'dependency'; name: string; raw: string; at: BodySpan }
  /** `{{ $… }}`: `text` is the path as written, without the blank space around it. */
  | { kind: 'path'; text: string; at: BodySpan }
  /** `{{ env.NAME }}`: `name` is what follows `env.`, not yet validated. */
  | { kind: 'env'; name: string; at: BodySpan }
  /** Markers around anything else: `inner` is the trimmed content, `at` the whole marker. */
  | { kind: 'invalid'; marker: Marker; inner: string; at: BodySpan }
  /** An opening marker without its closing one on the same line; it is kept as literal text. */
  | { kind: 'unclosed'; marker: Marker; at: BodySpan };

const CLOSING: Record<Marker, string> = { '{{': '}}', '[[': ']]' };

/**
 * Splits a body into text and markers (TPL-1, TPL-2, TPL-3, TPL-5, TPL-6). A backslash
 * before `{{` or `[[` makes the marker literal; each pair of backslashes right before a
 * marker is one literal backslash (`\\{{x}}` is `\` then an include, `\\\{{x}}` is `\`
 * then the text `{{x}}`); other backslashes are ordinary text. A marker closes at the first
 * closing marker on its own line. Runs in time linear in the body.
 */
export function scanTemplate(body: string): ScanItem[] {
  const items: ScanItem[] = [];
  let text = '';
  const flush = (): void => {
    if (text !== '') items.push({ kind: 'text', text });
    text = '';
  };
  let pos = 0;
  // The next index of each token at or after `pos`, searched again only once passed: the scan stays linear.
  const found = new Map<string, number>();
  const next = (token: string): number => {
    let at = found.get(token);
    if (at === undefined || (at !== -1 && at < pos)) {
      at = body.indexOf(token, pos);
      found.set(token, at);
    }
    return at;
  };
  for (;;) {
    const brace = next('{{');
    const bracket = next('[[');
    if (brace === -1 && bracket === -1) break;
    const marker: Marker = bracket === -1 || (brace !== -1 && brace < bracket) ? '{{' : '[[';
    const at = marker === '{{' ? brace : bracket;
    let slashes = 0;
    while (at - slashes - 1 >= pos && body.charCodeAt(at - slashes - 1) === 0x5c /* \ */) slashes++;
    text += body.slice(pos, at - slashes) + '\\'.repeat(slashes >> 1);
    pos = at + 2;
    if (slashes % 2 === 1) {
      text += marker;
      continue;
    }
    const lineEnd = next('\n');
    const close = next(CLOSING[marker]);
    if (close === -1 || (lineEnd !== -1 && close > lineEnd)) {
      items.push({ kind: 'unclosed', marker, at: { start: at, end: at + 2 } });
      text += marker;
      continue;
    }
    flush();
    items.push(classify(body, marker, at, close));
    pos = close + 2;
  }
  text += body.slice(pos);
  flush();
  return items;
}

function classify(body: string, marker: Marker, open: number, close: number): ScanItem {
  const raw = body.slice(open + 2, close);
  const inner = raw.trim();
  const start = open + 2 + (raw.length - raw.trimStart().length);
  const at = { start, end: start + inner.length };
  const whole = { start: open, end: close + 2 };
  if (marker === '[[') {
    return isName(inner) ? { kind: 'dependency', name: inner, raw: body.slice(open, close + 2), at } : { kind: 'invalid', marker, inner, at: whole };
  }
  if (inner.startsWith('$')) return { kind: 'path', text: inner, at };
  if (inner.startsWith('env.')) return { kind: 'env', name: inner.slice(4), at };
  return isName(inner) ? { kind: 'include', name: inner, at } : { kind: 'invalid', marker, inner, at: whole };
}

function isName(text: string): boolean {
  return text !== '' && checkName(text) === undefined;
}
