import { describe, it, expect } from 'vitest';
import { HEAD, check, diagnose, summary } from '../../../test/support/diagnose.js';
import type { Diagnostic } from '../src/diagnostics/diagnostic.js';
import { schemaCodes } from '../src/diagnostics/codes/schema.js';
import type { CodeInfo } from '../src/diagnostics/codes/types.js';
import { LineIndex } from '../src/diagnostics/line-index.js';
import { Reporter } from '../src/diagnostics/reporter.js';
import { checkSource } from '../src/routine/check-routine.js';
import { checkSchemaNode } from '../src/schema/check-schema.js';
import { parseJson } from '../src/json/parse-json.js';
import { findReferences } from '../src/schema/find-references.js';
import type { YMap, YNode } from '../src/source/yaml-tree.js';

/** Diagnostics of a generation routine with `fields` added; `input:` written first is on line 7. */
const schema = (fields: string): Diagnostic[] => diagnose(HEAD.model + fields);

/** `input` as `levels` schemas, each the `items` of the one before. */
function nestedArrays(levels: number): string {
  let text = 'input:\n';
  for (let level = 1; level < levels; level++) text += `${'  '.repeat(level)}type: array\n${'  '.repeat(level)}items:\n`;
  return `${text}${'  '.repeat(levels)}type: string\n`;
}

function only(diagnostics: Diagnostic[]): Diagnostic {
  expect(diagnostics).toHaveLength(1);
  return diagnostics[0]!;
}

describe('SCH-1 input and output are mappings', () => {
  it('accepts `input: {}` and `output: {}` (any JSON value)', () => {
    expect(schema('input: {}\noutput: {}\n')).toEqual([]);
  });

  it('accepts an omitted input and output', () => {
    expect(diagnose(HEAD.model)).toEqual([]);
  });

  it('refuses a scalar for `input`, with a hint when it names a type', () => {
    expect(summary(schema('input: text\n'))).toEqual(['BP1200 SCH-1 7:8']);
    const d = only(schema('output: string\n'));
    expect(summary([d])).toEqual(['BP1200 SCH-1 7:9']);
    expect(d.message).toContain('Unexpected a string for `output`, expected a schema');
    expect(d.hint).toContain('`type: string`');
  });

  it('refuses a null `input` under SRC-4 (a key with nothing after it)', () => {
    const d = only(schema('input:\n'));
    // The column of an absent value belongs to the parser; SRC-4's own tests pin it.
    expect([d.code, d.rule, d.line]).toEqual(['BP1030', 'SRC-4', 7]);
    expect(d.hint).toContain('`{}`');
  });

  it('refuses a scalar where a nested schema is expected', () => {
    expect(summary(schema('input:\n  type: array\n  items: string\n'))).toEqual(['BP1200 SCH-1 9:10']);
    const d = only(schema('input:\n  oneOf:\n    - true\n'));
    expect(summary([d])).toEqual(['BP1200 SCH-1 9:7']);
    expect(d.hint).toContain('boolean schemas');
    expect(only(schema('input:\n  type: object\n  properties:\n    q: !ref notes.other\n')).hint).toContain('`!ref`');
  });

  it('accepts `{}` as a nested schema', () => {
    expect(schema('input:\n  type: array\n  items: {}\n')).toEqual([]);
  });
});

