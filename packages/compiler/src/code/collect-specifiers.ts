import type { Program } from 'acorn';
import type { Span } from '../diagnostics/reporter.js';

export interface StaticSpecifier {
  value: string;
  /** The string literal, quotes included. */
  span: Span;
}

/** CODE-4: `import … from`, `export … from` and `export * from`, which only occur at the top level. */
export function collectSpecifiers(program: Program): StaticSpecifier[] {
  const out: StaticSpecifier[] = [];
  for (const stmt of program.body) {
    const source =
      stmt.type === 'ImportDeclaration' || stmt.type === 'ExportAllDeclaration'
        ? stmt.source
        : stmt.type === 'ExportNamedDeclaration'
          ? stmt.source
          : undefined;
    if (source && typeof source.value === 'string') out.push({ value: source.value, span: { start: source.start, end: source.end } });
  }
  return out;
}
