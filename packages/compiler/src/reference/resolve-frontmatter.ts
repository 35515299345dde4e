import type { Code } from '../diagnostics/codes.js';
import type { Reporter, Span } from '../diagnostics/reporter.js';
import type { RoutineSource } from '../routine/check-routine.js';
import { mapAt, schemaRoot } from '../routine/model-schema-view.js';
import { checkName } from '../routine/names.js';
import { fieldKeySpan } from '../routine/routine-facts.js';
import { andList } from '../routine/check-misc.js';
import { entry, type YMap, type YNode } from '../source/yaml-tree.js';
import { expressionJson, plainJson, refsIn, resolveRef, type ValueExpression } from './resolve-expression.js';
import type { Target } from './resolve-name.js';
import { externalAdvice, notCallable, resolveAt, type Place, type ResolveContext } from './resolve-report.js';

export interface ResolvedTool {
  /** As written. */
  key: string;
  target: Target;
  /** `{async?, output?, limits?, presentation?: {when, value: ValueExpression}}`; `{}` for a plain name. */
  options: unknown;
}

/** `to` / `cases` values are `null` only where resolution failed (an error was reported) or, in cases, where `null` ends the chain. */
export type ResolvedNext = { to: Target | null } | { select: string; cases: Record<string, Target | null> };

export interface FrontmatterResolution {
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
  /** External tool names `tools` and `next` use. */
  externals: string[];
  /** A connection declares `presentation` (TOOL-5: runtime.ui.publish). */
  ui: boolean;
}

interface CallPlace extends Place {
  notCallable: Code;
  role: string;
}

const SCHEMA_FIELDS = ['input', 'output'] as const;

/**
 * The package-wide part of a routine's frontmatter: TOOL-6, NEXT-5, MISC-1..3 and the
 * `!ref`s of REF-4, each resolved by REF-2 from the routine's own namespace.
 */
export function resolveFrontmatter(ctx: ResolveContext, routine: RoutineSource, namespace: string, r: Reporter): FrontmatterResolution {
  const fm = routine.frontmatter;
  const refs: Target[] = [];
  const externals: string[] = [];
  const out: FrontmatterResolution = { tools: [], refs, externals, ui: false };
  const callable = (name: string, span: Span, place: CallPlace): Target | undefined => {
    const target = resolveAt(ctx, name, namespace, { reporter: r, span }, place);
    if (!target) return undefined;
    const problem = notCallable(ctx, target);
    if (problem) {
      r.report(place.notCallable, span, `Unexpected ${problem.what} as ${place.role}, expected ${place.expected}`, { hint: problem.hint });
      return undefined;
    }
    if (target.kind === 'external') externals.push(target.name);
    return target;
  };

  const tools = entry(fm, 'tools')?.value;
  if (tools?.kind === 'seq') {
    const place: CallPlace = { ...TOOL, advice: externalAdvice(ctx) };
    const seen = new Set<string>();
    for (const item of tools.items) {
      const written = toolEntry(item);
      if (!written || seen.has(written.key)) continue;
      seen.add(written.key);
      const target = callable(written.key, written.span, place);
      if (!target) continue;
      out.tools.push({ key: written.key, target, options: optionsJson(ctx, r, written.options, namespace, refs) });
      if (written.options?.kind === 'map' && entry(written.options, 'presentation')) out.ui = true;
    }
  }

  const next = entry(fm, 'next')?.value;
  if (next) {
    const place: CallPlace = { ...NEXT, advice: externalAdvice(ctx) };
    const target = (node: YNode | undefined): Target | null => {
      const name = nameOf(node);
      return node && name !== undefined ? (callable(name, node.span, place) ?? null) : null;
    };
    if (next.kind === 'scalar') {
      if (nameOf(next) !== undefined) out.next = { to: target(next) };
    } else if (next.kind === 'map') {
      const to = entry(next, 'to');
      const select = entry(next, 'select')?.value;
      const cases = entry(next, 'cases')?.value;
      if (to) out.next = { to: target(to.value) };
      else if (select?.kind === 'scalar' && typeof select.value === 'string' && cases?.kind === 'map') {
        out.next = { select: select.value, cases: Object.fromEntries(cases.entries.map((e) => [e.key, target(e.value)])) };
      }
      const input = entry(next, 'input');
      if (input) out.nextInput = expressionJson(ctx, r, input.value, namespace, refs);
      const output = entry(next, 'output')?.value;
      if (output?.kind === 'scalar' && typeof output.value === 'boolean') out.nextOutput = output.value;
    }
  }

  for (const [field, place] of [
    ['configure', CONFIGURE],
    ['route', ROUTE],
  ] as const) {
    const node = mapAt(fm, field) && entry(mapAt(fm, field)!, 'routine')?.value;
    const name = nameOf(node);
    if (!node || name === undefined) continue;
    const target = callable(name, node.span, place);
    if (target) out[field] = target;
  }

  const summaryNode = mapAt(fm, 'compaction') && entry(mapAt(fm, 'compaction')!, 'summary')?.value;
  const summaryName = nameOf(summaryNode);
  if (summaryNode && summaryName !== undefined) {
    const target = resolveAt(ctx, summaryName, namespace, { reporter: r, span: summaryNode.span }, SUMMARY);
    if (target && plainGeneration(ctx, r, target, summaryNode.span)) out.summary = target;
  }

  for (const field of SCHEMA_FIELDS) {
    const node = entry(fm, field)?.value;
    const root = node && schemaRoot(node);
    if (root && root === node) for (const ref of schemaRefs(root)) resolveRef(ctx, r, ref.node, namespace, refs);
  }
  return out;
}

