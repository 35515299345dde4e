import type { CodeInfo } from './types.js';

const GENERATE = 'name: notes.answer\ndescription: Answers a question.\n';
const CLASSIFY = 'name: notes.triage\ndescription: Sorts a note.\nmodel:\n  select:\n    operation: classification\n';
const PORTS = 'port:\n  input: true\n  output: true\n  limits:\n    bytes: 1048576\n    messages: 64\n    pending: 8\n';
const VOICE_SELECT =
  'model:\n  select:\n    operation: generation\n    interaction: session\n    session:\n      trigger: voice_activity\n' +
  '    input_modalities:\n      - audio\n    output_modalities:\n      - audio\n';
const VOICE_INPUT =
  'input:\n  type: object\n  additionalProperties: false\n  required:\n    - audio\n  properties:\n    audio:\n      type: object\n' +
  '      additionalProperties: false\n      required:\n        - call\n        - milliseconds\n      properties:\n' +
  '        call:\n          type: string\n        milliseconds:\n          type: integer\n          minimum: 10\n';

function md(frontmatter: string, body = 'Answer the question in two sentences.'): string {
  return `---\n${frontmatter}---\n${body}\n`;
}

const NEEDS_CATALOG = 'a model catalog (`--catalog FILE` or the `catalog` option)';