describe('SCH-2 independent document form', () => {
  const doc = (json: string, extra = ''): string =>
    `input:\n  document: |\n${json
      .split('\n')
      .map((l) => (l === '' ? '' : `    ${l}`))
      .join('\n')}\n${extra}`;

  it('accepts a JSON Schema document with an equal `type` and inner references', () => {
    const json = '{\n  "type": "object",\n  "properties": {"q": {"$ref": "#/$defs/q"}},\n  "$defs": {"q": {"type": "string", "minLength": 1}}\n}';
    expect(schema(doc(json, '  type: object\n'))).toEqual([]);
  });

  it('accepts a document without root `type` and without wrapper `type`', () => {
    expect(schema('input:\n  document: \'{"anyOf": [{"type": "string"}, {"type": "null"}]}\'\n')).toEqual([]);
  });

  it('accepts a `$ref` to an outside address when it is data (`const`, `enum`, a property named `$ref`)', () => {
    const json = '{"type": "object", "properties": {"$ref": {"type": "string"}, "link": {"const": {"$ref": "https://example.com"}}}}';
    expect(schema(doc(json, '  type: object\n'))).toEqual([]);
  });

  it('refuses invalid JSON at the position inside a block scalar', () => {
    const d = only(schema(doc('{\n  "type": "object",\n  "properties": {}\n  "required": []\n}', '  type: object\n')));
    // `"required"` on the fourth JSON line (file line 12), after four spaces of YAML and two of JSON.
    expect(summary([d])).toEqual(['BP1201 SCH-2 12:7']);
    expect(d.message).toContain('Unexpected `"` in the JSON of `input.document`, expected `,` or `}`');
  });

  it('refuses invalid JSON at the position inside a quoted scalar, escapes included', () => {
    expect(summary(schema('input:\n  document: "{\\"type\\": \\"string\\" \\"x\\"}"\n  type: string\n'))).toEqual(['BP1201 SCH-2 8:36']);
    expect(summary(schema('input:\n  document: \'{"a": tru}\'\n'))).toEqual(['BP1201 SCH-2 8:20']);
  });

  it('refuses unterminated JSON just after its last character', () => {
    const d = only(schema(doc('{"type": "string"', '  type: string\n')));
    expect(summary([d])).toEqual(['BP1201 SCH-2 9:22']);
    expect(d.message).toContain('end of the JSON text');
  });

  it('refuses a document written as YAML', () => {
    const d = only(schema('input:\n  document:\n    type: string\n'));
    expect(summary([d])).toEqual(['BP1201 SCH-2 9:5']);
    expect(d.hint).toContain('native keywords');
  });

  it('refuses a root that is not an object (boolean schemas included)', () => {
    expect(summary(schema("input:\n  document: 'true'\n"))).toEqual(['BP1220 SCH-2 8:13']);
    expect(summary(schema("input:\n  document: '[]'\n"))).toEqual(['BP1220 SCH-2 8:13']);
  });

  it('refuses native keywords beside `document`', () => {
    const d = only(schema(doc('{"type": "string"}', '  type: string\n  description: A question.\n')));
    expect(summary([d])).toEqual(['BP1221 SCH-2 11:3']);
    expect(d.message).toContain('Unexpected `description` beside `document`');
  });

  it('refuses a wrapper `type` that differs from the root `type`, or is absent on one side only', () => {
    const differ = only(schema(doc('{"type": "string"}', '  type: object\n')));
    expect(summary([differ])).toEqual(['BP1222 SCH-2 10:9']);
    expect(differ.hint).toBe('write `type: string`');
    const missing = only(schema(doc('{"type": "null"}')));
    expect(summary([missing])).toEqual(['BP1222 SCH-2 8:3']);
    expect(missing.hint).toContain("`type: 'null'`");
    expect(summary(schema(doc('{"minimum": 1}', '  type: number\n')))).toEqual(['BP1222 SCH-2 10:9']);
  });

  it('compares a list root `type` as JSON', () => {
    expect(schema(doc('{"type": ["string", "null"]}', "  type:\n    - string\n    - 'null'\n"))).toEqual([]);
  });

  it('refuses an unquoted `type: null` beside `document` with the quoting hint', () => {
    const d = only(schema(doc('{"type": "null"}', '  type: null\n')));
    expect(summary([d])).toEqual(['BP1231 SCH-3 10:9']);
    expect(d.hint).toContain("write `type: 'null'`");
  });

  it('refuses a `$ref` leaving the document, at the reference', () => {
    const d = only(schema(doc('{\n  "type": "object",\n  "properties": {"q": {"$ref": "other.json#/q"}}\n}', '  type: object\n')));
    expect(summary([d])).toEqual(['BP1223 SCH-2 11:36']);
    expect(d.message).toContain('"other.json#/q"');
    expect(summary(schema('input:\n  document: \'{"items": {"$dynamicRef": "https://x"}}\'\n'))).toEqual(['BP1223 SCH-2 8:40']);
  });

  it('refuses `document` inside a nested schema (SCH-4: only a root may be a document)', () => {
    const d = only(schema("input:\n  type: array\n  items:\n    document: '{}'\n"));
    expect(summary([d])).toEqual(['BP1203 SCH-4 10:5']);
    expect(d.hint).toContain('whole `input` or `output`');
  });
});

