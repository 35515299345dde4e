import { sortDiagnostics, type Diagnostic } from '../diagnostics/diagnostic.js';
import type { LineIndex } from '../diagnostics/line-index.js';
import { captureReports, Reporter, type Span } from '../diagnostics/reporter.js';
import { analyzeBody, type AnalyzedBody } from '../body/analyze-body.js';
import { IncludeExpander, type Expansion, type TemplateSegment } from '../body/expand-includes.js';
import { inputMayBeMissing, inputMayBeMissingJson } from '../body/template-path.js';
import type { RoutineSource } from '../routine/check-routine.js';
import { namespaceOf } from '../routine/names.js';
import { fieldJson } from '../routine/routine-facts.js';
import { entry } from '../source/yaml-tree.js';
import { KeptOrders, sameItems, sortedByKey } from '../package/cache/kept-order.js';
import { modelSelection, sessionCalls, sortedUnique, type PackageRequirements } from './requirements.js';
import { resolvePublic } from './resolve-entries.js';
import { resolveFrontmatter, type FrontmatterResolution } from './resolve-frontmatter.js';
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

export interface ResolvedRoutine extends Pick<
  FrontmatterResolution,
  'tools' | 'next' | 'nextInput' | 'nextOutput' | 'configure' | 'route' | 'summary' | 'refs'
