import type { Reporter } from '../diagnostics/reporter.js';
import { quoteList } from '../hints/did-you-mean.js';
import type { RoutineContext } from '../routine/context.js';
import { expectInteger, expectMap, expectSeq, expectString } from '../routine/expect.js';
import { describeNode, entry, type YEntry, type YMap, type YNode } from '../source/yaml-tree.js';
import { checkDocumentSchema } from './check-document.js';
import { describeValue, fitsType, TYPE_VALUES, valueHint } from './fit-type.js';
import { jsonKey } from './json-key.js';
import { refusedByParser } from './refused-by-parser.js';
import { ALL_KEYWORDS, foreignKeywordHint, isSchemaType, KEYWORDS_BY_TYPE, keywordOwner, SCHEMA_TYPES, typeNameHint, type SchemaType } from './keywords.js';

/** SCH-10: the root schema is level 1. */
export const MAX_SCHEMA_DEPTH = 64;

/** SCH-1..10 on `input` or `output`. */
export function checkSchemaField(ctx: RoutineContext, node: YNode, field: 'input' | 'output'): void {
  checkSchemaNode(ctx.reporter, node, field);
}

/**
 * SCH-1..10 on a root schema found anywhere (`input`, a tool's options, …). `where` is
 * its path as messages show it, without backticks (`input`, `tools[0].output`). A root
 * schema may be an independent document (SCH-2); nested schemas are native only.
 */
export function checkSchemaNode(reporter: Reporter, node: YNode, where: string): void {
  const map = expectSchemaMap(reporter, node, where);
  if (!map) return;
  if (entry(map, 'document')) checkDocumentSchema(reporter, map, where);
  else new SchemaWalk(reporter).check(map, where, 1);
}

/**
 * One recursive pass over a native schema. Recursion follows schema positions only and
 * stops at level 65, so its depth is bounded whatever the tree.
 */
class SchemaWalk {
  /** SCH-10 is reported once per root: every deeper branch repeats the same mistake. */
  private tooDeep = false;

  constructor(private readonly r: Reporter) {}

  private schemaAt(node: YNode, path: string, level: number): void {
    if (level > MAX_SCHEMA_DEPTH) {
      if (!this.tooDeep) {
        this.tooDeep = true;
        this.r.report('BP1209', node, `Unexpected schema at nesting level ${level} (\`${shorten(path)}\`), expected at most ${MAX_SCHEMA_DEPTH} levels`, {
          hint: 'flatten the structure, or accept the deep part as any JSON value (`{}`) and check it in a code routine',
        });
      }
      return;
    }
    const map = expectSchemaMap(this.r, node, path);
    if (map) this.check(map, path, level);
  }

  check(map: YMap, path: string, level: number): void {
    const r = this.r;
    const typeEntry = entry(map, 'type');
    const type = typeEntry ? readType(r, typeEntry.value, path) : undefined;
    const allowed = KEYWORDS_BY_TYPE[type ?? 'untyped'];
    for (const e of map.entries) {
      if (e.key === 'type') continue;
      if (!ALL_KEYWORDS.includes(e.key)) {
        r.report('BP1203', e.keySpan, `Unexpected keyword \`${e.key}\` in \`${path}\`, expected one of ${quoteList(allowed)}`, {
          hint: foreignKeywordHint(e.key, allowed),
        });
        continue;
      }
      if (e.key === 'required' && e.value.kind === 'scalar' && typeof e.value.value === 'boolean') {
        // Draft 3 / OpenAPI `required: true` on a property: the fix is in the parent, not a `type` here.
        this.checkRequired(e.value, `\`${path}.required\``);
        continue;
      }
      const owner = keywordOwner(e.key);
      if (owner !== undefined && !typeEntry) {
        r.report('BP1204', e.keySpan, `Unexpected \`${e.key}\` without \`type\` in \`${path}\`, expected an explicit \`type\` beside it`, {
          hint: `add ${owner}: type-specific keywords require the explicit type`,
        });
      } else if (owner !== undefined && type !== undefined && !allowed.includes(e.key)) {
        r.report('BP1240', e.keySpan, `Unexpected \`${e.key}\` in a \`${type}\` schema at \`${path}\`, expected one of ${quoteList(allowed)}`, {
          hint: `\`${e.key}\` belongs to ${owner} schemas`,
        });
        // Meaningless for this type, so its value is not judged; without any `type`
        // (SCH-5) it probably only lacks the type, and its value is checked below.
        continue;
      }
      this.keyword(e, type, path, level);
    }
    if (type === 'array' && typeEntry && !entry(map, 'items')) {
      r.report('BP1205', typeEntry.value, `Unexpected array schema without \`items\` at \`${path}\`, expected \`items\``, {
        hint: 'add `items: {}` to accept any element, or the schema every element must match',
      });
    }
    if (type === undefined || type === 'array') this.checkOrder(map, 'minItems', 'maxItems', 'BP1262', path, (n) => nonnegativeInteger(n));
    if (type === undefined || type === 'number' || type === 'integer') this.checkOrder(map, 'minimum', 'maximum', 'BP1291', path, (n) => bound(n, type));
    if (type === undefined || type === 'object') this.checkClosedRequired(map, path);
  }