describe('SCH-2 JSON scanner of `document`', () => {
  it('agrees with JSON.parse on what is JSON', () => {
    const texts = [
      '{}',
      '[]',
      '0',
      '-0',
      '01',
      '1.',
      '1.5e+3',
      '1e',
      '-',
      '"a"',
      '"\\u00e9"',
      '"\\x"',
      '"a\tb"',
      '"\\u12"',
      'true',
      'tru',
      'null',
      '{"a":1,}',
      '[1,]',
      '[1 2]',
      '{"a" 1}',
      '{a:1}',
      "{'a':1}",
      '{"a":[{"b":null}]}',
      ' \n{ } ',
      '{} {}',
      '',
      '"',
      '[',
      '{"a":',
    ];
    for (const text of texts) {
      let valid = true;
      try {
        JSON.parse(text);
      } catch {
        valid = false;
      }
      expect(parseJson(text).error === undefined, text).toBe(valid);
    }
  });

  it('finds the offset of the first error', () => {
    expect(parseJson('{"a": 1,}', 'the JSON text').error).toMatchObject({
      offset: 7,
      message: 'Unexpected trailing comma before `}`, expected another property after `,`',
    });
    expect(parseJson('[1', 'the JSON text').error).toMatchObject({ offset: 2, message: 'Unexpected end of the JSON text, expected `,` or `]`' });
  });

  it('refuses nesting deeper than the bundle can hold, without recursion', () => {
    expect(parseJson('['.repeat(1000) + ']'.repeat(1000)).error).toBeUndefined();
    expect(parseJson('['.repeat(200_000) + ']'.repeat(200_000)).error).toMatchObject({
      offset: 1000,
      message: 'Unexpected nesting deeper than 1000 levels, expected a shallower document',
    });
  });

  it('records references outside data keywords only', () => {
    const { root } = parseJson('{"$ref": "#/a", "enum": [{"$ref": "x"}], "properties": {"$ref": {"$ref": "y"}}, "default": {"$ref": "z"}}');
    expect(findReferences(root!)).toEqual([
      { keyword: '$ref', value: '#/a', offset: 9 },
      { keyword: '$ref', value: 'y', offset: 73 },
    ]);
  });

  // One scanner for every JSON text: the independent document is now read as strictly as
  // plugin.json and method documents (I-JSON), where JSON.parse would let these through.
  it('refuses what JSON.parse accepts but no canonical JSON holds: lone surrogates, numbers beyond a double, duplicate keys', () => {
    const surrogate = only(schema('input:\n  document: \'{"type": "string", "pattern": "\\ud800"}\'\n  type: string\n'));
    expect(summary([surrogate])).toEqual(['BP1201 SCH-2 8:45']);
    expect(surrogate.message).toBe('Unexpected lone surrogate `\\ud800` in the JSON of `input.document`, expected a complete character');
    const huge = only(schema('input:\n  document: \'{"type": "number", "maximum": 1e400}\'\n  type: number\n'));
    expect(summary([huge])).toEqual(['BP1201 SCH-2 8:44']);
    expect(huge.message).toBe('Unexpected number `1e400` beyond the range of a double in the JSON of `input.document`, expected a finite number');
    const twice = only(schema('input:\n  document: \'{"type": "string", "type": "number"}\'\n  type: number\n'));
    expect(summary([twice])).toEqual(['BP1201 SCH-2 8:33']);
    expect(twice.message).toBe('Unexpected duplicate key `type` in the JSON of `input.document`, expected each key once');
  });
});

describe('SCH-3 types', () => {
  it('accepts each native type', () => {
    for (const type of ['string', 'number', 'integer', 'boolean', "'null'", 'object']) {
      expect(schema(`input:\n  type: ${type}\n`)).toEqual([]);
    }
    expect(schema('input:\n  type: array\n  items: {}\n')).toEqual([]);
  });

  it("refuses unquoted `type: null` with the hint `type: 'null'`", () => {
    const d = only(schema('output:\n  type: null\n'));
    expect(summary([d])).toEqual(['BP1231 SCH-3 8:9']);
    expect(d.hint).toContain("write `type: 'null'`");
  });

  it('refuses an empty `type:` under SCH-3 too, with its own hint', () => {
    const d = only(schema('input:\n  type:\n'));
    // The column of an absent value is the parser's to choose (at or after the colon).
    expect([d.code, d.rule, d.line]).toEqual(['BP1231', 'SCH-3', 8]);
    expect(d.message).toContain('nothing (null)');
    expect(d.hint).toContain('a key with nothing after it is null');
  });

  it('refuses a list of types', () => {
    const d = only(schema("input:\n  type:\n    - string\n    - 'null'\n"));
    expect(summary([d])).toEqual(['BP1230 SCH-3 9:5']);
    expect(d.hint).toContain('`oneOf`');
  });

  it('refuses unknown type names with did-you-mean', () => {
    const d = only(schema('input:\n  type: str\n'));
    expect(summary([d])).toEqual(['BP1202 SCH-3 8:9']);
    expect(d.hint).toBe('did you mean `type: string`?');
    expect(only(schema('input:\n  type: Object\n')).hint).toBe('did you mean `type: object`?');
    expect(only(schema('input:\n  type: float\n')).hint).toBe('did you mean `type: number`?');
    expect(summary(schema('input:\n  type: 1\n'))).toEqual(['BP1202 SCH-3 8:9']);
  });

  it('checks `type` in nested schemas', () => {
    expect(summary(schema('input:\n  type: object\n  properties:\n    q:\n      type: null\n'))).toEqual(['BP1231 SCH-3 11:13']);
  });
});

