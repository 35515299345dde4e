import { checkSource, type CheckSourceResult } from '../../packages/compiler/src/routine/check-routine.js';
import type { Diagnostic } from '../../packages/compiler/src/diagnostics/diagnostic.js';

/** Checks a routine written inline: frontmatter lines (without fences) and a body. */
export function check(frontmatter: string, body = 'Do the work carefully.\n', file = '/pkg/routine.md'): CheckSourceResult {
  return checkSource(file, `---\n${frontmatter.replace(/^\n/, '')}${frontmatter.endsWith('\n') ? '' : '\n'}---\n${body}`);
}

export function diagnose(frontmatter: string, body?: string, file?: string): Diagnostic[] {
  return check(frontmatter, body, file).diagnostics;
}

/** `code rule line:column` for compact, exact assertions. */
export function summary(diagnostics: readonly Diagnostic[]): string[] {
  return diagnostics.map((d) => `${d.code} ${d.rule} ${d.line}:${d.column}`);
}

export function rules(diagnostics: readonly Diagnostic[]): string[] {
  return diagnostics.map((d) => d.rule);
}

/** Minimal valid frontmatter heads for each kind, to build cases on. */
export const HEAD = {
  instructions: 'name: notes.style\ndescription: House style for notes.\n',
  model: 'name: notes.answer\ndescription: Answers a question.\nmodel:\n  select:\n    operation: generation\n',
  classify: 'name: notes.triage\ndescription: Sorts a note.\nmodel:\n  select:\n    operation: classification\n',
  code: 'name: notes.count\ndescription: Counts notes.\nlanguage: javascript\n',
} as const;

export const CODE_BODY = 'export default function (input) {\n  return input;\n}\n';
