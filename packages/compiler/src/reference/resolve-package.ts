import { sortDiagnostics, type Diagnostic } from '../diagnostics/diagnostic.js';
import type { LineIndex } from '../diagnostics/line-index.js';
import { Reporter, type Span } from '../diagnostics/reporter.js';
import { analyzeBody, type AnalyzedBody } from '../body/analyze-body.js';
import { IncludeExpander, type Expansion, type TemplateSegment } from '../body/expand-includes.js';
import { inputMayBeMissing } from '../body/template-path.js';
import type { RoutineSource } from '../routine/check-routine.js';
import { namespaceOf } from '../routine/names.js';
import { entry } from '../source/yaml-tree.js';
import { modelSelection, sessionCalls, sortedUnique, type PackageRequirements } from './requirements.js';
import { resolvePublic } from './resolve-entries.js';
import type { ValueExpression } from './resolve-expression.js';
import { resolveFrontmatter, type ResolvedNext, type ResolvedTool } from './resolve-frontmatter.js';
import { sortTargets, type NameTable, type Target } from './resolve-name.js';
import type { ResolveContext, Site } from './resolve-report.js';

export type { TemplateSegment } from '../body/expand-includes.js';
export type { PackageRequirements } from './requirements.js';
export type { ValueExpression } from './resolve-expression.js';

export interface PackageInput {
  /** Every source of the package that parsed (duplicates by name already refused). */
  routines: readonly RoutineSource[];
  table: NameTable;
  /** From plugin.json. */
  agents: readonly { id: string; entry: string; entrySpan: Span }[];
  exports: readonly { name: string; span: Span }[];
  /** To report at agent entries and exports. */
  manifest: { file: string; lines: LineIndex };
  catalogGiven: boolean;
}

export interface ResolvedRoutine {
  name: string;
  tools: ResolvedTool[];
  next?: ResolvedNext;
  /** `next.input` in the tagged form of `ValueExpression`. */
  nextInput?: ValueExpression;
  nextOutput?: boolean;
  configure?: Target;
  route?: Target;
  summary?: Target;
  /** Every `!ref` (schema const/enum, next.input, presentation.value), resolved, deduplicated, sorted. */
  refs: Target[];
  /** Names (or import aliases) of instructions included, transitively, sorted. */
  includes: string[];
  /** `[[name]]` addresses, included text counted. */
  dependencies: Target[];
  /** Model and instructions bodies, includes expanded; code bodies have none (TPL-7). */
  template?: TemplateSegment[];
  /** TPL-4 requirements of this routine's templates (sorted, unique). */
  readers: string[];
  /** TPL-6 placeholder names used. */
  env: string[];
}

export interface PackageResolution {
  routines: Map<string, ResolvedRoutine>;
  /** Entries and exports, resolved, sorted by name; `name` is as written in plugin.json. */
  exports: { name: string; target: Target; entry: boolean }[];
  requirements: PackageRequirements;
  diagnostics: Diagnostic[];
}