describe('SCH-4 keyword inventory by type', () => {
  it('accepts every keyword of each type', () => {
    const fields = [
      'input:',
      '  type: object',
      '  description: A request.',
      '  properties:',
      '    text:',
      '      type: string',
      '      description: The text.',
      '      enum:',
      '        - a',
      '        - b',
      '    count:',
      '      type: integer',
      '      minimum: 0',
      '      maximum: 10',
      '    ratio:',
      '      type: number',
      '      minimum: 0',
      '      maximum: 1',
      '    tags:',
      '      type: array',
      '      items:',
      '        type: string',
      '      minItems: 0',
      '      maxItems: 5',
      '    flag:',
      '      type: boolean',
      '      const: true',
      '    nothing:',
      "      type: 'null'",
      '    either:',
      '      oneOf:',
      '        - type: string',
      '        - type: integer',
      '  required:',
      '    - text',
      '  additionalProperties: false',
      '  propertyNames:',
      '    type: string',
      '  maxProperties: 7',
      '',
    ].join('\n');
    expect(schema(fields)).toEqual([]);
  });

  it('refuses keywords outside the profile with specific hints', () => {
    const pattern = only(schema("input:\n  type: string\n  pattern: '^a'\n"));
    expect(summary([pattern])).toEqual(['BP1203 SCH-4 9:3']);
    expect(pattern.message).toContain('Unexpected keyword `pattern` in `input`, expected one of `type`, `description`, `const`, `enum` or `oneOf`');
    expect(pattern.hint).toContain('independent `document:` schema or check it in a code routine');
    expect(only(schema('input:\n  type: string\n  default: x\n')).hint).toContain('no defaults');
    expect(only(schema('input:\n  $ref: notes.other\n')).hint).toContain('no references');
    expect(only(schema('input:\n  anyOf: []\n')).hint).toContain('`oneOf`');
    expect(only(schema('input:\n  type: string\n  format: email\n')).hint).toContain('not in the native profile');
  });

  it('suggests the closest keyword', () => {
    expect(only(schema('input:\n  type: array\n  items: {}\n  maxItem: 3\n')).hint).toBe('did you mean `maxItems`?');
    expect(only(schema('input:\n  type: object\n  additionalProperty: false\n')).hint).toBe('did you mean `additionalProperties`?');
  });

  it('refuses a keyword of another type', () => {
    const d = only(schema('input:\n  type: string\n  minimum: 1\n'));
    expect(summary([d])).toEqual(['BP1240 SCH-4 9:3']);
    expect(d.hint).toContain('`type: number` or `type: integer`');
    expect(summary(schema('input:\n  type: object\n  items: {}\n'))).toEqual(['BP1240 SCH-4 9:3']);
  });

  it('applies the inventory recursively', () => {
    const fields = 'input:\n  type: object\n  properties:\n    list:\n      type: array\n      items:\n        type: string\n        minLength: 1\n';
    expect(summary(schema(fields))).toEqual(['BP1203 SCH-4 14:9']);
  });

  it('refuses a `description` that is not a string', () => {
    expect(summary(schema('input:\n  description: 42\n'))).toEqual(['BP1241 SCH-4 8:16']);
    expect(summary(schema('input:\n  description:\n    Note: the text\n'))).toEqual(['BP1050 SRC-6 9:5']);
  });
});

describe('SCH-5 type-specific keywords require the explicit type', () => {
  it('refuses `minimum` without `type`, naming the type to add', () => {
    const d = only(schema('input:\n  minimum: 0\n'));
    expect(summary([d])).toEqual(['BP1204 SCH-5 8:3']);
    expect(d.hint).toContain('`type: number` or `type: integer`');
  });

  it('refuses object and array keywords without `type`, and still checks their values', () => {
    const d = schema('input:\n  properties:\n    q:\n      type: strin\n');
    expect(summary(d)).toEqual(['BP1204 SCH-5 8:3', 'BP1202 SCH-3 10:13']);
    expect(d[0]!.hint).toContain('`type: object`');
    expect(only(schema('input:\n  items: {}\n')).hint).toContain('`type: array`');
  });

  it('accepts the same keywords with the type', () => {
    expect(schema('input:\n  type: number\n  minimum: 0\n')).toEqual([]);
    expect(schema('input:\n  type: object\n  properties:\n    q:\n      type: string\n')).toEqual([]);
  });

  it('accepts the common keywords without `type`', () => {
    expect(schema('input:\n  description: Anything.\n  oneOf:\n    - const: 1\n    - enum:\n        - a\n')).toEqual([]);
  });
});

