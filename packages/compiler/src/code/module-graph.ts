import path from 'node:path';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { LineIndex } from '../diagnostics/line-index.js';
import { Reporter } from '../diagnostics/reporter.js';
import { decodeSourceText, reportUndecodable } from '../source/normalize-text.js';
import { CodeCache } from './code-cache.js';
import { CodeReporter } from './code-reporter.js';
import type { StaticSpecifier } from './collect-specifiers.js';
import { resolveSpecifier, toPosix, type ResolveContext } from './resolve-specifier.js';
import type { CapturedModule, CodeContext } from './types.js';

export interface CapturedGraph {
  /** Resolved imports of the root (the body), in source order, each once. */
  direct: string[];
  modules: CapturedModule[];
  diagnostics: Diagnostic[];
  files: string[];
}

/**
 * CODE-4: follows static imports from the body through every supporting module,
 * breadth-first with a visited set, so cycles are fine and each module is read once.
 * Resolution diagnostics of the body go to `root`; those of modules to the module file.
 */
export function captureGraph(specifiers: readonly StaticSpecifier[], rootDir: string, root: CodeReporter, ctx: CodeContext): CapturedGraph {
  const cache = ctx.cache ?? new CodeCache();
  const probed = new Set<string>();
  const resolveCtx: ResolveContext = { host: ctx.host, packageRoot: ctx.packageRoot, probed };
  const diagnostics: Diagnostic[] = [];
  const modules: CapturedModule[] = [];
  const seen = new Set<string>();
  const queue: string[] = [];

  const resolveAll = (specs: readonly StaticSpecifier[], dir: string, cr: CodeReporter): string[] => {
    const out: string[] = [];
    for (const spec of specs) {
      const r = resolveSpecifier(spec.value, dir, resolveCtx);
      if (!r.ok) {
        cr.report(r.code, spec.span, r.message, { hint: r.hint });
        continue;
      }
      if (!out.includes(r.path)) out.push(r.path);
      if (!seen.has(r.path)) {
        seen.add(r.path);
        queue.push(r.path);
      }
    }
    return out;
  };

  const direct = resolveAll(specifiers, rootDir, root);
  for (let i = 0; i < queue.length; i++) {
    const file = queue[i]!;
    const text = readModule(file, ctx, probed, diagnostics);
    if (text === undefined) continue;
    const analysis = cache.analyze(file, text);
    // Copies, so a caller that rewrites a diagnostic (relative paths) cannot change the cache.
    for (const d of analysis.diagnostics) diagnostics.push({ ...d });
    const cr = new CodeReporter(file, analysis.lines, text, 0);
    const imports = resolveAll(analysis.specifiers, path.dirname(file), cr);
    diagnostics.push(...cr.diagnostics);
    modules.push({ path: file, relPath: toPosix(path.relative(ctx.packageRoot, file)), text, size: Buffer.byteLength(text, 'utf8'), imports });
  }
  modules.sort((a, b) => (a.relPath < b.relPath ? -1 : a.relPath > b.relPath ? 1 : 0));
  return { direct, modules, diagnostics, files: [...probed].sort() };
}

/** Reads and decodes a module; an unreadable file, invalid UTF-8 or a file too large to be text is reported in that file. */
function readModule(file: string, ctx: CodeContext, probed: Set<string>, diagnostics: Diagnostic[]): string | undefined {
  probed.add(file);
  let bytes: Uint8Array;
  try {
    bytes = ctx.host.readFile(file);
  } catch (error) {
    const r = new Reporter(file, new LineIndex(''));
    r.report('BP9001', { start: 0, end: 0 }, `Unexpected error reading the module: ${(error as NodeJS.ErrnoException | undefined)?.code ?? String(error)}`);
    diagnostics.push(...r.diagnostics);
    return undefined;
  }
  const decoded = decodeSourceText(bytes);
  if (decoded.ok) return decoded.text;
  const r = reportUndecodable(file, bytes, decoded, 'BP1004', { tooLarge: 'a code module is a small text file', invalid: 'save the file as UTF-8' });
  diagnostics.push(...r.diagnostics);
  return undefined;
}
