import type { Reporter, Span } from '../diagnostics/reporter.js';
import { closest, quoteList } from '../hints/did-you-mean.js';
import { describeNode, entry, type YMap, type YNode } from '../source/yaml-tree.js';
import { checkName, lookup } from './names.js';
import { expectMap, expectText } from './expect-node.js';
import { elementType, type DataType } from './types.js';

export const DATA_TYPES = ['text', 'number', 'boolean', 'record', 'list', 'file'] as const;
type TypeName = (typeof DATA_TYPES)[number];

/** Where a declaration stands: its section decides the extra keys it may carry. */
export type DeclarationPlace = 'inputs' | 'state' | 'out';

/** No method needs deeper types, and a bound keeps every walk over them shallow. */
export const MAX_TYPE_DEPTH = 32;

const BASE_KEYS = ['type', 'description', 'fields', 'items', 'format'] as const;
const EXTRA_KEYS: Record<DeclarationPlace, readonly string[]> = { inputs: ['default'], state: ['file', 'default'], out: [] };
const TYPE_GUESSES: Readonly<Record<string, TypeName>> = {
  string: 'text',
  str: 'text',
  integer: 'number',
  int: 'number',
  float: 'number',
  bool: 'boolean',
  object: 'record',
  map: 'record',
  array: 'list',
  sequence: 'list',
  path: 'file',
};

export function describeType(type: DataType): string {
  if (type.type === 'list') {
    const element = elementType(type);
    return element.type === 'record' ? 'a list of records' : `a list of ${element.type}`;
  }
  return type.type === 'text' ? 'text' : type.type === 'file' ? 'a file' : `a ${type.type}`;
}

/**
 * MTH-3 for one declaration (and MTH-17's "no path in `out`"). `depth` 0 is a declaration
 * under inputs, state or out; deeper ones are record fields and list items, whose
 * description is optional (decision: the spec asks a description of each declared datum,
 * and a field's name plus its parent's description usually says enough).
 */
export function checkDeclaration(r: Reporter, node: YNode, place: DeclarationPlace, what: string, at: Span, depth = 0): DataType | undefined {
  const map = expectMap(r, node, 'BP6020', what, 'a declaration is a mapping such as `{type: text, description: …}`');
  if (!map) return undefined;
  if (depth > MAX_TYPE_DEPTH) {
    r.report('BP6022', map, `Unexpected types nested deeper than ${MAX_TYPE_DEPTH} levels in ${what}, expected a shallower shape`);
    return undefined;
  }
  let ok = checkDeclarationKeys(r, map, place, what, depth);
  const typeEntry = entry(map, 'type');
  const descriptionEntry = entry(map, 'description');
  let description: string | undefined;
  if (descriptionEntry) {
    description = expectText(r, descriptionEntry.value, 'BP6020', `the description of ${what}`);
    ok &&= description !== undefined;
  } else if (depth === 0) {
    r.report('BP6020', at, `Unexpected declaration of ${what} without \`description\`, expected \`type\` and \`description\``, {
      hint: 'describe the data in plain English: what it holds and what makes it correct',
    });
    ok = false;
  }
  if (!typeEntry) {
    r.report('BP6020', at, `Unexpected declaration of ${what} without \`type\`, expected one of ${quoteList(DATA_TYPES)}`);
    return undefined;
  }
  const type = typeName(r, typeEntry.value, what);
  if (type === undefined) return undefined;
  if (place === 'state' && type === 'file') {
    refuseStateFile(r, typeEntry.value, what);
    ok = false;
  }
  const fields = entry(map, 'fields');
  const items = entry(map, 'items');
  const format = entry(map, 'format');
  for (const [e, allowedFor] of [
    [fields, ['record', 'list']],
    [items, ['list']],
    [format, ['file']],
  ] as const) {
    if (e && !(allowedFor as readonly string[]).includes(type)) {
      r.report('BP6023', e.keySpan, `Unexpected \`${e.key}\` on a ${type} declaration (${what}), expected it only on ${quoteList(allowedFor)}`, {
        hint: e.key === 'format' ? 'only a file declares a format (markdown, csv, …); describe the expected form of other data in its description' : undefined,
      });
      ok = false;
    }
  }
  const base = description === undefined ? {} : { description };
  switch (type) {
    case 'text':
    case 'number':
    case 'boolean':
      return ok ? { type, ...base } : undefined;
    case 'file': {
      const f = format ? expectText(r, format.value, 'BP6023', `the format of ${what}`) : undefined;
      if (format && f === undefined) return undefined;
      return ok ? { type, ...base, ...(f === undefined ? {} : { format: f }) } : undefined;
    }
    case 'record': {
      if (!fields) {
        r.report('BP6022', typeEntry.value, `Unexpected record ${what} without \`fields\`, expected a mapping of field names to types`);
        return undefined;
      }
      const checked = checkFields(r, fields.value, place, what, depth);
      return ok && checked ? { type, ...base, fields: checked } : undefined;
    }
    case 'list': {
      if ((fields === undefined) === (items === undefined)) {
        r.report(
          'BP6022',
          fields && items ? items.keySpan : typeEntry.value,
          `Unexpected list ${what} with ${fields ? 'both `fields` and `items`' : 'neither `fields` nor `items`'}, expected exactly one`,
          {
            hint: '`fields` makes a list of records; `items` gives the one type of every item',
          },
        );
        return undefined;
      }
      if (fields) {
        const checked = checkFields(r, fields.value, place, what, depth);
        return ok && checked ? { type, ...base, fields: checked } : undefined;
      }
      const item = checkNestedType(r, items!.value, place, `the items of ${what}`, items!.keySpan, depth + 1);
      return ok && item ? { type, ...base, items: item } : undefined;
    }
  }
}

