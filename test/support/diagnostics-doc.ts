import type { CodeInfo } from '../../packages/compiler/src/diagnostics/codes.js';

/** docs/diagnostics.md, generated from the code registry so the two never drift. */
export function renderDiagnosticsDoc(codes: Readonly<Record<string, CodeInfo>>): string {
  const out: string[] = [
    '# Diagnostics reference',
    '',
    '<!-- Generated from packages/compiler/src/diagnostics/codes/*.ts by `npm run docs`; do not edit by hand. -->',
    '',
    'Every diagnostic berrypack reports has this shape (see CONTRACTS.md):',
    '',
    '```ts',
    '{ code: "BP1050", rule: "SRC-6", severity: "error" | "warning" | "info",',
    '  message, hint?, file, line, column, endLine, endColumn, related? }',
    '```',
    '',
    '`line` and `column` are 1-based; columns count UTF-16 code units; `endLine`/`endColumn` mark the',
    'position just after the offending text. `code` is stable; `rule` is the ID in the rules catalogue',
    '(`docs/rules-coverage.md` maps rules to codes and tests). Codes are grouped: BP10xx source files,',
    'BP11xx names and kinds, BP12xx schemas, BP13xx models and classification, BP14xx tools, next,',
    'port and other fields, BP15xx JSONPath, BP20xx plugin.json and packages, BP21xx references,',
    'BP22xx bodies and templates, BP30xx code routines, BP40xx bundles, BP60xx method documents,',
    'BP9xxx reading inputs.',
    '',
    '| code | rule | severity | meaning |',
    '|---|---|---|---|',
  ];
  const entries = Object.entries(codes).sort(([a], [b]) => (a < b ? -1 : 1));
  for (const [code, info] of entries) out.push(`| [${code}](#${code.toLowerCase()}) | ${info.rule} | ${info.severity} | ${info.title.replace(/\|/g, '\\|')} |`);
  out.push('');
  for (const [code, info] of entries) {
    out.push(`## ${code}`, '', `**${info.rule}**, ${info.severity}: ${info.title}.`, '');
    if (info.example !== undefined)
      out.push('Example (checked by `test/diagnostic-codes.test.ts`):', '', '````markdown', info.example.replace(/\n$/, ''), '````', '');
    else if (info.needs !== undefined) out.push(`Needs ${info.needs}.`, '');
  }
  return out.join('\n');
}
