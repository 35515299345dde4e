import type { Code } from '../diagnostics/codes.js';
import type { Reporter, Span } from '../diagnostics/reporter.js';
import { closest, quoteList } from '../hints/did-you-mean.js';
import { describeNode, entry, type YMap, type YNode } from '../source/yaml-tree.js';
import type { RoutineContext } from './context.js';
import { expectBoolean, expectInteger, expectSeq, expectString } from './expect.js';
import { checkName } from './names.js';

export const COMPACTION_KEYS = ['max_tokens', 'keep_turns', 'summary'] as const;
export const CONFIGURE_KEYS = ['routine', 'fields'] as const;
export const ROUTE_KEYS = ['routine'] as const;

/** MISC-1 `compaction`. */
export function checkCompactionField(ctx: RoutineContext, node: YNode): void {
  const r = ctx.reporter;
  // "Not on classification" is reported once, by the classification checker (CLS-1 lists compaction too).
  const map = expectMapping(r, node, 'BP1460', '`compaction`', '`max_tokens` and `keep_turns`');
  if (!map) return;
  checkOwnKeys(r, map, COMPACTION_KEYS, 'BP1460', '`compaction`');
  checkRequiredKeys(r, map, COMPACTION_KEYS.slice(0, 2), 'BP1460', '`compaction`');
  const maxTokens = entry(map, 'max_tokens');
  if (maxTokens) expectCount(r, maxTokens.value, 'BP1461', '`compaction.max_tokens`', 1);
  const keepTurns = entry(map, 'keep_turns');
  if (keepTurns) expectCount(r, keepTurns.value, 'BP1461', '`compaction.keep_turns`', 0);
  // Only the name's syntax is checked here; that it names a plain generation routine is a package-wide check.
  const summary = entry(map, 'summary');
  if (summary) expectName(r, summary.value, 'BP1462', '`compaction.summary`');
}

/** MISC-2 `configure`. */
export function checkConfigureField(ctx: RoutineContext, node: YNode): void {
  const r = ctx.reporter;
  const map = expectMapping(r, node, 'BP1465', '`configure`', '`routine` and `fields`', mappingHint('configure', node, 'routine'));
  if (!map) return;
  checkOwnKeys(r, map, CONFIGURE_KEYS, 'BP1465', '`configure`');
  checkRequiredKeys(r, map, CONFIGURE_KEYS, 'BP1465', '`configure`');
  const routine = entry(map, 'routine');
  if (routine) expectName(r, routine.value, 'BP1466', '`configure.routine`');
  const fields = entry(map, 'fields');
  if (!fields || refuseRef(r, fields.value, '`configure.fields`')) return;
  const list = expectSeq(r, fields.value, 'BP1467', '`configure.fields`');
  if (!list) return;
  if (list.items.length === 0) {
    r.report('BP1467', list, 'Unexpected empty `configure.fields`, expected at least one field', {
      hint: 'list the fields the configure routine sets, or remove `configure`',
    });
    return;
  }
  const seen = new Map<string, Span>();
  for (const item of list.items) {
    if (refuseRef(r, item, '`configure.fields`')) continue;
    const value = expectString(r, item, 'BP1467', 'a `configure.fields` entry', { nonempty: true });
    if (value === undefined) continue;
    const first = seen.get(value);
    if (first) {
      r.report('BP1468', item, `Unexpected second \`${value}\` in \`configure.fields\`, expected each field once`, {
        related: [r.locate(first, `first \`${value}\` is here`)],
      });
    } else seen.set(value, item.span);
  }
}

/** MISC-3 `route`. */
export function checkRouteField(ctx: RoutineContext, node: YNode): void {
  const r = ctx.reporter;
  const map = expectMapping(r, node, 'BP1470', '`route`', '`routine`', mappingHint('route', node, 'routine'));
  if (!map) return;
  checkOwnKeys(r, map, ROUTE_KEYS, 'BP1470', '`route`');
  checkRequiredKeys(r, map, ROUTE_KEYS, 'BP1470', '`route`');
  const routine = entry(map, 'routine');
  if (routine) expectName(r, routine.value, 'BP1471', '`route.routine`');
}

export const PERMISSION_SELECTIONS = ['catalogs', 'tools'] as const;
const PERMISSION_FORMS = 'write a list of tool IDs (`- web.search`, or `[]` for none), `permissions: catalogs` or `permissions: tools`';

