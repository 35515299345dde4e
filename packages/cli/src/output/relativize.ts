import type { Diagnostic } from '@berrypack/compiler';
import { displayPath } from '../paths.js';

export function relativize(diagnostics: readonly Diagnostic[], cwd = process.cwd()): Diagnostic[] {
  return diagnostics.map((d) => {
    const out: Diagnostic = { ...d, file: displayPath(d.file, cwd) };
    if (d.related) out.related = d.related.map((r) => ({ ...r, file: displayPath(r.file, cwd) }));
    return out;
  });
}