describe('SCH-6 arrays', () => {
  it('refuses an array without `items`, at its `type`', () => {
    const d = only(schema('input:\n  type: array\n  minItems: 1\n'));
    expect(summary([d])).toEqual(['BP1205 SCH-6 8:9']);
    expect(d.hint).toContain('`items: {}`');
  });

  it('refuses a list for `items`', () => {
    const d = only(schema('input:\n  type: array\n  items:\n    - type: string\n'));
    expect(summary([d])).toEqual(['BP1260 SCH-6 10:5']);
    expect(d.hint).toContain('remove the `- `');
  });

  it('refuses bounds that are not nonnegative safe integers', () => {
    expect(summary(schema('input:\n  type: array\n  items: {}\n  minItems: -1\n  maxItems: 1.5\n'))).toEqual(['BP1261 SCH-6 10:13', 'BP1261 SCH-6 11:13']);
    expect(summary(schema("input:\n  type: array\n  items: {}\n  maxItems: '3'\n"))).toEqual(['BP1261 SCH-6 10:13']);
  });

  it('refuses minItems above maxItems, pointing at the other bound', () => {
    const d = only(schema('input:\n  type: array\n  items: {}\n  minItems: 3\n  maxItems: 2\n'));
    expect(summary([d])).toEqual(['BP1262 SCH-6 10:13']);
    expect(d.related).toEqual([{ file: '/pkg/routine.md', line: 11, column: 13, message: '`maxItems` is here' }]);
  });

  it('accepts equal bounds (an exact count) and zero', () => {
    expect(schema('input:\n  type: array\n  items: {}\n  minItems: 2\n  maxItems: 2\n')).toEqual([]);
    expect(schema('input:\n  type: array\n  items: {}\n  minItems: 0\n  maxItems: 0\n')).toEqual([]);
  });
});

describe('SCH-7 objects', () => {
  it('refuses `properties` that is not a mapping', () => {
    const d = only(schema('input:\n  type: object\n  properties:\n    - q\n'));
    expect(summary([d])).toEqual(['BP1206 SCH-7 10:5']);
    expect(d.hint).toContain('`required`');
    expect(summary(schema('input:\n  type: object\n  properties: q\n'))).toEqual(['BP1206 SCH-7 9:15']);
  });

  it('refuses a property whose schema is not a mapping', () => {
    expect(summary(schema('input:\n  type: object\n  properties:\n    q: string\n'))).toEqual(['BP1200 SCH-1 10:8']);
  });

  it('refuses `required` that is not a list of strings', () => {
    const d = only(schema('input:\n  type: object\n  required: q\n'));
    expect(summary([d])).toEqual(['BP1270 SCH-7 9:13']);
    expect(d.hint).toContain('`- q`');
    expect(summary(schema('input:\n  type: object\n  required:\n    - 1\n'))).toEqual(['BP1270 SCH-7 10:7']);
  });

  it('refuses `required: true` on a property with the hint to list it in the parent', () => {
    const d = only(schema('input:\n  type: object\n  properties:\n    q:\n      type: string\n      required: true\n'));
    expect(summary([d])).toEqual(['BP1270 SCH-7 12:17']);
    expect(d.hint).toContain("parent object's `required`");
  });

  it('refuses a name listed twice in `required`, pointing at the first', () => {
    const d = only(schema('input:\n  type: object\n  required:\n    - q\n    - q\n'));
    expect(summary([d])).toEqual(['BP1271 SCH-7 11:7']);
    expect(d.related?.[0]).toMatchObject({ line: 10, column: 7 });
  });

  it('warns about a required name that `additionalProperties: false` forbids', () => {
    const d = only(
      schema('input:\n  type: object\n  properties:\n    q:\n      type: string\n  required:\n    - q\n    - topic\n  additionalProperties: false\n'),
    );
    expect(summary([d])).toEqual(['BP1272 SCH-7 14:7']);
    expect(d.severity).toBe('warning');
    expect(d.related?.[0]).toMatchObject({ line: 15, column: 25 });
    expect(check(HEAD.model + 'input:\n  type: object\n  required:\n    - q\n  additionalProperties: false\n').status).toBe('source');
  });

  it('accepts required names outside `properties` when extras are allowed', () => {
    expect(schema('input:\n  type: object\n  required:\n    - topic\n')).toEqual([]);
    expect(schema('input:\n  type: object\n  required:\n    - topic\n  additionalProperties:\n    type: string\n')).toEqual([]);
    expect(schema('input:\n  type: object\n  required: []\n  additionalProperties: true\n')).toEqual([]);
  });

  it('refuses `additionalProperties` that is neither a boolean nor a schema', () => {
    const d = only(schema("input:\n  type: object\n  additionalProperties: 'false'\n"));
    expect(summary([d])).toEqual(['BP1273 SCH-7 9:25']);
    expect(d.hint).toBe('write it unquoted, in lowercase');
    expect(summary(schema('input:\n  type: object\n  additionalProperties:\n    type: strin\n'))).toEqual(['BP1202 SCH-3 10:11']);
  });

  it('checks `propertyNames` as a schema', () => {
    expect(summary(schema('input:\n  type: object\n  propertyNames: string\n'))).toEqual(['BP1200 SCH-1 9:18']);
    expect(schema('input:\n  type: object\n  propertyNames:\n    enum:\n      - a\n      - b\n')).toEqual([]);
  });

  it('refuses `maxProperties` that is not a nonnegative safe integer, accepts 0', () => {
    expect(summary(schema('input:\n  type: object\n  maxProperties: -1\n'))).toEqual(['BP1274 SCH-7 9:18']);
    expect(schema('input:\n  type: object\n  maxProperties: 0\n')).toEqual([]);
  });
});