  private keyword(e: YEntry, type: SchemaType | undefined, path: string, level: number): void {
    const r = this.r;
    const node = e.value;
    const at = `\`${path}.${e.key}\``;
    if (refusedByParser(r, node)) return;
    switch (e.key) {
      case 'description':
        expectString(r, node, 'BP1241', at);
        return;
      case 'const':
        this.checkValue(node, type, at);
        return;
      case 'enum': {
        const seq = expectSeq(r, node, 'BP1207', at);
        if (!seq) return;
        if (seq.items.length === 0) {
          r.report('BP1207', node, `Unexpected empty list for ${at}, expected at least one value`, {
            hint: 'an empty `enum` accepts nothing; list the allowed values',
          });
          return;
        }
        const seen = new Map<string, YNode>();
        for (const item of seq.items) {
          if (refusedByParser(r, item)) continue;
          const key = jsonKey(item);
          const first = seen.get(key);
          if (first) {
            r.report('BP1280', item, `Unexpected repeated value in ${at}, expected distinct JSON values`, {
              related: [r.locate(first, 'the equal value is here')],
              hint: 'remove the repetition (JSON equality: `1` and `1.0` are equal; key order does not matter)',
            });
            continue;
          }
          seen.set(key, item);
          this.checkValue(item, type, at);
        }
        return;
      }
      case 'oneOf': {
        const seq = expectSeq(r, node, 'BP1281', at);
        if (!seq) return;
        if (seq.items.length === 0) {
          r.report('BP1281', node, `Unexpected empty list for ${at}, expected at least one schema`, {
            hint: 'an empty `oneOf` accepts nothing; remove it or list the alternatives',
          });
          return;
        }
        seq.items.forEach((item, i) => this.schemaAt(item, `${path}.oneOf[${i}]`, level + 1));
        return;
      }
      case 'minimum':
      case 'maximum':
        checkBound(r, node, type, e.key, at);
        return;
      case 'items':
        if (node.kind === 'seq') {
          r.report('BP1260', node, `Unexpected a list for ${at}, expected one schema for every element`, {
            hint:
              node.items.length === 1
                ? 'remove the `- `: write the schema directly under `items:`'
                : 'for elements of different shapes, use `items:` with `oneOf`, or an object with named fields',
          });
          return;
        }
        this.schemaAt(node, `${path}.items`, level + 1);
        return;
      case 'minItems':
      case 'maxItems':
        expectInteger(r, node, 'BP1261', at, 0);
        return;
      case 'properties': {
        if (node.kind === 'seq') {
          r.report('BP1206', node, `Unexpected a list for ${at}, expected a mapping of property names to schemas`, {
            hint: 'write each property as `name:` with its schema indented below; list the names that must be present under `required`',
          });
          return;
        }
        const props = expectMap(r, node, 'BP1206', at);
        if (!props) return;
        for (const p of props.entries) this.schemaAt(p.value, `${path}.properties${member(p.key)}`, level + 1);
        return;
      }
      case 'required':
        this.checkRequired(node, at);
        return;
      case 'additionalProperties':
        if (node.kind === 'scalar' && typeof node.value === 'boolean') return;
        if (node.kind === 'map' || (node.kind === 'scalar' && node.value === null && !node.ref)) {
          this.schemaAt(node, `${path}.additionalProperties`, level + 1);
          return;
        }
        r.report('BP1273', node, `Unexpected ${describeNode(node)} for ${at}, expected \`true\`, \`false\` or a schema`, {
          hint: node.kind === 'scalar' && typeof node.value === 'string' && /^(true|false)$/i.test(node.value) ? 'write it unquoted, in lowercase' : undefined,
        });
        return;
      case 'propertyNames':
        this.schemaAt(node, `${path}.propertyNames`, level + 1);
        return;
      case 'maxProperties':
        expectInteger(r, node, 'BP1274', at, 0);
        return;
    }
  }