function checkDeclarationKeys(r: Reporter, map: YMap, place: DeclarationPlace, what: string, depth: number): boolean {
  const allowed = [...BASE_KEYS, ...(depth === 0 ? EXTRA_KEYS[place] : [])];
  let ok = true;
  for (const e of map.entries) {
    if (allowed.includes(e.key)) continue;
    ok = false;
    if (place === 'out' && (e.key === 'path' || e.key === 'file')) {
      r.report('BP6161', e.keySpan, `Unexpected \`${e.key}\` in the declaration of ${what}, expected no location`, {
        hint: 'remove it: the method assigns locations to file outputs, captures their hashes and records them; describe the content instead',
      });
      continue;
    }
    r.report('BP6023', e.keySpan, `Unexpected \`${e.key}\` in the declaration of ${what}, expected one of ${quoteList(allowed)}`, {
      hint: keyHint(e.key, allowed, depth),
    });
  }
  return ok;
}

function keyHint(key: string, allowed: readonly string[], depth: number): string | undefined {
  if (key === 'default')
    return depth > 0
      ? 'give the default on the whole input or state, not on a nested type'
      : 'defaults belong to inputs and state; an output is returned by its step';
  if (key === 'file') return '`file` belongs to state declarations: the path of its JSON file in the data folder';
  if (key === 'properties') return 'write `fields`';
  if (key === 'required') return 'every declared field is required; remove it';
  if (key === 'enum') return 'list the allowed values in the description and check them where useful';
  const guess = closest(key, allowed);
  return guess ? `did you mean \`${guess}\`?` : undefined;
}

function typeName(r: Reporter, node: YNode, what: string): TypeName | undefined {
  if (node.kind === 'scalar' && typeof node.value === 'string' && (DATA_TYPES as readonly string[]).includes(node.value)) return node.value as TypeName;
  const written = node.kind === 'scalar' && typeof node.value === 'string' ? `type \`${node.value}\`` : describeNode(node);
  const guess =
    node.kind === 'scalar' && typeof node.value === 'string' ? (lookup(TYPE_GUESSES, node.value.toLowerCase()) ?? closest(node.value, DATA_TYPES)) : undefined;
  r.report('BP6021', node, `Unexpected ${written} for ${what}, expected one of ${quoteList(DATA_TYPES)}`, {
    hint: guess ? `did you mean \`${guess}\`?` : undefined,
  });
  return undefined;
}

/**
 * MTH-3 and its decision: where a type is expected (each value of `fields`, and `items`) it is
 * a bare type name (`person: text`) or a nested declaration (`{type: text, description?: …}`);
 * both mean the same type. A bare `record` or `list` has no room for its fields or items.
 */