/** MISC-4 `permissions`. */
export function checkPermissionsField(ctx: RoutineContext, node: YNode): void {
  const r = ctx.reporter;
  if (refuseRef(r, node, '`permissions`')) return;
  if (node.kind === 'scalar') {
    if (typeof node.value === 'string' && (PERMISSION_SELECTIONS as readonly string[]).includes(node.value)) return;
    if (node.value === null) {
      r.report('BP1030', node, 'Unexpected null for `permissions`, expected a list, `catalogs` or `tools`', {
        hint: `${node.empty ? 'a key with nothing after it is null; ' : ''}write \`[]\` to remove optional tool access`,
      });
      return;
    }
    const guess = typeof node.value === 'string' ? closest(node.value, PERMISSION_SELECTIONS) : undefined;
    const got = typeof node.value === 'string' ? `\`${node.value}\`` : describeNode(node);
    r.report('BP1475', node, `Unexpected ${got} for \`permissions\`, expected a list of tool IDs, \`catalogs\` or \`tools\``, {
      hint: guess ? `did you mean \`${guess}\`?` : PERMISSION_FORMS,
    });
    return;
  }
  if (node.kind === 'map') {
    r.report('BP1475', node, 'Unexpected a mapping for `permissions`, expected a list of tool IDs, `catalogs` or `tools`', { hint: PERMISSION_FORMS });
    return;
  }
  const seen = new Map<string, Span>();
  for (const item of node.items) {
    const id = expectName(r, item, 'BP1476', 'a `permissions` entry');
    if (id === undefined) continue;
    const first = seen.get(id);
    if (first) {
      r.report('BP1477', item, `Unexpected second \`${id}\` in \`permissions\`, expected each tool ID once`, {
        related: [r.locate(first, `first \`${id}\` is here`)],
      });
    } else seen.set(id, item.span);
  }
}

function mappingHint(field: string, node: YNode, key: string): string | undefined {
  return node.kind === 'scalar' && typeof node.value === 'string' && !node.ref ? `write \`${field}:\` and below it \`  ${key}: ${node.value}\`` : undefined;
}

/*
 * Shared by the structured-field checkers (tools, next, port and the ones above): each
 * reports under the code of the rule that owns the field, and every one of them refuses a
 * `!ref` first (REF-4), so a misplaced `!ref` gets one diagnostic, not a type error as well.
 */

/** REF-4: in these fields `!ref` belongs only to `next.input` and `presentation.value`. True when `node` was one. */
export function refuseRef(r: Reporter, node: YNode, where: string): boolean {
  if (node.kind !== 'scalar' || !node.ref) return false;
  r.report('BP1490', node, `Unexpected \`!ref\` in ${where}, expected plain data`, {
    hint: '`!ref` captures a source address only inside schema `const`/`enum`, `next.input` and `presentation.value`; write the name without `!ref`',
  });
  return true;
}

/** A mapping; `inside` says what it holds, for the messages. Null is SRC-4. */
export function expectMapping(r: Reporter, node: YNode, code: Code, what: string, inside: string, hint?: string): YMap | undefined {
  if (refuseRef(r, node, what)) return undefined;
  if (node.kind === 'map') return node;
  if (node.kind === 'scalar' && node.value === null) {
    r.report('BP1030', node, `Unexpected null for ${what}, expected a mapping of ${inside}`, {
      hint: node.empty ? `a key with nothing after it is null; indent ${inside} below it` : `write ${inside} as a mapping`,
    });
    return undefined;
  }
  r.report(code, node, `Unexpected ${describeNode(node)} for ${what}, expected a mapping of ${inside}`, { hint });
  return undefined;
}

/** A routine, tool or target name: a string that passes NAME-1/NAME-2, reported under `code`. */
export function expectName(r: Reporter, node: YNode, code: Code, what: string): string | undefined {
  if (refuseRef(r, node, what)) return undefined;
  const value = expectString(r, node, code, what);
  if (value === undefined) return undefined;
  const problem = checkName(value);
  if (problem) {
    r.report(code, node, problem.message, { hint: problem.hint });
    return undefined;
  }
  return value;
}

export function expectCount(r: Reporter, node: YNode, code: Code, what: string, min: number): number | undefined {
  if (refuseRef(r, node, what)) return undefined;
  return expectInteger(r, node, code, what, min);
}

export function expectFlag(r: Reporter, node: YNode, code: Code, what: string): boolean | undefined {
  if (refuseRef(r, node, what)) return undefined;
  return expectBoolean(r, node, code, what);
}

/** Keys outside `allowed`, under the owning rule's code; `hints` holds a full hint for keys that belong elsewhere. */
export function checkOwnKeys(
  r: Reporter,
  map: YMap,
  allowed: readonly string[],
  code: Code,
  where: string,
  hints: Readonly<Record<string, string>> = {},
): boolean {
  let ok = true;
  for (const e of map.entries) {
    if (allowed.includes(e.key)) continue;
    ok = false;
    const guess = closest(e.key, allowed);
    r.report(code, e.keySpan, `Unexpected field \`${e.key}\` in ${where}, expected ${allowed.length === 1 ? 'only' : 'one of'} ${quoteList(allowed)}`, {
      hint: hints[e.key] ?? (guess ? `did you mean \`${guess}\`?` : undefined),
    });
  }
  return ok;
}

/** Required keys `map` lacks, in one diagnostic at the mapping. */
export function checkRequiredKeys(r: Reporter, map: YMap, required: readonly string[], code: Code, where: string): boolean {
  const missing = required.filter((key) => !entry(map, key));
  if (missing.length === 0) return true;
  r.report(code, map, `Unexpected ${where} without ${andList(missing)}, expected ${required.length === 1 ? '' : 'all of '}${andList(required)}`);
  return false;
}

export function andList(items: readonly string[]): string {
  const q = items.map((i) => '`' + i + '`');
  return q.length <= 1 ? q.join('') : `${q.slice(0, -1).join(', ')} and ${q[q.length - 1]}`;
}