  /** A `const` or `enum` value must be a value of the declared type (SCH-8, SCH-9). */
  private checkValue(node: YNode, type: SchemaType | undefined, at: string): void {
    if (type === undefined || (node.kind === 'scalar' && node.ref)) return;
    if (type === 'integer' && node.kind === 'scalar' && typeof node.value === 'number' && Number.isInteger(node.value) && !Number.isSafeInteger(node.value)) {
      this.r.report('BP1208', node, `Unexpected \`${node.value}\` in ${at}, expected a safe integer (magnitude at most 2^53 − 1)`);
      return;
    }
    if (fitsType(node, type)) return;
    this.r.report('BP1282', node, `Unexpected ${describeValue(node)} in ${at}, expected ${TYPE_VALUES[type]} (the schema's \`type: ${type}\`)`, {
      hint: valueHint(node, type),
    });
  }

  /** SCH-7: a list of distinct strings. */
  private checkRequired(node: YNode, at: string): void {
    if (node.kind === 'scalar' && typeof node.value === 'string' && !node.ref) {
      this.r.report('BP1270', node, `Unexpected a string for ${at}, expected a list of property names`, {
        hint: `write a list: \`- ${node.value}\` on an indented line below \`required:\``,
      });
      return;
    }
    if (node.kind === 'scalar' && typeof node.value === 'boolean') {
      this.r.report('BP1270', node, `Unexpected a boolean for ${at}, expected a list of property names`, {
        hint: "list required property names in the parent object's `required`, not `required: true` on the property",
      });
      return;
    }
    const seq = expectSeq(this.r, node, 'BP1270', at);
    if (!seq) return;
    const seen = new Map<string, YNode>();
    for (const item of seq.items) {
      const name = expectString(this.r, item, 'BP1270', `a name in ${at}`);
      if (name === undefined) continue;
      const first = seen.get(name);
      if (first) {
        this.r.report('BP1271', item, `Unexpected \`${name}\` listed again in ${at}, expected each name once`, {
          related: [this.r.locate(first, `first \`${name}\` is here`)],
        });
      } else {
        seen.set(name, item);
      }
    }
  }

  /** SCH-7 decision: with `additionalProperties: false`, a required name must be declared, or no value can pass. */
  private checkClosedRequired(map: YMap, path: string): void {
    const additional = entry(map, 'additionalProperties')?.value;
    const required = entry(map, 'required')?.value;
    if (additional?.kind !== 'scalar' || additional.value !== false || required?.kind !== 'seq') return;
    const properties = entry(map, 'properties')?.value;
    const declared = new Set(properties?.kind === 'map' ? properties.entries.map((p) => p.key) : []);
    const warned = new Set<string>();
    for (const item of required.items) {
      if (item.kind !== 'scalar' || typeof item.value !== 'string' || item.ref || declared.has(item.value) || warned.has(item.value)) continue;
      warned.add(item.value);
      this.r.report(
        'BP1272',
        item,
        `Unexpected required \`${item.value}\` not among \`${path}.properties\`, expected a declared property when \`additionalProperties\` is \`false\``,
        {
          related: [this.r.locate(additional, '`additionalProperties: false` is here')],
          hint: `no value can satisfy this schema: declare \`${item.value}\` under \`properties\`, or remove it from \`required\``,
        },
      );
    }
  }

  /** SCH-6, SCH-9 decision: a lower bound above the upper bound accepts nothing. */
  private checkOrder(map: YMap, low: string, high: string, code: 'BP1262' | 'BP1291', path: string, read: (n: YNode) => number | undefined): void {
    const lowNode = entry(map, low)?.value;
    const highNode = entry(map, high)?.value;
    if (!lowNode || !highNode) return;
    const lo = read(lowNode);
    const hi = read(highNode);
    if (lo === undefined || hi === undefined || lo <= hi) return;
    this.r.report(code, lowNode, `Unexpected \`${low}: ${lo}\` above \`${high}: ${hi}\` in \`${path}\`, expected \`${low}\` ≤ \`${high}\``, {
      related: [this.r.locate(highNode, `\`${high}\` is here`)],
      hint: 'no value can satisfy both bounds; the bounds are inclusive, so equal bounds allow exactly one',
    });
  }
}

/**
 * SCH-1: every schema is a mapping. A null goes to `expectMap` for the SRC-4 report
 * every field shares.
 */
function expectSchemaMap(r: Reporter, node: YNode, path: string): YMap | undefined {
  if (node.kind === 'map') return node;
  if (refusedByParser(r, node)) return undefined;
  if (node.kind === 'scalar' && node.value === null && !node.ref) return expectMap(r, node, 'BP1200', `\`${path}\``);
  r.report('BP1200', node, `Unexpected ${describeNode(node)} for \`${path}\`, expected a schema (a mapping)`, { hint: schemaHint(node) });
  return undefined;
}

