import type { Code } from '../diagnostics/codes.js';
import type { Reporter } from '../diagnostics/reporter.js';
import { closest, quoteList } from '../hints/did-you-mean.js';
import { describeNode, type YMap, type YNode, type YScalar, type YSeq } from '../source/yaml-tree.js';

/**
 * Small structural checks shared by every field checker. Each takes the code to report
 * for a wrong type (the rule that owns the field) and reports SRC-4 for a null where a
 * collection is required and SRC-6 for the colon-space trap where a string is required.
 */

export function expectMap(r: Reporter, node: YNode, code: Code, what: string, example = '{}'): YMap | undefined {
  if (node.kind === 'map') return node;
  if (node.kind === 'scalar' && node.value === null && !node.ref) {
    r.report('BP1030', node, `Unexpected null for ${what}, expected a mapping`, {
      hint: node.empty ? `a key with nothing after it is null; write \`${example}\` for an empty mapping` : `write \`${example}\` for an empty mapping`,
    });
    return undefined;
  }
  r.report(code, node, `Unexpected ${describeNode(node)} for ${what}, expected a mapping`);
  return undefined;
}

export function expectSeq(r: Reporter, node: YNode, code: Code, what: string): YSeq | undefined {
  if (node.kind === 'seq') return node;
  if (node.kind === 'scalar' && node.value === null && !node.ref) {
    r.report('BP1030', node, `Unexpected null for ${what}, expected a list`, {
      hint: node.empty ? 'a key with nothing after it is null; write `[]` for an empty list' : 'write `[]` for an empty list',
    });
    return undefined;
  }
  r.report(code, node, `Unexpected ${describeNode(node)} for ${what}, expected a list`);
  return undefined;
}

/** A string, or the colon-space trap reported as SRC-6 when YAML made a mapping of it. */
export function expectString(r: Reporter, node: YNode, code: Code, what: string, options: { nonempty?: boolean } = {}): string | undefined {
  if (node.kind === 'scalar' && typeof node.value === 'string' && !node.ref) {
    if (options.nonempty && node.value.trim() === '') {
      r.report(code, node, `Unexpected empty string for ${what}, expected a nonempty string`);
      return undefined;
    }
    return node.value;
  }
  if (isColonTrap(node)) {
    r.report('BP1050', node, `Unexpected mapping for ${what}, expected a string: an unquoted \`: \` made YAML read a mapping`, {
      hint: 'quote the whole value or write it as a block scalar after `|` or `>`',
    });
    return undefined;
  }
  r.report(code, node, `Unexpected ${describeNode(node)} for ${what}, expected a string`, typeHint(node));
  return undefined;
}

export function expectBoolean(r: Reporter, node: YNode, code: Code, what: string): boolean | undefined {
  if (node.kind === 'scalar' && typeof node.value === 'boolean') return node.value;
  r.report(code, node, `Unexpected ${describeNode(node)} for ${what}, expected \`true\` or \`false\``, {
    hint: node.kind === 'scalar' && typeof node.value === 'string' && /^(true|false)$/i.test(node.value) ? 'write it unquoted, in lowercase' : undefined,
  });
  return undefined;
}

/** A safe integer within [min, ∞). */
export function expectInteger(r: Reporter, node: YNode, code: Code, what: string, min: number): number | undefined {
  if (node.kind === 'scalar' && typeof node.value === 'number' && Number.isSafeInteger(node.value) && node.value >= min) return node.value;
  const expected = min === 1 ? 'a positive safe integer' : min === 0 ? 'a nonnegative safe integer' : `a safe integer of at least ${min}`;
  const got = node.kind === 'scalar' && typeof node.value === 'number' ? `\`${node.value}\`` : describeNode(node);
  r.report(code, node, `Unexpected ${got} for ${what}, expected ${expected}`);
  return undefined;
}

/**
 * Reports every key of `map` not in `allowed` (SRC-3), with "belongs inside" or
 * "did you mean" hints. Returns true when all keys are known.
 */
export function checkKeys(r: Reporter, map: YMap, allowed: readonly string[], where: string, belongs: Readonly<Record<string, string>> = {}): boolean {
  let ok = true;
  for (const e of map.entries) {
    if (allowed.includes(e.key)) continue;
    ok = false;
    r.report('BP1020', e.keySpan, `Unexpected field \`${e.key}\` in ${where}, expected one of ${quoteList(allowed)}`, {
      hint: unknownFieldHint(e.key, allowed, belongs),
    });
  }
  return ok;
}

export function unknownFieldHint(key: string, allowed: readonly string[], belongs: Readonly<Record<string, string>>): string | undefined {
  const home = belongs[key];
  if (home) return `\`${key}\` belongs inside ${home}`;
  const guess = closest(key, allowed);
  return guess ? `did you mean \`${guess}\`?` : undefined;
}

export function isColonTrap(node: YNode): boolean {
  return node.kind === 'map' && !node.flow && node.entries.length === 1;
}

function typeHint(node: YNode): { hint?: string } {
  if (node.kind === 'scalar' && (typeof node.value === 'number' || typeof node.value === 'boolean' || (node.value === null && !node.empty))) {
    return { hint: `quote it to make it a string: \`'${String(node.value)}'\`` };
  }
  return {};
}

export type { YScalar };