describe('SCH-8 enum, const and oneOf', () => {
  it('refuses an empty `enum` or one that is not a list', () => {
    expect(summary(schema('input:\n  enum: []\n'))).toEqual(['BP1207 SCH-8 8:9']);
    expect(summary(schema('input:\n  enum: a\n'))).toEqual(['BP1207 SCH-8 8:9']);
  });

  it('refuses values equal as JSON (`1` and `1.0`; mappings in any key order)', () => {
    const d = only(schema('input:\n  enum:\n    - 1\n    - 1.0\n'));
    expect(summary([d])).toEqual(['BP1280 SCH-8 10:7']);
    expect(d.related?.[0]).toMatchObject({ line: 9, column: 7, message: 'the equal value is here' });
    expect(summary(schema('input:\n  enum:\n    - a: 1\n      b: 2\n    - b: 2\n      a: 1\n'))).toEqual(['BP1280 SCH-8 11:7']);
  });

  it("accepts distinct values: `1` and `'1'`, a `!ref` and a literal mapping", () => {
    expect(schema("input:\n  enum:\n    - 1\n    - '1'\n    - null\n    - []\n    - {}\n")).toEqual([]);
    expect(schema("input:\n  enum:\n    - a\n    - !ref notes.a\n    - !ref notes.b\n    - '!ref': notes.a\n")).toEqual([]);
    expect(summary(schema('input:\n  enum:\n    - a\n    - !ref notes.a\n    - !ref notes.a\n'))).toEqual(['BP1280 SCH-8 11:7']);
  });

  it('accepts `!ref` inside `const` and `enum` values, even with a declared type', () => {
    expect(schema('input:\n  type: string\n  const: !ref notes.other\n')).toEqual([]);
    expect(schema('input:\n  type: object\n  const:\n    next: !ref notes.other\n')).toEqual([]);
  });

  it('accepts any JSON value for `const`, null included', () => {
    expect(schema('input:\n  const:\n    a:\n      - 1\n      - true\n')).toEqual([]);
    expect(schema('input:\n  const: null\n')).toEqual([]);
  });

  it('refuses a `const` or `enum` value of another type than the declared one', () => {
    const d = only(schema('input:\n  type: integer\n  const: a\n'));
    expect(summary([d])).toEqual(['BP1282 SCH-8 9:10']);
    expect(d.message).toContain("expected an integer (the schema's `type: integer`)");
    expect(only(schema("input:\n  type: number\n  enum:\n    - 1\n    - '2'\n")).hint).toBe('write the number unquoted');
    expect(summary(schema('input:\n  type: integer\n  enum:\n    - 1\n    - 1.5\n'))).toEqual(['BP1282 SCH-8 11:7']);
    expect(schema('input:\n  type: integer\n  enum:\n    - 1\n    - 2.0\n')).toEqual([]);
  });

  it('refuses an empty `oneOf` or one that is not a list, and checks every branch', () => {
    expect(summary(schema('input:\n  oneOf: []\n'))).toEqual(['BP1281 SCH-8 8:10']);
    expect(summary(schema('input:\n  oneOf:\n    type: string\n'))).toEqual(['BP1281 SCH-8 9:5']);
    expect(summary(schema('input:\n  oneOf:\n    - type: string\n    - type: integer\n      pattern: x\n'))).toEqual(['BP1203 SCH-4 11:7']);
  });

  it('accepts a single-branch `oneOf`', () => {
    expect(schema('input:\n  oneOf:\n    - type: string\n')).toEqual([]);
  });
});