function schemaHint(node: YNode): string | undefined {
  if (node.kind !== 'scalar') return undefined;
  if (node.ref) return '`!ref` is allowed only inside `const` and `enum` values';
  if (typeof node.value === 'boolean') return 'boolean schemas are not in the native profile; write `{}` to accept any value';
  if (typeof node.value === 'string' && isSchemaType(node.value))
    return `a schema is a mapping: write \`type: ${node.value === 'null' ? "'null'" : node.value}\` on an indented line below`;
  return undefined;
}

const EXPECTED_TYPE = `expected one of ${quoteList(SCHEMA_TYPES)}`;

/** SCH-3: one of the seven type names. Undefined (after a report) for anything else. */
function readType(r: Reporter, node: YNode, path: string): SchemaType | undefined {
  const at = `\`type\` in \`${path}\``;
  const expected = EXPECTED_TYPE;
  if (refusedByParser(r, node)) return undefined;
  if (node.kind === 'scalar' && !node.ref && typeof node.value === 'string') {
    if (isSchemaType(node.value)) return node.value;
    r.report('BP1202', node, `Unexpected \`${node.value}\` for ${at}, ${expected}`, { hint: typeNameHint(node.value) });
    return undefined;
  }
  if (node.kind === 'scalar' && !node.ref && node.value === null) {
    r.report('BP1231', node, node.empty ? `Unexpected nothing (null) for ${at}, ${expected}` : `Unexpected YAML null for ${at}, ${expected}`, {
      hint: node.empty
        ? "a key with nothing after it is null: name a type, or write `type: 'null'` for the null type"
        : "unquoted `null` is YAML's null, not a type name: write `type: 'null'`",
    });
    return undefined;
  }
  if (node.kind === 'seq') {
    r.report('BP1230', node, `Unexpected a list for ${at}, expected one type name`, {
      hint: 'a schema has one type: for a value of several types write `oneOf` with one typed schema per alternative',
    });
    return undefined;
  }
  r.report('BP1202', node, `Unexpected ${describeNode(node)} for ${at}, ${expected}`, {
    hint: node.kind === 'scalar' && node.ref ? '`!ref` is allowed only inside `const` and `enum` values' : undefined,
  });
  return undefined;
}

/** SCH-9: bounds are finite numbers; for `integer`, safe integers. */
function checkBound(r: Reporter, node: YNode, type: SchemaType | undefined, keyword: 'minimum' | 'maximum', at: string): void {
  if (node.kind !== 'scalar' || node.ref || typeof node.value !== 'number') {
    r.report('BP1290', node, `Unexpected ${describeNode(node)} for ${at}, expected a number`, {
      hint:
        node.kind === 'scalar' && typeof node.value === 'string' && node.value.trim() !== '' && Number.isFinite(Number(node.value))
          ? 'write the number unquoted'
          : undefined,
    });
    return;
  }
  if (type === 'integer' && !Number.isSafeInteger(node.value)) {
    const v = node.value;
    // The integer bound admitting the same integers: round inward.
    const rounded = keyword === 'minimum' ? Math.ceil(v) : Math.floor(v);
    r.report('BP1208', node, `Unexpected \`${v}\` for ${at} of an \`integer\`, expected a safe integer`, {
      hint: Number.isSafeInteger(rounded) ? `write \`${keyword}: ${rounded}\`, which admits the same integers` : 'keep integer bounds within ±(2^53 − 1)',
    });
  }
}

function bound(node: YNode, type: SchemaType | undefined): number | undefined {
  if (node.kind !== 'scalar' || node.ref || typeof node.value !== 'number') return undefined;
  if (type === 'integer' && !Number.isSafeInteger(node.value)) return undefined;
  return node.value;
}

function nonnegativeInteger(node: YNode): number | undefined {
  return node.kind === 'scalar' && !node.ref && typeof node.value === 'number' && Number.isSafeInteger(node.value) && node.value >= 0 ? node.value : undefined;
}

/** A path of 65 levels is unreadable in a message; its ends say where it is. */
function shorten(path: string): string {
  return path.length <= 100 ? path : `${path.slice(0, 40)}…${path.slice(-50)}`;
}

/** `.name` for plain names, `["a b"]` otherwise, so a path in a message reads unambiguously. */
function member(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_-]*$/.test(name) ? `.${name}` : `[${JSON.stringify(name)}]`;
}
