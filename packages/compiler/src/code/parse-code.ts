import { parse, type Program } from 'acorn';
import type { CodeReporter } from './code-reporter.js';

/** CODE-1: the options every body and captured module is parsed with. */
export const PARSE_OPTIONS = { ecmaVersion: 2023, sourceType: 'module', locations: false } as const;

/** CODE-1: parses one body or module; a syntax error is reported at acorn's position. */
export function parseCode(cr: CodeReporter, role: 'body' | 'module'): Program | undefined {
  try {
    return parse(cr.code, PARSE_OPTIONS);
  } catch (error) {
    const { pos, raisedAt, message } = describeError(error, cr.code.length);
    // acorn appends "(line:column)" relative to the code it was given; the diagnostic has the real position.
    const reason = message.replace(/\s*\(\d+:\d+\)$/, '');
    const end = raisedAt > pos && !cr.code.slice(pos, raisedAt).includes('\n') ? raisedAt : pos;
    cr.report('BP3001', { start: pos, end }, `Unexpected syntax: ${reason}, expected an ECMAScript 2023 module`, { hint: syntaxHint(cr.code, role) });
    return undefined;
  }
}

function describeError(error: unknown, length: number): { pos: number; raisedAt: number; message: string } {
  const e = error as { pos?: unknown; raisedAt?: unknown; message?: unknown };
  const pos = typeof e.pos === 'number' ? Math.min(Math.max(0, e.pos), length) : 0;
  const raisedAt = typeof e.raisedAt === 'number' ? Math.min(e.raisedAt, length) : pos;
  // A RangeError from a parser without its own stack guard has no position.
  const message = error instanceof RangeError ? 'too deeply nested to parse' : typeof e.message === 'string' ? e.message : String(error);
  return { pos, raisedAt, message };
}

function syntaxHint(code: string, role: 'body' | 'module'): string | undefined {
  const trimmed = code.trimStart();
  if (role === 'body' && trimmed.startsWith('```')) return 'the body is raw JavaScript: remove the Markdown code fence';
  // Type annotations on parameters or type-only imports are the usual reasons TypeScript fails here.
  if (/^\s*(?:import|export)\s+type\s|^\s*interface\s+\w+\s*\{|\(\s*\w+\s*:\s*\w+/m.test(code)) {
    return 'TypeScript is not accepted: write plain JavaScript';
  }
  return undefined;
}