> {
  name: string;
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

type Named = RoutineSource & { name: string };

/** One routine's share of resolution, with every diagnostic it produced, wherever that points. */
interface Unit {
  routine: Named;
  /** Model and instructions bodies, names resolved (before includes are expanded). */
  body: AnalyzedBody | undefined;
  bodyDiagnostics: Diagnostic[];
  resolved: ResolvedRoutine;
  externals: string[];
  ui: boolean;
  expansion: Expansion | undefined;
  selection: unknown;
  calls: readonly string[];
  diagnostics: Diagnostic[];
}

/** What a package's previous resolution leaves for the next, per manifest. */
interface State {
  units: Map<string, Unit>;
  bodies: Map<string, AnalyzedBody>;
  expander: IncludeExpander;
  /** Diagnostics of computing each source's expansion (included ones are computed once, for all includers). */
  expansions: Map<string, Diagnostic[]>;
  table: NameTable;
  catalogGiven: boolean;
  /** An include cycle or depth limit was reported: whose expansion reports it depends on the order, so resolve all again. */
  orderDependent: boolean;
  /** The last summary, and what it was computed from, for a rebuild that changes none of its inputs. */
  summary?: LastSummary;
}

interface LastSummary {
  /** The units it summarized, in name order. */
  units: readonly Unit[];
  /** Stands for the agents and exports of plugin.json: the manifest cache keeps one per unchanged manifest. */
  manifestLines: LineIndex;
  result: PackageResolution;
}

/**
 * Keeps resolution across builds (one per compiler). A rebuild where only bodies of model and
 * code routines changed (nothing else observes them: only instructions are included) resolves
 * just those routines again and reuses every other routine's result and diagnostics; any other
 * change resolves the whole package.
 */
export class ResolutionMemo {
  readonly #states = new Map<string, State>();
  readonly #signatures = new WeakMap<RoutineSource, string>();
  readonly #orders = new KeptOrders();
  resolved = 0;
  reused = 0;

  /**
   * `keepStates: false` (a one-shot compiler): no state is kept for a later build, which then
   * resolves the whole package again. So the analyzed bodies, expansions and units die when
   * resolution returns, before assembly's collections would copy them.
   */
  constructor(private readonly keepStates = true) {}

  state(file: string): State | undefined {
    return this.#states.get(file);
  }

  keep(file: string, state: State): void {
    if (this.keepStates) this.#states.set(file, state);
  }

  /** What other routines can observe of a routine: its kind, file and frontmatter, and the whole text of instructions. */
  signature(routine: RoutineSource): string {
    let known = this.#signatures.get(routine);
    if (known === undefined) {
      const shown = routine.kind === 'instructions' ? routine.text : routine.text.slice(0, routine.bodyStart);
      known = `${routine.kind}\0${routine.file}\0${shown}`;
      this.#signatures.set(routine, known);
    }
    return known;
  }

  /**
   * The named routines in name order. The order found for `file` is kept: a rebuild whose
   * routines come with the same names in the same sequence reuses it instead of sorting again.
   */
  byName(file: string, routines: readonly RoutineSource[]): Named[] {
    return this.#orders.sorted(file, routines, (r) => r.name) as Named[];
  }
}

/** The package-wide checks (REF, TOOL-6, NEXT-5, MISC-1..3, MAN-3, TPL) and what they derive. Never throws. */
export function resolvePackage(input: PackageInput, memo?: ResolutionMemo): PackageResolution {
  const ctx: ResolveContext = { table: input.table, catalogGiven: input.catalogGiven };
  const routines = memo ? memo.byName(input.manifest.file, input.routines) : (sortedByKey(input.routines, (r) => r.name) as Named[]);
  const previous = memo?.state(input.manifest.file);
  const differing = previous === undefined ? undefined : differingRoutines(previous, routines);
  const state =
    previous !== undefined && memo !== undefined && differing !== undefined && reusable(previous, differing, routines.length, input, memo)
      ? previous
      : fresh(ctx);
  state.table = input.table;
  state.catalogGiven = input.catalogGiven;

  // Bodies first: an include resolves against the analyzed body of what it names.
  const changed: Named[] = [];
  /** What each changed routine contributed before, for the summary's reuse. */
  const before = new Map<string, { unit: Unit | undefined; expansion: Diagnostic[] | undefined }>();
  for (const routine of state === previous ? differing! : routines) {
    const unit = state.units.get(routine.name);
    if (unit?.routine === routine) continue;
    changed.push(routine);
    // Only a kept state's summary is patched; a fresh one (every cold build) needs no record.
    if (state === previous) before.set(routine.name, { unit, expansion: state.expansions.get(routine.name) });
    state.expander.forget(routine.name);
    state.expansions.delete(routine.name);
    if (routine.kind === 'code') {
      state.bodies.delete(routine.name);
      continue;
    }
    const bodyDiagnostics: Diagnostic[] = [];
    const reporter = new Reporter(routine.file, routine.lines);
    const body = captureReports(bodyDiagnostics, () =>
      analyzeBody(ctx, routine.body, {
        namespace: namespaceOf(routine.name),
        site: (span) => ({ reporter, span: { start: routine.bodyStart + span.start, end: routine.bodyStart + span.end } }),
        resolveNames: true,
      }),
    );
    state.bodies.set(routine.name, body);
    state.units.set(routine.name, { routine, body, bodyDiagnostics } as Unit);
  }
  for (const routine of changed) {
    const unit = state.units.get(routine.name) ?? ({ routine, body: undefined, bodyDiagnostics: [] } as unknown as Unit);
    state.units.set(routine.name, resolveUnit(ctx, state, unit));
  }
  if (memo) {
    memo.resolved += changed.length;
    memo.reused += routines.length - changed.length;
    memo.keep(input.manifest.file, state);
  }
  const units = routines.map((r) => state.units.get(r.name)!);
  const result =
    state === previous ? (patchedSummary(state, units, input, before) ?? summarize(ctx, state, routines, input)) : summarize(ctx, state, routines, input);
  state.summary = { units, manifestLines: input.manifest.lines, result };
  // Copies: a caller may rewrite a diagnostic (relative paths); the units are reused.
  return { ...result, diagnostics: result.diagnostics.map((d) => ({ ...d })) };
}

/**
 * The last summary with the changed routines' results swapped in, when nothing it aggregates
 * changed: the same routines in the same order, the same plugin.json, and every changed routine
 * contributing the same requirements, includes and (no) diagnostics as before. Its frontmatter is
 * unchanged (or the state would not have been kept), so only what its body gives is compared.
 */
function patchedSummary(
  state: State,
  units: readonly Unit[],
  input: PackageInput,
  before: ReadonlyMap<string, { unit: Unit | undefined; expansion: Diagnostic[] | undefined }>,
): PackageResolution | undefined {
  const last = state.summary;
  if (last === undefined || last.manifestLines !== input.manifest.lines || last.units.length !== units.length) return undefined;
  for (let i = 0; i < units.length; i++) {
    const unit = units[i]!;
    if (unit === last.units[i]) continue;
    const old = before.get(unit.routine.name);
    if (old?.unit === undefined || old.unit !== last.units[i]) return undefined;
    if (!sameContribution(old.unit, old.expansion, unit, state.expansions.get(unit.routine.name))) return undefined;
  }
  const routines = new Map(last.result.routines);
  for (const name of before.keys()) routines.set(name, state.units.get(name)!.resolved);
  return { ...last.result, routines };
}

function sameContribution(a: Unit, aExpansion: Diagnostic[] | undefined, b: Unit, bExpansion: Diagnostic[] | undefined): boolean {
  const quiet = (unit: Unit, expansion: Diagnostic[] | undefined) =>
    unit.bodyDiagnostics.length === 0 && unit.diagnostics.length === 0 && (expansion === undefined || expansion.length === 0);
  return (
    quiet(a, aExpansion) &&
    quiet(b, bExpansion) &&
    a.routine.kind === b.routine.kind &&
    a.ui === b.ui &&
    sameItems(a.externals, b.externals) &&
    sameItems(a.calls, b.calls) &&
    (a.expansion === undefined) === (b.expansion === undefined) &&
    (a.expansion === undefined ||
      (sameItems(a.expansion.readers, b.expansion!.readers) &&
        sameItems(a.expansion.env, b.expansion!.env) &&
        sameItems(a.expansion.includes, b.expansion!.includes))) &&
    sameItems(a.resolved.includes, b.resolved.includes) &&
    JSON.stringify(a.selection) === JSON.stringify(b.selection)
  );
}

function fresh(ctx: ResolveContext): State {
  const bodies = new Map<string, AnalyzedBody>();
  const expansions = new Map<string, Diagnostic[]>();
  const state: State = {
    units: new Map(),
    bodies,
    expander: undefined as unknown as IncludeExpander,
    expansions,
    table: ctx.table,
    catalogGiven: ctx.catalogGiven,
    orderDependent: false,
  };
  state.expander = new IncludeExpander(
    bodies,
    (alias, site) => {
      const body = ctx.table.imports.get(alias)?.body;
      return body === undefined ? undefined : analyzeBody(ctx, body, { namespace: undefined, site: () => site, resolveNames: false });
    },
    // Cycles and the depth limit are reported only while an expansion is computed, into its list.
    (name, compute) => {
      const into: Diagnostic[] = [];
      expansions.set(name, into);
      const expansion = captureReports(into, compute);
      if (into.some((d) => d.code === 'BP2203' || d.code === 'BP2205')) state.orderDependent = true;
      return expansion;
    },
  );
  return state;
}

/** The routines whose unit in `previous` was made from another source result; undefined when one has none. */
function differingRoutines(previous: State, routines: readonly Named[]): Named[] | undefined {
  const differing: Named[] = [];
  for (const routine of routines) {
    const unit = previous.units.get(routine.name);
    if (unit === undefined) return undefined;
    if (unit.routine !== routine) differing.push(routine);
  }
  return differing;
}

/**
 * Whether `previous` may be kept: the same names (every routine has a unit, and as many), imports
 * and externals, and every changed routine (`differing`) observed by no other.
 */
function reusable(previous: State, differing: readonly Named[], count: number, input: PackageInput, memo: ResolutionMemo): boolean {
  if (previous.orderDependent || previous.catalogGiven !== input.catalogGiven || previous.units.size !== count) return false;
  if (!sameImports(previous.table, input.table)) return false;
  for (const routine of differing) {
    const unit = previous.units.get(routine.name)!;
    if (routine.kind === 'instructions' || memo.signature(unit.routine) !== memo.signature(routine)) return false;
  }
  return true;
}

function sameImports(a: NameTable, b: NameTable): boolean {
  if (a.imports.size !== b.imports.size || a.externals.size !== b.externals.size) return false;
  for (const name of a.externals) if (!b.externals.has(name)) return false;
  // A reference to a source that failed to parse was not reported; when that changes, it may have to be.
  const unparsedA = [...(a.unparsed?.keys() ?? [])].sort().join('\n');
  if (unparsedA !== [...(b.unparsed?.keys() ?? [])].sort().join('\n')) return false;
  for (const [alias, value] of a.imports) {
    const other = b.imports.get(alias);
    if (other === undefined || other.kind !== value.kind || other.body !== value.body) return false;
  }
  return true;
}

function resolveUnit(ctx: ResolveContext, state: State, unit: Unit): Unit {
  const routine = unit.routine;
  const diagnostics: Diagnostic[] = [];
  return captureReports(diagnostics, () => {
    const fm = resolveFrontmatter(ctx, routine, namespaceOf(routine.name), new Reporter(routine.file, routine.lines));
    const expansion = routine.kind === 'code' ? undefined : state.expander.expand(routine.name);
    const resolved: ResolvedRoutine = {
      name: routine.name,
      // At its exact length: a list grown by `push` keeps 17 slots, and this one lives to assembly.
      tools: fm.tools.slice(),
      refs: sortTargets(fm.refs),
      includes: expansion?.includes ?? [],
      dependencies: expansion?.dependencies ?? [],
      readers: expansion?.readers ?? [],
      env: expansion?.env ?? [],
    };
    if (fm.next !== undefined) resolved.next = fm.next;
    if (fm.nextInput !== undefined) resolved.nextInput = fm.nextInput;
    if (fm.nextOutput !== undefined) resolved.nextOutput = fm.nextOutput;
    if (fm.configure !== undefined) resolved.configure = fm.configure;
    if (fm.route !== undefined) resolved.route = fm.route;
    if (fm.summary !== undefined) resolved.summary = fm.summary;
    if (expansion) resolved.template = expansion.segments;
    const model = routine.kind === 'model';
    if (model && expansion) checkInputTemplates(routine, expansion, new Set());
    // One literal of every field (not a spread of `unit`): a cold build makes one per routine and keeps it.
    return {
      routine,
      body: unit.body,
      bodyDiagnostics: unit.bodyDiagnostics,
      resolved,
      externals: fm.externals,
      ui: fm.ui,
      expansion: model ? expansion : undefined,
      selection: model ? modelSelection(routine) : undefined,
      calls: model ? sessionCalls(routine) : [],
      diagnostics,
    };
  });
}

/** The package-wide results, from the units; what depends on all of them is computed every time. */
function summarize(ctx: ResolveContext, state: State, routines: readonly Named[], input: PackageInput): PackageResolution {
  const all: Diagnostic[] = [];
  const manifest = new Reporter(input.manifest.file, input.manifest.lines);
  const exports = captureReports(all, () => resolvePublic(ctx, manifest, input.agents, input.exports));

  const resolved = new Map<string, ResolvedRoutine>();
  const tools: string[] = [];
  const readers: string[] = [];
  const env: string[] = [];
  const models: unknown[] = [];
  const calls: string[] = [];
  const rendered = new Set<string>();
  let ui = false;
  for (const routine of routines) {
    const unit = state.units.get(routine.name)!;
    resolved.set(routine.name, unit.resolved);
    // Most of these lists are empty: a spread call of each cost more than the loop's other work.
    pushAll(all, unit.bodyDiagnostics);
    pushAll(all, unit.diagnostics);
    pushAll(all, state.expansions.get(routine.name));
    pushAll(tools, unit.externals);
    ui ||= unit.ui;
    if (routine.kind !== 'model') continue;
    if (unit.selection !== undefined) models.push(unit.selection);
    pushAll(calls, unit.calls);
    if (!unit.expansion) continue;
    pushAll(readers, unit.expansion.readers);
    pushAll(env, unit.expansion.env);
    for (const name of unit.expansion.includes) rendered.add(name);
  }

  const exported = new Set(exports.flatMap((e) => (e.target.kind === 'source' ? [e.target.name] : [])));
  for (const name of exported) for (const included of resolved.get(name)?.includes ?? []) rendered.add(included);
  captureReports(all, () => {
    for (const routine of routines) {
      const first = state.bodies.get(routine.name)?.firstPath;
      if (routine.kind !== 'instructions' || !first || rendered.has(routine.name) || exported.has(routine.name)) continue;
      first.reporter.report(
        'BP2222',
        first.span,
        `Unexpected runtime template in instructions \`${routine.name}\`, which no model routine includes, expected instructions included by a model routine`,
        {
          hint: `runtime templates render only as part of a model routine's body: include \`{{${routine.name}}}\` in one, or export \`${routine.name}\` for importers`,
        },
      );
    }
  });

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
    diagnostics: sortDiagnostics(all),
  };
}

