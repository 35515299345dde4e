import type { Code } from '../diagnostics/codes.js';
import type { Reporter } from '../diagnostics/reporter.js';
import { closest, quoteList } from '../hints/did-you-mean.js';
import { checkName } from '../routine/names.js';
import type { YMap, YNode, YSeq } from '../source/yaml-tree.js';

/** Structural checks for plugin.json values, in JSON's vocabulary (object, array). */

export function describeJsonNode(node: YNode): string {
  if (node.kind === 'map') return 'an object';
  if (node.kind === 'seq') return 'an array';
  if (node.value === null) return '`null`';
  if (typeof node.value === 'string') return 'a string';
  if (typeof node.value === 'boolean') return `\`${String(node.value)}\``;
  return `the number \`${node.value}\``;
}

export function expectObject(r: Reporter, node: YNode, code: Code, what: string, hint?: string): YMap | undefined {
  if (node.kind === 'map') return node;
  r.report(code, node, `Unexpected ${describeJsonNode(node)} for ${what}, expected an object`, {
    hint: hint ?? (node.kind === 'scalar' && node.value === null ? 'write `{}` for an empty object, or leave the field out' : undefined),
  });
  return undefined;
}

export function expectArray(r: Reporter, node: YNode, code: Code, what: string, hint?: string): YSeq | undefined {
  if (node.kind === 'seq') return node;
  r.report(code, node, `Unexpected ${describeJsonNode(node)} for ${what}, expected an array`, {
    hint:
      hint ??
      (node.kind === 'scalar' && node.value === null
        ? 'write `[]` for an empty array, or leave the field out'
        : node.kind === 'scalar' && typeof node.value === 'string'
          ? `write \`["${node.value}"]\``
          : undefined),
  });
  return undefined;
}

export function expectText(r: Reporter, node: YNode, code: Code, what: string, nonempty = true): string | undefined {
  if (node.kind === 'scalar' && typeof node.value === 'string') {
    if (nonempty && node.value.trim() === '') {
      r.report(code, node, `Unexpected empty string for ${what}, expected a nonempty string`);
      return undefined;
    }
    return node.value;
  }
  r.report(code, node, `Unexpected ${describeJsonNode(node)} for ${what}, expected a string`, {
    hint: node.kind === 'scalar' && node.value !== null ? `quote it: \`"${String(node.value)}"\`` : undefined,
  });
  return undefined;
}

/** A string that is a valid source name (NAME-1, NAME-2: BP1100, BP1101); `code` for a non-string. */
export function expectName(r: Reporter, node: YNode, code: Code, what: string): string | undefined {
  const name = expectText(r, node, code, what, false);
  if (name === undefined) return undefined;
  const problem = checkName(name);
  if (!problem) return name;
  r.report(problem.rule === 'NAME-2' ? 'BP1101' : 'BP1100', node, `${problem.message} (${what})`, { hint: problem.hint });
  return undefined;
}

/**
 * Reports every key not in `allowed`, with a specific hint where one is known (matched
 * ignoring case, `_` and `-`) or the closest allowed key.
 */
export function checkFields(r: Reporter, map: YMap, allowed: readonly string[], code: Code, where: string, hints: Readonly<Record<string, string>> = {}): void {
  for (const e of map.entries) {
    if (allowed.includes(e.key)) continue;
    const known = hints[fold(e.key)];
    const guess = closest(e.key, allowed);
    r.report(code, e.keySpan, `Unexpected field \`${e.key}\` in ${where}, expected one of ${quoteList(allowed)}`, {
      hint: known ?? (guess ? `did you mean \`${guess}\`?` : undefined),
    });
  }
}

export function fold(key: string): string {
  return key.toLowerCase().replace(/[_-]/g, '');
}
