import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import { Reporter } from '../../diagnostics/reporter.js';
import {
  accountCodeSize,
  analyzeCodeRoutine,
  checkCodeBody,
  sizeExcessMessage,
  type CheckedCodeBody,
  type CapturedModule,
  type CodeContext,
  type CodeRoutineInput,
  type CodeRoutineResult,
  type SizeAccount,
} from '../../code/index.js';
import type { ManifestInfo } from '../../manifest/index.js';
import type { RoutineSource } from '../../routine/check-routine.js';
import { entry } from '../../source/yaml-tree.js';
import { relativePosix } from './paths.js';
import { Sweeper } from '../cache/sweeper.js';
import { AnswerRecorder, sameAnswers, type Answer, type RecordedAnswer } from '../answer-recorder.js';

/**
 * Each code routine's analysis, reused while the routine's source result is the same object
 * and every file the analysis read or probed answers the same: a rebuild after an edit
 * elsewhere does not parse the body again, and an edited module re-analyzes only its importers.
 */
export class RoutineCodeCache {
  #entries = new Map<
    string,
    { routine: RoutineSource; key: string; log: readonly (Answer | RecordedAnswer)[]; result: CodeRoutineResult; body?: CheckedCodeBody }
  >();
  readonly #live = new Sweeper();
  analyzed = 0;
  reused = 0;

  analyze(routine: RoutineSource, input: CodeRoutineInput, ctx: CodeContext): CodeRoutineResult {
    const key = cacheKey(input, ctx);
    this.#live.use(routine.file);
    const known = this.#entries.get(routine.file);
    if (known && known.routine === routine && known.key === key && sameAnswers(known.log, ctx.host)) {
      this.reused++;
      return known.result;
    }
    this.analyzed++;
    // Only a module it imports changed: the body's own check stands, the graph is taken again.
    const body = (known?.routine === routine && known.key === key ? known.body : undefined) ?? checkCodeBody(input);
    const recording = new AnswerRecorder(ctx.host);
    const result = analyzeCodeRoutine(input, { ...ctx, host: recording }, body);
    this.#entries.set(routine.file, { routine, key, log: recording.log, result, body });
    return result;
  }

  /**
   * An analysis made elsewhere (a worker thread of a cold build) of exactly this routine, with
   * the answers it got (reads by digest): served like this cache's own while they hold.
   */
  prime(
    routine: RoutineSource,
    input: CodeRoutineInput,
    ctx: Pick<CodeContext, 'packageRoot'>,
    log: readonly RecordedAnswer[],
    result: CodeRoutineResult,
  ): void {
    this.analyzed++;
    this.#entries.set(routine.file, { routine, key: cacheKey(input, ctx), log, result });
  }

  sweep(root: string): void {
    this.#live.sweep(root, this.#entries);
  }
}

function cacheKey(input: CodeRoutineInput, ctx: Pick<CodeContext, 'packageRoot'>): string {
  return JSON.stringify([input.sourcePath, input.declaredTools, input.catalog, ctx.packageRoot]);
}

/** What the analysis of a code routine takes from it; undefined for any other routine (and an unnamed one). */
export function codeInput(routine: RoutineSource, manifestDir: string): CodeRoutineInput | undefined {
  if (routine.kind !== 'code' || routine.name === undefined) return undefined;
  return {
    file: routine.file,
    text: routine.text,
    lines: routine.lines,
    bodyStart: routine.bodyStart,
    sourcePath: relativePosix(manifestDir, routine.file),
    declaredTools: declaredTools(routine),
    catalog: isTrue(routine, 'catalog'),
  };
}

export interface CodeAnalysis {
  routines: Map<string, CodeRoutineResult>;
  /** Supporting modules by absolute path, each once. */
  modules: Map<string, CapturedModule>;
  account: SizeAccount;
  diagnostics: Diagnostic[];
  files: string[];
}

/** CODE-1..7 for every code routine, then the package's 1 MiB account (CODE-6). */
export function analyzeCode(routines: readonly RoutineSource[], manifest: ManifestInfo, ctx: CodeContext, cache?: RoutineCodeCache): CodeAnalysis {
  const results = new Map<string, CodeRoutineResult>();
  const modules = new Map<string, CapturedModule>();
  const diagnostics: Diagnostic[] = [];
  const files: string[] = [];
  const sizes: { path: string; size: number }[] = [];
  const seenDiagnostics = new Set<string>();
  for (const routine of routines) {
    const input = codeInput(routine, manifest.dir);
    if (input === undefined) continue;
    const result = cache ? cache.analyze(routine, input, ctx) : analyzeCodeRoutine(input, ctx);
    results.set(routine.name!, result);
    // A supporting module's problems reach every routine that imports it: report them once.
    for (const d of result.diagnostics) {
      const key = `${d.file}:${d.line}:${d.column}:${d.code}`;
      if (seenDiagnostics.has(key)) continue;
      seenDiagnostics.add(key);
      diagnostics.push({ ...d });
    }
    files.push(...result.files);
    sizes.push({ path: relativePosix(manifest.dir, routine.file), size: result.bodySize });
    for (const m of result.modules) modules.set(m.path, m);
  }
  for (const m of modules.values()) sizes.push({ path: m.relPath, size: m.size });
  const account = accountCodeSize(sizes);
  if (account.total > account.limit) {
    const r = new Reporter(manifest.file, manifest.lines);
    const at = entry(manifest.tree, 'extensions')?.keySpan ?? { start: 0, end: 1 };
    r.report('BP3050', at, sizeExcessMessage(account), {
      hint: 'move large data into resources, or split the package',
      related: account.entries
        .slice(0, 5)
        .map((e) => ({ file: `${manifest.dir}/${e.path}`, line: 1, column: 1, message: `${e.size.toLocaleString('en-US')} bytes` })),
    });
    diagnostics.push(...r.diagnostics);
  }
  return { routines: results, modules, account, diagnostics, files };
}

function declaredTools(routine: RoutineSource): string[] {
  const tools = entry(routine.frontmatter, 'tools')?.value;
  if (tools?.kind !== 'seq') return [];
  const keys: string[] = [];
  for (const item of tools.items) {
    if (item.kind === 'scalar' && typeof item.value === 'string') keys.push(item.value);
    else if (item.kind === 'map' && item.entries.length === 1) keys.push(item.entries[0]!.key);
  }
  return keys;
}

function isTrue(routine: RoutineSource, key: string): boolean {
  const v = entry(routine.frontmatter, key)?.value;
  return v?.kind === 'scalar' && v.value === true;
}
