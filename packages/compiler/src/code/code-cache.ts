import { sha256Hex } from '../bundle/digest.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { LineIndex } from '../diagnostics/line-index.js';
import { checkHostGlobals } from './check-host-globals.js';
import { checkModuleSyntax } from './check-module-syntax.js';
import { CodeReporter } from './code-reporter.js';
import { collectSpecifiers, type StaticSpecifier } from './collect-specifiers.js';
import { parseCode } from './parse-code.js';
import { analyzeScopes } from './scope.js';

/** What a supporting module's text alone decides (CODE-1, CODE-3, CODE-5 and its specifiers). */
export interface ModuleAnalysis {
  lines: LineIndex;
  diagnostics: readonly Diagnostic[];
  specifiers: readonly StaticSpecifier[];
}

export function analyzeModuleText(file: string, text: string): ModuleAnalysis {
  const lines = new LineIndex(text);
  const cr = new CodeReporter(file, lines, text, 0);
  const program = parseCode(cr, 'module');
  if (!program) return { lines, diagnostics: cr.diagnostics, specifiers: [] };
  const scopes = analyzeScopes(program);
  checkModuleSyntax(scopes, cr, 'module');
  checkHostGlobals(scopes, cr);
  return { lines, diagnostics: cr.diagnostics, specifiers: collectSpecifiers(program) };
}

/**
 * Per-module analysis keyed by absolute path and the sha256 of the normalized text, shared
 * across routines and rebuilds. Resolution is not cached: whether an imported file exists
 * can change without the importer changing. One entry per path, so watch mode does not grow it.
 */
export class CodeCache {
  #hits = 0;
  #misses = 0;
  readonly #entries = new Map<string, { hash: string; analysis: ModuleAnalysis }>();

  /** Analyses served from the cache. */
  get hits(): number {
    return this.#hits;
  }

  /** Analyses computed (a new path or changed text). */
  get misses(): number {
    return this.#misses;
  }

  get size(): number {
    return this.#entries.size;
  }

  analyze(file: string, text: string): ModuleAnalysis {
    const hash = sha256Hex(text);
    const cached = this.#entries.get(file);
    if (cached?.hash === hash) {
      this.#hits++;
      return cached.analysis;
    }
    this.#misses++;
    const analysis = analyzeModuleText(file, text);
    this.#entries.set(file, { hash, analysis });
    return analysis;
  }

  delete(file: string): boolean {
    return this.#entries.delete(file);
  }

  clear(): void {
    this.#entries.clear();
  }
}
