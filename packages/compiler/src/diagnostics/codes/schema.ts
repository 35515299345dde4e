import type { CodeInfo } from './types.js';

/** A complete generation routine with `fields` (frontmatter lines) added, for examples. */
function model(fields: string): string {
  return `---\nname: notes.answer\ndescription: Answers a question.\nmodel:\n  select:\n    operation: generation\n${fields}---\nAnswer the question.\n`;
}

/** `input` as `levels` schemas, each the `items` of the one before. */
function nestedArrays(levels: number): string {
  let text = 'input:\n';
  for (let level = 1; level < levels; level++) text += `${'  '.repeat(level)}type: array\n${'  '.repeat(level)}items:\n`;
  return `${text}${'  '.repeat(levels)}type: string\n`;
}

/**
 * BP12xx: input and output schemas (SCH). BP1200 + n is the main code of rule SCH-(n+1);
 * BP12n0… are further codes of SCH-n.
 */
export const schemaCodes = {
  BP1200: {
    rule: 'SCH-1',
    severity: 'error',
    title: 'A schema (`input`, `output` or a nested schema) is not a mapping',
    example: model('input: text\n'),
  },
  BP1201: {
    rule: 'SCH-2',
    severity: 'error',
    title: '`document` is not a string of valid JSON',
    example: model('input:\n  document: \'{"type": "object",}\'\n  type: object\n'),
  },
  BP1202: {
    rule: 'SCH-3',
    severity: 'error',
    title: '`type` is not one of `string`, `number`, `integer`, `boolean`, `null`, `array`, `object`',
    example: model('input:\n  type: str\n'),
  },
  BP1203: {
    rule: 'SCH-4',
    severity: 'error',
    title: 'A keyword outside the native profile (`pattern`, `format`, `default`, `$ref`, …)',
    example: model("input:\n  type: string\n  pattern: '^[a-z]+$'\n"),
  },
  BP1204: {
    rule: 'SCH-5',
    severity: 'error',
    title: 'A type-specific keyword without an explicit `type`',
    example: model('input:\n  minimum: 0\n'),
  },
  BP1205: {
    rule: 'SCH-6',
    severity: 'error',
    title: 'An array schema without `items`',
    example: model('input:\n  type: array\n'),
  },
  BP1206: {
    rule: 'SCH-7',
    severity: 'error',
    title: '`properties` is not a mapping of names to schemas',
    example: model('input:\n  type: object\n  properties:\n    - question\n'),
  },
  BP1207: {
    rule: 'SCH-8',
    severity: 'error',
    title: '`enum` is not a nonempty list',
    example: model('input:\n  enum: []\n'),
  },
  BP1208: {
    rule: 'SCH-9',
    severity: 'error',
    title: 'An `integer` value or bound that is not a safe integer',
    example: model('input:\n  type: integer\n  minimum: 0.5\n'),
  },
  BP1209: {
    rule: 'SCH-10',
    severity: 'error',
    title: 'Schema nesting deeper than 64 levels',
    example: model(nestedArrays(65)),
  },
  BP1220: {
    rule: 'SCH-2',
    severity: 'error',
    title: 'The root of `document` is not a JSON object',
    example: model("input:\n  document: 'true'\n"),
  },
  BP1221: {
    rule: 'SCH-2',
    severity: 'error',
    title: 'A native keyword beside `document`',
    example: model('input:\n  document: \'{"type": "string"}\'\n  type: string\n  description: A question.\n'),
  },
  BP1222: {
    rule: 'SCH-2',
    severity: 'error',
    title: "The `type` beside `document` differs from the document's root `type`",
    example: model('input:\n  document: \'{"type": "string"}\'\n  type: object\n'),
  },
  BP1223: {
    rule: 'SCH-2',
    severity: 'error',
    title: 'A `$ref` in `document` that leaves the document',
    example: model('input:\n  document: \'{"$ref": "https://example.com/question.json"}\'\n'),
  },
  BP1230: {
    rule: 'SCH-3',
    severity: 'error',
    title: '`type` is a list; a schema has one type',
    example: model("input:\n  type:\n    - string\n    - 'null'\n"),
  },
  BP1231: {
    rule: 'SCH-3',
    severity: 'error',
    title: "`type` is YAML null; write `type: 'null'`",
    example: model('input:\n  type: null\n'),
  },
  BP1240: {
    rule: 'SCH-4',
    severity: 'error',
    title: 'A keyword of another type (e.g. `minimum` in a `string` schema)',
    example: model('input:\n  type: string\n  minimum: 1\n'),
  },
  BP1241: {
    rule: 'SCH-4',
    severity: 'error',
    title: '`description` is not a string',
    example: model('input:\n  description: 42\n'),
  },
  BP1260: {
    rule: 'SCH-6',
    severity: 'error',
    title: '`items` is a list; it is one schema for every element',
    example: model('input:\n  type: array\n  items:\n    - type: string\n'),
  },
  BP1261: {
    rule: 'SCH-6',
    severity: 'error',
    title: '`minItems` or `maxItems` is not a nonnegative safe integer',
    example: model('input:\n  type: array\n  items: {}\n  minItems: -1\n'),
  },
  BP1262: {
    rule: 'SCH-6',
    severity: 'error',
    title: '`minItems` is greater than `maxItems`',
    example: model('input:\n  type: array\n  items: {}\n  minItems: 3\n  maxItems: 2\n'),
  },
  BP1270: {
    rule: 'SCH-7',
    severity: 'error',
    title: '`required` is not a list of strings',
    example: model('input:\n  type: object\n  required: question\n'),
  },
  BP1271: {
    rule: 'SCH-7',
    severity: 'error',
    title: 'A name listed twice in `required`',
    example: model('input:\n  type: object\n  required:\n    - question\n    - question\n'),
  },
  BP1272: {
    rule: 'SCH-7',
    severity: 'warning',
    title: 'A required name that `additionalProperties: false` forbids (no value can pass)',
    example: model(
      'input:\n  type: object\n  properties:\n    question:\n      type: string\n  required:\n    - question\n    - topic\n  additionalProperties: false\n',
    ),
  },
  BP1273: {
    rule: 'SCH-7',
    severity: 'error',
    title: '`additionalProperties` is neither a boolean nor a schema',
    example: model("input:\n  type: object\n  additionalProperties: 'false'\n"),
  },
  BP1274: {
    rule: 'SCH-7',
    severity: 'error',
    title: '`maxProperties` is not a nonnegative safe integer',
    example: model('input:\n  type: object\n  maxProperties: 1.5\n'),
  },
  BP1280: {
    rule: 'SCH-8',
    severity: 'error',
    title: 'Two `enum` values are equal as JSON',
    example: model('input:\n  enum:\n    - 1\n    - 1.0\n'),
  },
  BP1281: {
    rule: 'SCH-8',
    severity: 'error',
    title: '`oneOf` is not a nonempty list of schemas',
    example: model('input:\n  oneOf: []\n'),
  },
  BP1282: {
    rule: 'SCH-8',
    severity: 'error',
    title: 'A `const` or `enum` value that is not of the declared `type`',
    example: model('input:\n  type: integer\n  const: a\n'),
  },
  BP1290: {
    rule: 'SCH-9',
    severity: 'error',
    title: '`minimum` or `maximum` is not a number',
    example: model("input:\n  type: number\n  minimum: '0'\n"),
  },
  BP1291: {
    rule: 'SCH-9',
    severity: 'error',
    title: '`minimum` is greater than `maximum`',
    example: model('input:\n  type: number\n  minimum: 1\n  maximum: 0\n'),
  },
} as const satisfies Record<string, CodeInfo>;
