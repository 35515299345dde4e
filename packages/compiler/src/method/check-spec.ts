import type { Reporter } from '../diagnostics/reporter.js';
import { closest, quoteList } from '../hints/did-you-mean.js';
import { describeNode, entry, type YMap, type YNode } from '../source/yaml-tree.js';
import { describeType } from './data-types.js';
import { expectMap } from './expect-node.js';
import type { LocalValue } from './templates.js';
import type { CheckSpec } from './types.js';

const FORMS = ['equals', 'count', 'present', 'file'] as const;

/**
 * MTH-9: plain English, or exactly one exact form whose names are the step's locals (`in`
 * and `each` aliases, outputs). Returns undefined after reporting.
 */
export function checkCheckSpec(r: Reporter, node: YNode, locals: ReadonlyMap<string, LocalValue>, step: string): CheckSpec | undefined {
  const where = `the check of step \`${step}\``;
  if (node.kind === 'scalar' && typeof node.value === 'string' && !node.ref) {
    if (node.value.trim() !== '') return { kind: 'english', text: node.value };
    r.report('BP6080', node, `Unexpected empty ${where}, expected plain-English criteria or one exact form`, {
      hint: 'no check means unchecked; remove `check` or write the criteria',
    });
    return undefined;
  }
  if (node.kind !== 'map' || node.entries.length !== 1) {
    const found =
      node.kind === 'map'
        ? node.entries.length === 0
          ? 'an empty mapping'
          : `${node.entries.length} forms (${quoteList(node.entries.map((e) => e.key))})`
        : describeNode(node);
    r.report('BP6080', node, `Unexpected ${found} for ${where}, expected plain-English text or exactly one of ${quoteList(FORMS)}`, {
      hint: node.kind === 'map' && node.entries.length > 1 ? 'write the other criteria in another step, or as plain-English text' : undefined,
    });
    return undefined;
  }
  const form = node.entries[0]!;
  const name = (value: YNode, what: string, expect?: 'list' | 'file'): string | undefined => checkLocalName(r, value, locals, `${what} of ${where}`, expect);
  switch (form.key) {
    case 'equals': {
      const map = formMap(r, form.value, ['actual', 'expected'], `\`equals\` of ${where}`, '{actual: returned_value, expected: supplied_value}');
      if (!map) return undefined;
      const actualEntry = entry(map, 'actual');
      const expectedEntry = entry(map, 'expected');
      if (!actualEntry || !expectedEntry) {
        r.report(
          'BP6080',
          map,
          `Unexpected \`equals\` without \`${actualEntry ? 'expected' : 'actual'}\` in ${where}, expected both \`actual\` and \`expected\``,
          {
            hint: 'supply a fixed expected value as an input with a default',
          },
        );
        return undefined;
      }
      const actual = name(actualEntry.value, '`equals.actual`');
      const expected = name(expectedEntry.value, '`equals.expected`');
      return actual !== undefined && expected !== undefined ? { kind: 'equals', actual, expected } : undefined;
    }
    case 'count': {
      const map = formMap(r, form.value, ['value', 'min', 'max'], `\`count\` of ${where}`, '{value: results, min: 1, max: 20}');
      if (!map) return undefined;
      const valueEntry = entry(map, 'value');
      const min = bound(r, map, 'min', where);
      const max = bound(r, map, 'max', where);
      if (!valueEntry) {
        r.report('BP6080', map, `Unexpected \`count\` without \`value\` in ${where}, expected the name of a list`);
        return undefined;
      }
      const value = name(valueEntry.value, '`count.value`', 'list');
      if (min === null || max === null) return undefined;
      if (min === undefined && max === undefined) {
        r.report('BP6080', form.keySpan, `Unexpected \`count\` without \`min\` or \`max\` in ${where}, expected at least one bound`);
        return undefined;
      }
      if (min !== undefined && max !== undefined && min > max) {
        r.report('BP6080', entry(map, 'min')!.value, `Unexpected \`min: ${min}\` above \`max: ${max}\` in ${where}, expected min ≤ max`);
        return undefined;
      }
      if (value === undefined) return undefined;
      return { kind: 'count', value, ...(min === undefined ? {} : { min }), ...(max === undefined ? {} : { max }) };
    }
    case 'present': {
      const n = name(form.value, '`present`');
      return n === undefined ? undefined : { kind: 'present', name: n };
    }
    case 'file': {
      const n = name(form.value, '`file`', 'file');
      return n === undefined ? undefined : { kind: 'file', name: n };
    }
    default: {
      const guess = closest(form.key, FORMS);
      r.report('BP6080', form.keySpan, `Unexpected check form \`${form.key}\` in ${where}, expected plain-English text or one of ${quoteList(FORMS)}`, {
        hint: guess ? `did you mean \`${guess}\`?` : 'write the criteria as plain-English text',
      });
      return undefined;
    }
  }
}

function formMap(r: Reporter, node: YNode, keys: readonly string[], what: string, example: string): YMap | undefined {
  const map = expectMap(r, node, 'BP6080', what, `write \`${example}\``);
  if (!map) return undefined;
  let ok = true;
  for (const e of map.entries) {
    if (keys.includes(e.key)) continue;
    const guess = closest(e.key, keys);
    r.report('BP6080', e.keySpan, `Unexpected \`${e.key}\` in ${what}, expected ${quoteList(keys)}`, {
      hint: guess ? `did you mean \`${guess}\`?` : undefined,
    });
    ok = false;
  }
  return ok ? map : undefined;
}

/** undefined: absent; null: present but refused. */
function bound(r: Reporter, map: YMap, key: 'min' | 'max', where: string): number | undefined | null {
  const e = entry(map, key);
  if (!e) return undefined;
  if (e.value.kind === 'scalar' && typeof e.value.value === 'number' && Number.isSafeInteger(e.value.value) && e.value.value >= 0) return e.value.value;
  r.report('BP6080', e.value, `Unexpected ${describeNode(e.value)} for \`count.${key}\` of ${where}, expected a nonnegative integer`);
  return null;
}

function checkLocalName(r: Reporter, node: YNode, locals: ReadonlyMap<string, LocalValue>, what: string, expect?: 'list' | 'file'): string | undefined {
  if (!(node.kind === 'scalar' && typeof node.value === 'string' && !node.ref)) {
    r.report('BP6080', node, `Unexpected ${describeNode(node)} for ${what}, expected the name of a local input or output`);
    return undefined;
  }
  const written = node.value;
  const local = locals.get(written);
  if (!local) {
    const guess = closest(written, locals.keys());
    r.report(
      'BP6081',
      node,
      `Unexpected \`${written}\` for ${what}, expected a local input or output${locals.size > 0 ? ` (${quoteList([...locals.keys()])})` : ''}`,
      {
        hint: written.includes('.')
          ? `checks name whole values; add an \`in\` alias (\`x: ${written}\`) and name \`x\``
          : guess
            ? `did you mean \`${guess}\`?`
            : 'name an `in` or `each` alias of the step or one of its outputs',
      },
    );
    return undefined;
  }
  if (local.kind === 'connection') {
    r.report('BP6082', node, `Unexpected connection \`${written}\` for ${what}, expected a data value`, {
      hint: 'to check a change, describe the evidence in plain English',
    });
    return undefined;
  }
  if (expect === undefined || local.type === undefined) return written;
  const fits = expect === 'list' ? local.type.type === 'list' : local.type.type === 'file';
  if (fits) return written;
  r.report('BP6082', node, `Unexpected \`${written}\` (${describeType(local.type)}) for ${what}, expected ${expect === 'list' ? 'a list' : 'a file'}`);
  return undefined;
}