/** The package-wide checks (REF, TOOL-6, NEXT-5, MISC-1..3, MAN-3, TPL) and what they derive. Never throws. */
export function resolvePackage(input: PackageInput): PackageResolution {
  const ctx: ResolveContext = { table: input.table, catalogGiven: input.catalogGiven };
  const manifest = new Reporter(input.manifest.file, input.manifest.lines);
  const routines = input.routines
    .filter((r): r is RoutineSource & { name: string } => r.name !== undefined)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const reporters = new Map(routines.map((r) => [r.name, new Reporter(r.file, r.lines)]));
  const reporterOf = (r: RoutineSource & { name: string }): Reporter => reporters.get(r.name)!;

  const exports = resolvePublic(ctx, manifest, input.agents, input.exports);

  const bodies = new Map<string, AnalyzedBody>();
  for (const routine of routines) {
    if (routine.kind === 'code') continue;
    const reporter = reporterOf(routine);
    bodies.set(
      routine.name,
      analyzeBody(ctx, routine.body, {
        namespace: namespaceOf(routine.name),
        site: (span) => ({ reporter, span: { start: routine.bodyStart + span.start, end: routine.bodyStart + span.end } }),
        resolveNames: true,
      }),
    );
  }
  const expander = new IncludeExpander(bodies, (alias, site) => {
    const body = ctx.table.imports.get(alias)?.body;
    return body === undefined ? undefined : analyzeBody(ctx, body, { namespace: undefined, site: () => site, resolveNames: false });
  });

  const resolved = new Map<string, ResolvedRoutine>();
  const tools: string[] = [];
  const readers: string[] = [];
  const env: string[] = [];
  const models: unknown[] = [];
  const calls: string[] = [];
  const rendered = new Set<string>();
  const warned = new Set<string>();
  let ui = false;
  for (const routine of routines) {
    const fm = resolveFrontmatter(ctx, routine, namespaceOf(routine.name), reporterOf(routine));
    const expansion = routine.kind === 'code' ? undefined : expander.expand(routine.name);
    const out: ResolvedRoutine = {
      name: routine.name,
      tools: fm.tools,
      refs: sortTargets(fm.refs),
      includes: expansion?.includes ?? [],
      dependencies: expansion?.dependencies ?? [],
      readers: expansion?.readers ?? [],
      env: expansion?.env ?? [],
    };
    if (fm.next !== undefined) out.next = fm.next;
    if (fm.nextInput !== undefined) out.nextInput = fm.nextInput;
    if (fm.nextOutput !== undefined) out.nextOutput = fm.nextOutput;
    if (fm.configure !== undefined) out.configure = fm.configure;
    if (fm.route !== undefined) out.route = fm.route;
    if (fm.summary !== undefined) out.summary = fm.summary;
    if (expansion) out.template = expansion.segments;
    resolved.set(routine.name, out);

    tools.push(...fm.externals);
    ui ||= fm.ui;
    if (routine.kind !== 'model') continue;
    const selection = modelSelection(routine);
    if (selection !== undefined) models.push(selection);
    calls.push(...sessionCalls(routine));
    if (!expansion) continue;
    readers.push(...expansion.readers);
    env.push(...expansion.env);
    for (const name of expansion.includes) rendered.add(name);
    checkInputTemplates(routine, expansion, warned);
  }

  const exported = new Set(exports.flatMap((e) => (e.target.kind === 'source' ? [e.target.name] : [])));
  for (const name of exported) for (const included of resolved.get(name)?.includes ?? []) rendered.add(included);
  for (const routine of routines) {
    const first = bodies.get(routine.name)?.firstPath;
    if (routine.kind !== 'instructions' || !first || rendered.has(routine.name) || exported.has(routine.name)) continue;
    first.reporter.report('BP2222', first.span, `Unexpected runtime template in instructions \`${routine.name}\`, which no model routine includes, expected instructions included by a model routine`, {
      hint: `runtime templates render only as part of a model routine's body: include \`{{${routine.name}}}\` in one, or export \`${routine.name}\` for importers`,
    });
  }

  const diagnostics = sortDiagnostics([...manifest.diagnostics, ...[...reporters.values()].flatMap((r) => r.diagnostics)]);
  return {
    routines: resolved,
    exports,
    requirements: {
      tools: sortedUnique(tools),
      readers: sortedUnique(readers),
      models,
      env: sortedUnique(env),
      ui,
      calls: sortedUnique(calls),
    },
    diagnostics,
  };
}

/** TPL-3 decision: warn where a `$.input…` template may be missing on some invocation of `routine`. */
function checkInputTemplates(routine: RoutineSource & { name: string }, expansion: Expansion, warned: Set<string>): void {
  const input = entry(routine.frontmatter, 'input')?.value;
  for (const use of expansion.paths) {
    const root = use.path.segments[0];
    if (root?.kind !== 'name' || root.name !== 'input') continue;
    const reason = inputMayBeMissing(use.path, input);
    if (reason === undefined) continue;
    const key = `${use.site.reporter.file}\n${use.site.span.start}\n${routine.name}`;
    if (warned.has(key)) continue;
    warned.add(key);
    warnAt(use.site, `Unexpected \`{{ ${use.text} }}\` in \`${routine.name}\`: ${reason}, expected a value every invocation provides`);
  }
}

function warnAt(site: Site, message: string): void {
  site.reporter.report('BP2221', site.span, message, {
    hint: 'declare the value as required in the routine\'s `input` schema (`required` of an object, `minItems` of an array), or select it only where every call passes it: a missing value refuses the invocation before inference',
  });
}
