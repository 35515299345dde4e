import path from 'node:path';
import { sortDiagnostics } from '../diagnostics/diagnostic.js';
import { mapBody } from './body-map.js';
import { checkDefaultExport } from './check-default-export.js';
import { checkHostGlobals } from './check-host-globals.js';
import { checkModuleSyntax } from './check-module-syntax.js';
import { checkToolKeys } from './check-tool-keys.js';
import { CodeReporter } from './code-reporter.js';
import { collectSpecifiers } from './collect-specifiers.js';
import { captureGraph } from './module-graph.js';
import { parseCode } from './parse-code.js';
import { analyzeScopes } from './scope.js';
import type { CodeContext, CodeRoutineInput, CodeRoutineResult } from './types.js';

/**
 * Checks a code routine's body (CODE-1..5, CODE-7), captures the modules it reaches by
 * static imports (CODE-4) and maps the body back to its `.md` file. Positions in the body
 * are reported in the `.md` file; positions in a module in that module. Sizes are reported,
 * not judged: CODE-6 is a package-wide total (see `accountCodeSize`).
 */
export function analyzeCodeRoutine(input: CodeRoutineInput, ctx: CodeContext): CodeRoutineResult {
  const bodyStart = Math.max(0, Math.min(input.bodyStart, input.text.length));
  const body = input.text.slice(bodyStart);
  const cr = new CodeReporter(input.file, input.lines, body, bodyStart);
  const map = mapBody(input.text, bodyStart, input.sourcePath);
  const bodySize = Buffer.byteLength(body, 'utf8');
  const program = parseCode(cr, 'body');
  if (!program) return { bodySize, imports: [], modules: [], map, diagnostics: cr.diagnostics, files: [] };

  const scopes = analyzeScopes(program);
  checkModuleSyntax(program, cr, 'body');
  checkHostGlobals(scopes, cr);
  const fn = checkDefaultExport(program, scopes, cr);
  checkToolKeys(fn, scopes, input.declaredTools, input.catalog, cr);

  const graph = captureGraph(collectSpecifiers(program), bodyDirectory(input, ctx.packageRoot), cr, ctx);
  return {
    bodySize,
    imports: graph.direct,
    modules: graph.modules,
    map,
    diagnostics: sortDiagnostics([...cr.diagnostics, ...graph.diagnostics]),
    files: graph.files,
  };
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