function checkNestedType(r: Reporter, node: YNode, place: DeclarationPlace, what: string, at: Span, depth: number): DataType | undefined {
  if (node.kind === 'map') return checkDeclaration(r, node, place, what, at, depth);
  if (node.kind !== 'scalar') {
    r.report('BP6020', node, `Unexpected ${describeNode(node)} for ${what}, expected a type name or a declaration`, {
      hint: 'write a type name such as `text`, or a mapping such as `{type: list, items: text}`',
    });
    return undefined;
  }
  const type = typeName(r, node, what);
  if (type === undefined) return undefined;
  if (type === 'record' || type === 'list') {
    r.report('BP6022', node, `Unexpected bare \`${type}\` for ${what}, expected a declaration with ${type === 'record' ? '`fields`' : '`fields` or `items`'}`, {
      hint:
        type === 'record' ? 'write `{type: record, fields: {name: text, …}}`' : 'write `{type: list, items: text}` or `{type: list, fields: {name: text, …}}`',
    });
    return undefined;
  }
  if (place === 'state' && type === 'file') {
    refuseStateFile(r, node, what);
    return undefined;
  }
  return { type };
}

function refuseStateFile(r: Reporter, node: YNode, what: string): void {
  r.report('BP6043', node, `Unexpected type \`file\` in state ${what}, expected a JSON type`, {
    hint: 'state is JSON data saved by the runner; keep a file as a step output and store what you need about it (a name, a URL) as text',
  });
}

function checkFields(r: Reporter, node: YNode, place: DeclarationPlace, what: string, depth: number): Record<string, DataType> | undefined {
  const map = expectMap(r, node, 'BP6022', `the fields of ${what}`);
  if (!map) return undefined;
  if (map.entries.length === 0) {
    r.report('BP6022', map, `Unexpected empty \`fields\` in ${what}, expected at least one field`);
    return undefined;
  }
  const fields: Record<string, DataType> = {};
  let ok = true;
  for (const e of map.entries) {
    // A field always follows a dot, so it can never be read as a reference root.
    const named = checkName(r, e.key, e.keySpan, 'field name', false);
    const type = checkNestedType(r, e.value, place, `field \`${e.key}\` of ${what}`, e.keySpan, depth + 1);
    if (!type || !named) ok = false;
    else defineField(fields, e.key, type);
  }
  return ok ? fields : undefined;
}

/** Own data property even for `__proto__`, which a plain assignment would turn into a prototype. */
export function defineField<T>(target: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * MTH-5: a default checked against its type. Stops at the first mismatch, reported at the
 * offending node, so a long wrong list yields one diagnostic.
 */
export function checkValue(r: Reporter, node: YNode, type: DataType, what: string): boolean {
  const wrong = (expected: string): false => {
    r.report('BP6040', node, `Unexpected ${describeNode(node)} in ${what}, expected ${expected}`);
    return false;
  };
  switch (type.type) {
    case 'text':
      return (node.kind === 'scalar' && typeof node.value === 'string' && !node.ref) || wrong('text (a string)');
    case 'number':
      return (node.kind === 'scalar' && typeof node.value === 'number') || wrong('a number');
    case 'boolean':
      return (node.kind === 'scalar' && typeof node.value === 'boolean') || wrong('`true` or `false`');
    case 'file':
      r.report('BP6043', node, `Unexpected default for a file in ${what}, expected none`, {
        hint: 'files come from a step output or the run input; remove the default',
      });
      return false;
    case 'record': {
      if (node.kind !== 'map') return wrong('a record (a mapping)');
      for (const e of node.entries) {
        if (!Object.hasOwn(type.fields, e.key)) {
          r.report('BP6040', e.keySpan, `Unexpected field \`${e.key}\` in ${what}, expected only declared fields (${quoteList(Object.keys(type.fields))})`);
          return false;
        }
      }
      for (const [name, fieldType] of Object.entries(type.fields)) {
        const e = entry(node, name);
        if (!e) {
          r.report('BP6040', node, `Unexpected record without field \`${name}\` in ${what}, expected every declared field`, {
            hint: 'all declared fields are required',
          });
          return false;
        }
        if (!checkValue(r, e.value, fieldType, `${what}, field \`${name}\``)) return false;
      }
      return true;
    }
    case 'list': {
      if (node.kind !== 'seq') return wrong('a list');
      const element = elementType(type);
      return node.items.every((item, i) => checkValue(r, item, element, `${what}, item ${i}`));
    }
  }
}