const CALLABLE = 'a model or code routine, a callable import or an external tool';
const LOCAL_CALLABLE = 'a model or code routine or a callable import';

const TOOL: CallPlace = { missing: 'BP2110', notCallable: 'BP2111', what: 'tool', role: 'a tool', expected: CALLABLE, allowExternal: true };
const NEXT: CallPlace = { missing: 'BP2115', notCallable: 'BP2116', what: '`next` target', role: 'a `next` target', expected: CALLABLE, allowExternal: true };
const CONFIGURE: CallPlace = { missing: 'BP2125', notCallable: 'BP2126', what: '`configure.routine`', role: '`configure.routine`', expected: LOCAL_CALLABLE };
const ROUTE: CallPlace = { missing: 'BP2127', notCallable: 'BP2128', what: '`route.routine`', role: '`route.routine`', expected: LOCAL_CALLABLE };
const SUMMARY: Place = { missing: 'BP2120', what: '`compaction.summary`', expected: 'a plain generation routine' };

/** A tools entry as written: `- name` or `- name: options`. */
function toolEntry(item: YNode): { key: string; span: Span; options: YNode | undefined } | undefined {
  if (item.kind === 'scalar') {
    return typeof item.value === 'string' && !item.ref && checkName(item.value) === undefined
      ? { key: item.value, span: item.span, options: undefined }
      : undefined;
  }
  if (item.kind !== 'map' || item.entries.length !== 1) return undefined;
  const only = item.entries[0]!;
  return checkName(only.key) === undefined ? { key: only.key, span: only.keySpan, options: only.value } : undefined;
}

function nameOf(node: YNode | undefined): string | undefined {
  return node?.kind === 'scalar' && typeof node.value === 'string' && !node.ref && checkName(node.value) === undefined ? node.value : undefined;
}

/** TOOL-2 options as JSON: the short form `name: async` is `{async: true}`; `presentation.value` is an expression. */
function optionsJson(ctx: ResolveContext, r: Reporter, node: YNode | undefined, namespace: string, refs: Target[]): unknown {
  if (node?.kind === 'scalar' && node.value === 'async' && !node.ref) return { async: true };
  if (node?.kind !== 'map') return {};
  const out: Record<string, unknown> = {};
  for (const key of ['async', 'output'] as const) {
    const v = entry(node, key)?.value;
    if (v?.kind === 'scalar' && typeof v.value === 'boolean') out[key] = v.value;
  }
  const limits = entry(node, 'limits')?.value;
  if (limits?.kind === 'map') out.limits = plainJson(limits);
  const presentation = entry(node, 'presentation')?.value;
  if (presentation?.kind === 'map') {
    const when = entry(presentation, 'when')?.value;
    const value = entry(presentation, 'value')?.value;
    out.presentation = {
      when: when?.kind === 'scalar' ? when.value : null,
      value: value ? expressionJson(ctx, r, value, namespace, refs) : null,
    };
  }
  return out;
}

