import path from 'node:path';
import { sortDiagnostics, type Diagnostic } from '../diagnostics/diagnostic.js';
import { mapBody } from './body-map.js';
import { checkDefaultExport } from './check-default-export.js';
import { checkHostGlobals } from './check-host-globals.js';
import { checkModuleSyntax } from './check-module-syntax.js';
import { checkToolKeys } from './check-tool-keys.js';
import { CodeReporter } from './code-reporter.js';
import { collectSpecifiers, type StaticSpecifier } from './collect-specifiers.js';
import { captureGraph } from './module-graph.js';
import { parseCode } from './parse-code.js';
import { analyzeScopes } from './scope.js';
import type { CodeContext, CodeRoutineInput, CodeRoutineResult } from './types.js';

/** What a code routine's body alone decides (CODE-1..3, 5, 7): the same for every state of its modules. */
export interface CheckedCodeBody {
  bodySize: number;
  map: CodeRoutineResult['map'];
  diagnostics: readonly Diagnostic[];
  /** Its static imports; undefined when the body does not parse. */
  specifiers: readonly StaticSpecifier[] | undefined;
}

/** Checks a code routine's body on its own; `analyzeCodeRoutine` adds the modules it reaches. */
export function checkCodeBody(input: CodeRoutineInput): CheckedCodeBody {
  const { body, bodyStart } = bodyOf(input);
  const cr = new CodeReporter(input.file, input.lines, body, bodyStart);
  const map = mapBody(input.text, bodyStart, input.sourcePath);
  const bodySize = Buffer.byteLength(body, 'utf8');
  const program = parseCode(cr, 'body');
  if (!program) return { bodySize, map, diagnostics: cr.diagnostics, specifiers: undefined };
  const scopes = analyzeScopes(program);
  checkModuleSyntax(scopes, cr, 'body');
  checkHostGlobals(scopes, cr);
  const fn = checkDefaultExport(program, scopes, cr);
  checkToolKeys(fn, scopes, input.declaredTools, input.catalog, cr);
  return { bodySize, map, diagnostics: cr.diagnostics, specifiers: collectSpecifiers(program) };
}

/**
 * Checks a code routine's body (CODE-1..5, CODE-7), captures the modules it reaches by
 * static imports (CODE-4) and maps the body back to its `.md` file. Positions in the body
 * are reported in the `.md` file; positions in a module in that module. Sizes are reported,
 * not judged: CODE-6 is a package-wide total (see `accountCodeSize`). `checked` is the body's
 * own check when known (a rebuild after an edit of a module the body imports).
 */
export function analyzeCodeRoutine(input: CodeRoutineInput, ctx: CodeContext, checked: CheckedCodeBody = checkCodeBody(input)): CodeRoutineResult {
  const { bodySize, map, specifiers } = checked;
  if (!specifiers) return { bodySize, imports: [], modules: [], map, diagnostics: [...checked.diagnostics], files: [] };
  const { body, bodyStart } = bodyOf(input);
  const cr = new CodeReporter(input.file, input.lines, body, bodyStart);
  const graph = captureGraph(specifiers, bodyDirectory(input, ctx.packageRoot), cr, ctx);
  return {
    bodySize,
    imports: graph.direct,
    modules: graph.modules,
    map,
    diagnostics: sortDiagnostics([...checked.diagnostics, ...cr.diagnostics, ...graph.diagnostics]),
    files: graph.files,
  };
}

function bodyOf(input: CodeRoutineInput): { body: string; bodyStart: number } {
  const bodyStart = Math.max(0, Math.min(input.bodyStart, input.text.length));
  return { body: input.text.slice(bodyStart), bodyStart };
}

/**
 * The `.md` file's directory. The package-relative path places it inside the realpath'd
 * root even when the caller's absolute path runs through a symbolic link (macOS `/var`).
 */
function bodyDirectory(input: CodeRoutineInput, packageRoot: string): string {
  const rel = input.sourcePath;
  if (rel === '' || path.isAbsolute(rel) || rel === '..' || rel.startsWith('../')) return path.dirname(input.file);
  return path.dirname(path.resolve(packageRoot, rel));
}