/** BP13xx: model routines (MDL) and classification (CLS). */
export const modelCodes = {
  BP1300: { rule: 'MDL-1', severity: 'error', title: '`model` is not a mapping', example: md(GENERATE + 'model: fast\n') },
  BP1301: {
    rule: 'MDL-1',
    severity: 'error',
    title: '`model` has neither `select` nor `provider` and `id`',
    example: md(GENERATE + 'model:\n  max_output_tokens: 800\n'),
  },
  BP1302: {
    rule: 'MDL-1',
    severity: 'error',
    title: '`model` has both `select` and `provider`/`id`',
    example: md(GENERATE + 'model:\n  select:\n    operation: generation\n  provider: acme\n  id: echo-1\n'),
  },
  BP1303: {
    rule: 'MDL-1',
    severity: 'error',
    title: '`provider` without `id`, or `id` without `provider`',
    example: md(GENERATE + 'model:\n  provider: acme\n'),
  },
  BP1304: {
    rule: 'MDL-1',
    severity: 'error',
    title: '`provider` or `id` is not a nonempty string',
    example: md(GENERATE + 'model:\n  provider: acme\n  id: 7\n'),
  },
  BP1310: { rule: 'MDL-2', severity: 'error', title: '`model.select` is not a mapping', example: md(GENERATE + 'model:\n  select: generation\n') },
  BP1311: {
    rule: 'MDL-2',
    severity: 'error',
    title: 'A key `model.select` does not accept',
    example: md(GENERATE + 'model:\n  select:\n    operation: generation\n    modality: text\n'),
  },
  BP1320: {
    rule: 'MDL-3',
    severity: 'error',
    title: '`model.select.operation` is missing',
    example: md(GENERATE + 'model:\n  select:\n    interaction: request\n'),
  },
  BP1321: {
    rule: 'MDL-3',
    severity: 'error',
    title: '`model.select.operation` is not `generation` or `classification`',
    example: md(GENERATE + 'model:\n  select:\n    operation: chat\n'),
  },
  BP1322: {
    rule: 'MDL-3',
    severity: 'error',
    title: '`model.select.interaction` is not `request`, `stream` or `session`',
    example: md(GENERATE + 'model:\n  select:\n    operation: generation\n    interaction: batch\n'),
  },
  BP1330: {
    rule: 'MDL-4',
    severity: 'error',
    title: 'Modalities, `supported_parameters` or `tool_choice` not a list of strings',
    example: md(GENERATE + 'model:\n  select:\n    operation: generation\n    input_modalities: text\n'),
  },
  BP1331: {
    rule: 'MDL-4',
    severity: 'error',
    title: '`context_length` is not exactly `{minimum: N}` with a positive safe integer',
    example: md(GENERATE + 'model:\n  select:\n    operation: generation\n    context_length: 32000\n'),
  },
  BP1340: {
    rule: 'MDL-5',
    severity: 'error',
    title: '`select.structured_output` or `select.tools`: inferred during binding, never written',
    example: md(GENERATE + 'model:\n  select:\n    operation: generation\n    structured_output: true\n'),
  },
  BP1341: {
    rule: 'MDL-5',
    severity: 'error',
    title: 'A model descriptor field (`structured_output`, `pricing`, `max_input_tokens`) written as a setting',
    example: md(GENERATE + 'model:\n  select:\n    operation: generation\n  max_input_tokens: 32000\n'),
  },
  BP1350: {
    rule: 'MDL-6',
    severity: 'error',
    title: 'Model settings under `settings`; they go directly inside `model`',
    example: md(GENERATE + 'model:\n  select:\n    operation: generation\n  settings:\n    max_output_tokens: 800\n'),
  },
  BP1351: { rule: 'MDL-6', severity: 'error', title: '`provider`/`id` names no model of the catalog', needs: NEEDS_CATALOG },
  BP1352: { rule: 'MDL-6', severity: 'error', title: 'A setting the model connection does not declare', needs: NEEDS_CATALOG },
  BP1353: { rule: 'MDL-6', severity: 'error', title: "A setting value outside the connection's allowed range or values", needs: NEEDS_CATALOG },
  BP1360: {
    rule: 'MDL-7',
    severity: 'error',
    title: 'The audio session profile without `port.input: true` and `port.output: true`',
    example: md('name: voice.talk\ndescription: Talks with the caller.\n' + VOICE_SELECT + VOICE_INPUT, 'Talk with the caller.'),
  },
  BP1361: {
    rule: 'MDL-7',
    severity: 'error',
    title: 'The audio session profile with an input other than `{audio: {call, milliseconds}}`',
    example: md(
      'name: voice.talk\ndescription: Talks with the caller.\n' +
        VOICE_SELECT +
        PORTS +
        'input:\n  type: object\n  required:\n    - audio\n  properties:\n    audio:\n      type: string\n',
      'Talk with the caller.',
    ),
  },
  BP1362: {
    rule: 'MDL-7',
    severity: 'error',
    title: '`model.select.session` is not `{trigger: voice_activity}`',
    example: md(GENERATE + 'model:\n  select:\n    operation: generation\n    interaction: session\n    session:\n      trigger: push_to_talk\n'),
  },
  BP1363: {
    rule: 'MDL-7',
    severity: 'error',
    title: '`session.trigger: voice_activity` without the rest of the audio session profile',
    example: md(
      GENERATE +
        'model:\n  select:\n    operation: generation\n    interaction: stream\n    session:\n      trigger: voice_activity\n' +
        '    input_modalities:\n      - audio\n    output_modalities:\n      - audio\n',
    ),
  },
  BP1370: {
    rule: 'MDL-8',
    severity: 'error',
    title: 'A field a bounded (explicit-trigger) session model rejects',
    example: md(GENERATE + 'model:\n  select:\n    operation: generation\n    interaction: session\noutput:\n  type: boolean\n'),
  },
  BP1380: {
    rule: 'CLS-1',
    severity: 'error',
    title: 'Classification with tools, an input port, `configure` or `compaction`',
    example: md(CLASSIFY + PORTS, 'Sort the note.'),
  },
  BP1381: {
    rule: 'CLS-2',
    severity: 'error',
    title: 'A classification output that is not a judgment (integer, null, untyped)',
    example: md(CLASSIFY + 'output:\n  type: integer\n', 'Sort the note.'),
  },
  BP1382: {
    rule: 'CLS-2',
    severity: 'error',
    title: 'A classification number that is not a described probability from 0 to 1',
    example: md(CLASSIFY + 'output:\n  type: number\n  minimum: 0\n  maximum: 1\n', 'Sort the note.'),
  },
  BP1383: {
    rule: 'CLS-2',
    severity: 'error',
    title: 'A classification object that is not closed (`additionalProperties: false`)',
    example: md(CLASSIFY + 'output:\n  type: object\n  required:\n    - urgent\n  properties:\n    urgent:\n      type: boolean\n', 'Sort the note.'),
  },
  BP1384: {
    rule: 'CLS-2',
    severity: 'error',
    title: 'A classification `oneOf` branch that is not an exact `const` alternative',
    example: md(CLASSIFY + 'output:\n  oneOf:\n    - const: keep\n    - type: string\n      const: drop\n', 'Sort the note.'),
  },
  BP1385: {
    rule: 'CLS-3',
    severity: 'error',
    title: 'A malformed distribution',
    example: md(
      CLASSIFY +
        'output:\n  type: object\n  propertyNames:\n    enum:\n      - spam\n  additionalProperties:\n    type: number\n    minimum: 0\n    maximum: 1\n',
      'Sort the note.',
    ),
  },
  BP1386: {
    rule: 'CLS-4',
    severity: 'error',
    title: 'A free string in a classification output',
    example: md(
      CLASSIFY + 'output:\n  type: object\n  additionalProperties: false\n  required:\n    - title\n  properties:\n    title:\n      type: string\n',
      'Sort the note.',
    ),
  },
  BP1387: {
    rule: 'CLS-4',
    severity: 'error',
    title: 'An array in a classification output',
    example: md(CLASSIFY + 'output:\n  type: array\n  items:\n    enum:\n      - work\n      - home\n', 'Sort the note.'),
  },
  BP1388: {
    rule: 'CLS-4',
    severity: 'error',
    title: 'An optional property in a classification output',
    example: md(
      CLASSIFY +
        'output:\n  type: object\n  additionalProperties: false\n  required:\n    - urgent\n  properties:\n    urgent:\n      type: boolean\n    private:\n      type: boolean\n',
      'Sort the note.',
    ),
  },
} as const satisfies Record<string, CodeInfo>;