/** MISC-1: the summary routine is a plain generation routine. */
function plainGeneration(ctx: ResolveContext, r: Reporter, target: Target, span: Span): boolean {
  const role = '`compaction.summary`';
  const expected = 'expected a plain generation routine without tools, port, input, output or compaction';
  if (target.kind === 'import') {
    const kind = ctx.table.imports.get(target.alias)?.kind;
    if (kind === 'model') return true;
    r.report('BP2121', span, `Unexpected the import \`${target.alias}\` (${kind === 'opaque' ? 'without `export`' : kind}) as ${role}, ${expected}`);
    return false;
  }
  if (target.kind !== 'source') return false;
  const source = ctx.table.sources.get(target.name);
  if (!source) return false;
  if (source.kind !== 'model') {
    r.report('BP2121', span, `Unexpected ${source.kind === 'code' ? 'code routine' : 'instructions'} \`${target.name}\` as ${role}, ${expected}`, {
      hint: 'a summary is written by a model routine with `model.select.operation: generation`',
    });
    return false;
  }
  const declared = ['tools', 'port', 'input', 'output', 'compaction'].filter((key) => {
    if (key !== 'tools') return fieldKeySpan(source, key) !== undefined;
    const v = entry(source.frontmatter, key)?.value;
    // `tools: []` offers no tools, so it is as plain as no `tools` at all.
    return v !== undefined && !(v.kind === 'seq' && v.items.length === 0);
  });
  const classification = isClassification(source);
  if (declared.length === 0 && !classification) return true;
  const problems = [...(classification ? ['is a classification routine'] : []), ...(declared.length > 0 ? [`declares ${andList(declared)}`] : [])];
  const related = declared.map((key) => {
    const { line, column } = source.lines.position(fieldKeySpan(source, key)!.start);
    return { file: source.file, line, column, message: `\`${key}\` is declared here` };
  });
  r.report('BP2121', span, `Unexpected \`${target.name}\` as ${role}: it ${problems.join(' and ')}, ${expected}`, {
    hint: 'a summary routine condenses the conversation it is given: give it only `model` (operation `generation`) and its instructions',
    related,
  });
  return false;
}

function isClassification(source: RoutineSource): boolean {
  if (source.facts) return source.facts.classification;
  const select = mapAt(mapAt(source.frontmatter, 'model'), 'select');
  const operation = select && entry(select, 'operation')?.value;
  return operation?.kind === 'scalar' && operation.value === 'classification';
}

/** `!ref`s inside `const`/`enum` of a native schema, at any depth (REF-4). */
function schemaRefs(schema: YMap, depth = 0): { node: Extract<YNode, { kind: 'scalar' }> }[] {
  if (depth > 64) return [];
  const out: { node: Extract<YNode, { kind: 'scalar' }> }[] = [];
  for (const e of schema.entries) {
    if (e.key === 'const' || e.key === 'enum') for (const node of refsIn(e.value)) out.push({ node });
    else if (e.key === 'properties' && e.value.kind === 'map') {
      for (const p of e.value.entries) if (p.value.kind === 'map') out.push(...schemaRefs(p.value, depth + 1));
    } else if ((e.key === 'items' || e.key === 'additionalProperties' || e.key === 'propertyNames') && e.value.kind === 'map') {
      out.push(...schemaRefs(e.value, depth + 1));
    } else if (e.key === 'oneOf' && e.value.kind === 'seq') {
      for (const s of e.value.items) if (s.kind === 'map') out.push(...schemaRefs(s, depth + 1));
    }
  }
  return out;
}
