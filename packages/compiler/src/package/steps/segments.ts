import type { TemplateSegment } from '../../reference/resolve-package.js';

/**
 * Turns decoded template segments back into body source text, escaping markers, so an
 * exported instructions body can be included by an importer and re-parsed there (TPL-1, TPL-5).
 */
export function segmentsToSource(segments: readonly TemplateSegment[]): string {
  let out = '';
  segments.forEach((segment, i) => {
    if ('text' in segment) {
      const escaped = escapeText(segment.text);
      // Backslashes that end the text would otherwise escape the marker that follows.
      out += i + 1 < segments.length ? escaped.replace(/(?<!\\)(\\+)$/, '$1$1') : escaped;
    } else if ('path' in segment) out += `{{ ${segment.path} }}`;
    else out += `{{ env.${segment.env} }}`;
  });
  return out;
}

/** A backslash before `{{`/`[[` makes it literal; backslashes right before a marker are doubled. */
function escapeText(text: string): string {
  return text.replace(/(?<!\\)(\\*)(\{\{|\[\[)/g, (_, slashes: string, marker: string) => slashes + slashes + '\\' + marker);
}