describe('SCH-9 numbers and bounds', () => {
  it('refuses an `integer` bound that is not a safe integer, suggesting the inward integer', () => {
    const d = only(schema('input:\n  type: integer\n  minimum: 0.5\n'));
    expect(summary([d])).toEqual(['BP1208 SCH-9 9:12']);
    expect(d.hint).toContain('`minimum: 1`');
    expect(only(schema('input:\n  type: integer\n  maximum: 2.5\n')).hint).toContain('`maximum: 2`');
    expect(summary(schema('input:\n  type: integer\n  maximum: 9007199254740992\n'))).toEqual(['BP1208 SCH-9 9:12']);
  });

  it('refuses an `integer` value that is not safe', () => {
    expect(summary(schema('input:\n  type: integer\n  const: 9007199254740992\n'))).toEqual(['BP1208 SCH-9 9:10']);
    expect(schema('input:\n  type: integer\n  const: 9007199254740991\n')).toEqual([]);
  });

  it('accepts fractional and large bounds for `number`, safe-integer bounds for `integer`', () => {
    expect(schema('input:\n  type: number\n  minimum: -0.5\n  maximum: 1e300\n')).toEqual([]);
    expect(schema('input:\n  type: integer\n  minimum: -9007199254740991\n  maximum: 9007199254740991\n')).toEqual([]);
  });

  it('refuses a bound that is not a number', () => {
    const d = only(schema("input:\n  type: number\n  minimum: '0'\n"));
    expect(summary([d])).toEqual(['BP1290 SCH-9 9:12']);
    expect(d.hint).toBe('write the number unquoted');
  });

  it('refuses minimum above maximum and accepts equal bounds', () => {
    const d = only(schema('input:\n  type: number\n  minimum: 1\n  maximum: 0.5\n'));
    expect(summary([d])).toEqual(['BP1291 SCH-9 9:12']);
    expect(d.related?.[0]).toMatchObject({ line: 10, column: 12 });
    expect(schema('input:\n  type: number\n  minimum: 1\n  maximum: 1\n')).toEqual([]);
  });
});

describe('SCH-10 nesting depth', () => {
  it('accepts 64 levels', () => {
    expect(schema(nestedArrays(64))).toEqual([]);
  });

  it('refuses 65 levels at the first node on level 65', () => {
    const d = only(schema(nestedArrays(65)));
    // Level 65 is `type: string` at indentation 130, on line 7 + 2 × 64 + 1.
    expect(summary([d])).toEqual(['BP1209 SCH-10 136:131']);
    expect(d.message).toContain('nesting level 65');
  });

  it('reports once however deep the schema goes', () => {
    expect(summary(schema(nestedArrays(200)))).toEqual(['BP1209 SCH-10 136:131']);
  });

  it('counts levels through properties, oneOf, additionalProperties and propertyNames', () => {
    const indent = (lines: string[], by: string): string[] => lines.map((l) => by + l);
    // The lines of a schema at `level` whose descendants reach `levels`, cycling through every kind of step.
    const build = (level: number, levels: number): string[] => {
      if (level === levels) return ['type: string'];
      const child = build(level + 1, levels);
      switch (level % 5) {
        case 0:
          return ['type: object', 'properties:', '  p:', ...indent(child, '    ')];
        case 1:
          return ['oneOf:', ...child.map((l, i) => (i === 0 ? '  - ' : '    ') + l)];
        case 2:
          return ['type: object', 'additionalProperties:', ...indent(child, '  ')];
        case 3:
          return ['type: object', 'propertyNames:', ...indent(child, '  ')];
        default:
          return ['type: array', 'items:', ...indent(child, '  ')];
      }
    };
    const fields = (levels: number): string => ['input:', ...indent(build(1, levels), '  '), ''].join('\n');
    expect(schema(fields(64))).toEqual([]);
    expect(rulesOf(schema(fields(65)))).toEqual(['SCH-10']);
    expect(rulesOf(schema(fields(66)))).toEqual(['SCH-10']);
  });
});

function rulesOf(diagnostics: Diagnostic[]): string[] {
  return diagnostics.map((d) => d.rule);
}

