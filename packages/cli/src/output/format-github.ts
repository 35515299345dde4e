import type { Diagnostic } from '@berrypack/compiler';

/** GitHub workflow commands: one `::error`/`::warning`/`::notice` line per diagnostic. */
export function formatGithub(diagnostics: readonly Diagnostic[]): string {
  return diagnostics
    .map((d) => {
      const kind = d.severity === 'error' ? 'error' : d.severity === 'warning' ? 'warning' : 'notice';
      const props = [
        `file=${prop(d.file)}`,
        `line=${d.line}`,
        `col=${d.column}`,
        `endLine=${d.endLine}`,
        `endColumn=${d.endColumn}`,
        `title=${prop(`${d.code} ${d.rule}`)}`,
      ];
      const message = d.hint ? `${d.message} (hint: ${d.hint})` : d.message;
      return `::${kind} ${props.join(',')}::${data(message)}\n`;
    })
    .join('');
}

function data(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

function prop(s: string): string {
  return data(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}
