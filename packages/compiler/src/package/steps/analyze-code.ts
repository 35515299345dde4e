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
import { fieldJson } from '../../routine/routine-facts.js';
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
  /** Each routine's input and cache key, computed once per source result. */
  readonly #inputs = new WeakMap<RoutineSource, { manifestDir: string; input: CodeRoutineInput | undefined }>();
  readonly #keys = new WeakMap<CodeRoutineInput, { packageRoot: string; key: string }>();
  /** The last whole analysis per manifest, with what it was made of. */
  readonly #last = new Map<string, { analyzed: readonly { routine: RoutineSource; result: CodeRoutineResult }[]; analysis: CodeAnalysis }>();
  readonly #lastLive = new Sweeper();
  analyzed = 0;
  reused = 0;

  inputOf(routine: RoutineSource, manifestDir: string): CodeRoutineInput | undefined {
    let known = this.#inputs.get(routine);
    if (known === undefined || known.manifestDir !== manifestDir) this.#inputs.set(routine, (known = { manifestDir, input: codeInput(routine, manifestDir) }));
    return known.input;
  }

  last(manifestFile: string): { analyzed: readonly { routine: RoutineSource; result: CodeRoutineResult }[]; analysis: CodeAnalysis } | undefined {
    this.#lastLive.use(manifestFile);
    return this.#last.get(manifestFile);
  }

  keepLast(manifestFile: string, analyzed: readonly { routine: RoutineSource; result: CodeRoutineResult }[], analysis: CodeAnalysis): void {
    this.#last.set(manifestFile, { analyzed, analysis });
  }

  analyze(routine: RoutineSource, input: CodeRoutineInput, ctx: CodeContext): CodeRoutineResult {
    let keyed = this.#keys.get(input);
    if (keyed === undefined || keyed.packageRoot !== ctx.packageRoot)
      this.#keys.set(input, (keyed = { packageRoot: ctx.packageRoot, key: cacheKey(input, ctx) }));
    const key = keyed.key;
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

  sweep(root: string): void {
    this.#live.sweep(root, this.#entries);
    this.#lastLive.sweep(root, this.#last);
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
    catalog: routine.facts ? fieldJson(routine, 'catalog') === true : isTrue(routine, 'catalog'),
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
  const analyzed: { routine: RoutineSource; result: CodeRoutineResult }[] = [];
  for (const routine of routines) {
    const input = cache ? cache.inputOf(routine, manifest.dir) : codeInput(routine, manifest.dir);
    if (input === undefined) continue;
    analyzed.push({ routine, result: cache ? cache.analyze(routine, input, ctx) : analyzeCodeRoutine(input, ctx) });
  }
  // Every routine's analysis the same as last build's: so is the whole (the account, the modules).
  const last = cache?.last(manifest.file);
  if (
    last !== undefined &&
    last.analyzed.length === analyzed.length &&
    last.analyzed.every((a, i) => a.routine === analyzed[i]!.routine && a.result === analyzed[i]!.result)
  ) {
    return { ...last.analysis, diagnostics: last.analysis.diagnostics.map((d) => ({ ...d })) };
  }
  for (const { routine, result } of analyzed) {
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
  const analysis = { routines: results, modules, account, diagnostics, files };
  cache?.keepLast(manifest.file, analyzed, { ...analysis, diagnostics: diagnostics.map((d) => ({ ...d })) });
  return analysis;
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