describe('values the parser already refused', () => {
  it('reports `.inf` and `.nan` once, under SRC-2', () => {
    expect(summary(schema('input:\n  type: number\n  minimum: .inf\n'))).toEqual(['BP1016 SRC-2 9:12']);
    expect(summary(schema('input:\n  type: number\n  enum:\n    - .nan\n    - 1\n'))).toEqual(['BP1016 SRC-2 10:7']);
  });

  it('reports an alias once, under SRC-2', () => {
    expect(rulesOf(schema('input:\n  type: array\n  items: *a\n'))).toEqual(['SRC-2']);
  });

  it('still refuses a written `null` bound', () => {
    expect(summary(schema('input:\n  type: number\n  minimum: null\n'))).toEqual(['BP1290 SCH-9 9:12']);
  });
});

describe('checkSchemaNode robustness', () => {
  const reporter = (): Reporter => new Reporter('/pkg/x.md', new LineIndex(''));
  const span = { start: 0, end: 0 };
  const scalar = (value: string | number | boolean | null): YNode => ({ kind: 'scalar', span, value, style: 'plain', ref: false, empty: false });
  const map = (entries: Record<string, YNode>): YMap => ({
    kind: 'map',
    span,
    flow: false,
    entries: Object.entries(entries).map(([key, value]) => ({ key, keySpan: span, value, span })),
  });

  it('stops at level 65 on a tree far deeper than any stack', () => {
    let node: YNode = map({ type: scalar('string') });
    for (let i = 0; i < 100_000; i++) node = map({ type: scalar('array'), items: node });
    const r = reporter();
    checkSchemaNode(r, node, 'input');
    expect(r.diagnostics.map((d) => d.code)).toEqual(['BP1209']);
  });

  it('compares very deep `enum` values without throwing', () => {
    let deep: YNode = scalar(1);
    for (let i = 0; i < 5000; i++) deep = { kind: 'seq', span, flow: false, items: [deep] };
    const r = reporter();
    checkSchemaNode(r, map({ enum: { kind: 'seq', span, flow: false, items: [deep, deep] } }), 'input');
    expect(r.diagnostics.map((d) => d.code)).toEqual([]);
  });

  it('handles a large `enum` in one pass', () => {
    const items = Array.from({ length: 50_000 }, (_, i) => scalar(i % 25_000));
    const r = reporter();
    checkSchemaNode(r, map({ enum: { kind: 'seq', span, flow: false, items } }), 'input');
    expect(r.diagnostics).toHaveLength(25_000);
  });

  it('never throws on random trees', () => {
    let seed = 42;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const keys = [
      'type',
      'items',
      'properties',
      'required',
      'enum',
      'const',
      'oneOf',
      'minimum',
      'maximum',
      'minItems',
      'maxItems',
      'additionalProperties',
      'propertyNames',
      'maxProperties',
      'description',
      'document',
      'x',
      '$ref',
    ];
    const values: (string | number | boolean | null)[] = [
      'string',
      'array',
      'object',
      'integer',
      'number',
      'null',
      '{"$ref": "x"}',
      '{',
      '',
      0,
      -1,
      1.5,
      2 ** 60,
      true,
      false,
      null,
    ];
    const tree = (depth: number): YNode => {
      const pick = random(depth > 6 ? 1 : 4);
      if (pick === 0) {
        const v = values[random(values.length)]!;
        return { kind: 'scalar', span, value: v, style: 'plain', ref: random(8) === 0, empty: v === null && random(2) === 0 };
      }
      if (pick === 1) return { kind: 'seq', span, flow: false, items: Array.from({ length: random(4) }, () => tree(depth + 1)) };
      const entries: Record<string, YNode> = {};
      for (let i = random(5); i > 0; i--) entries[keys[random(keys.length)]!] = tree(depth + 1);
      return map(entries);
    };
    for (let i = 0; i < 3000; i++) {
      const r = reporter();
      expect(() => checkSchemaNode(r, tree(0), 'input')).not.toThrow();
    }
  });
});

describe('schema codes', () => {
  for (const [code, info] of Object.entries<CodeInfo>(schemaCodes)) {
    it(`${code} (${info.rule}) example produces ${code}`, () => {
      // Every schema code can be shown with one file, so none may omit its example.
      expect(info.example).toBeTypeOf('string');
      const result = checkSource('/pkg/notes/answer.md', info.example ?? '');
      expect(result.diagnostics.map((d) => d.code)).toEqual([code]);
      expect(result.diagnostics[0]!.rule).toBe(info.rule);
    });
  }

  it('every code is in BP1200–BP1299 and names an SCH rule', () => {
    for (const [code, info] of Object.entries<CodeInfo>(schemaCodes)) {
      expect(code).toMatch(/^BP12\d\d$/);
      expect(info.rule).toMatch(/^SCH-(?:[1-9]|10)$/);
    }
  });
});