function pushAll<T>(to: T[], items: readonly T[] | undefined): void {
  if (items !== undefined) for (let i = 0; i < items.length; i++) to.push(items[i]!);
}

/** TPL-3 decision: warn where a `$.input…` template may be missing on some invocation of `routine`. */
function checkInputTemplates(routine: RoutineSource & { name: string }, expansion: Expansion, warned: Set<string>): void {
  // A routine's facts hold `input` as JSON unless its tree was kept (routine-facts.ts).
  const written = entry(routine.frontmatter, 'input')?.value;
  const json = written === undefined && routine.facts !== undefined;
  for (const use of expansion.paths) {
    const root = use.path.segments[0];
    if (root?.kind !== 'name' || root.name !== 'input') continue;
    const reason = json ? inputMayBeMissingJson(use.path, fieldJson(routine, 'input')) : inputMayBeMissing(use.path, written);
    if (reason === undefined) continue;
    const key = `${use.site.reporter.file}\n${use.site.span.start}\n${routine.name}`;
    if (warned.has(key)) continue;
    warned.add(key);
    warnAt(use.site, `Unexpected \`{{ ${use.text} }}\` in \`${routine.name}\`: ${reason}, expected a value every invocation provides`);
  }
}

function warnAt(site: Site, message: string): void {
  site.reporter.report('BP2221', site.span, message, {
    hint: "declare the value as required in the routine's `input` schema (`required` of an object, `minItems` of an array), or select it only where every call passes it: a missing value refuses the invocation before inference",
  });
}
