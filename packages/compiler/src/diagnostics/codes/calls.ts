import type { CodeInfo } from './types.js';

/** A complete generation routine with `fields` (frontmatter lines) added, for examples. */
function model(fields: string): string {
  return `---\nname: notes.answer\ndescription: Answers a question.\nmodel:\n  select:\n    operation: generation\n${fields}---\nAnswer the question.\n`;
}

const OUTPUT_PORT = 'port:\n  input: false\n  output: true\n  limits:\n    bytes: 65536\n    messages: 16\n    pending: 4\n';

/** BP14xx: tools (TOOL), next (NEXT), port (PORT) and the other structured fields (MISC). */
export const callCodes = {
  BP1401: {
    rule: 'TOOL-1',
    severity: 'error',
    title: '`tools` is not a list of target names and `name: options` mappings',
    example: model('tools: notes.search\n'),
  },
  BP1402: {
    rule: 'TOOL-1',
    severity: 'error',
    title: 'The same tool is connected twice',
    example: model('tools:\n  - notes.search\n  - notes.search\n'),
  },
  BP1403: {
    rule: 'TOOL-1',
    severity: 'error',
    title: 'A `tools` entry mapping has more than one key',
    example: model('tools:\n  - notes.search:\n    async: true\n'),
  },
  BP1410: {
    rule: 'TOOL-2',
    severity: 'error',
    title: 'Unknown option in a `tools` entry',
    example: model('tools:\n  - notes.search:\n      asynch: true\n'),
  },
  BP1411: {
    rule: 'TOOL-2',
    severity: 'error',
    title: 'Tool options are not a mapping, or `async`/`output` is not a boolean',
    example: model('tools:\n  - notes.search:\n      async: yes\n'),
  },
  BP1412: {
    rule: 'TOOL-2',
    severity: 'warning',
    title: 'The short form `name: async`; prefer `async: true` in an expanded mapping',
    example: model('tools:\n  - notes.search: async\n'),
  },
  BP1415: {
    rule: 'TOOL-3',
    severity: 'error',
    title: "`output: true` on a tool connection without the caller's `port.output: true`",
    example: model('tools:\n  - notes.render:\n      output: true\n'),
  },
  BP1420: {
    rule: 'TOOL-4',
    severity: 'error',
    title: "Unknown key in a tool connection's `limits`",
    example: model('tools:\n  - notes.search:\n      limits:\n        retries: 3\n'),
  },
  BP1421: {
    rule: 'TOOL-4',
    severity: 'error',
    title: 'A tool limit is not a positive safe integer, or `limits` is not a mapping',
    example: model('tools:\n  - notes.search:\n      limits:\n        timeout: 0\n'),
  },
  BP1425: {
    rule: 'TOOL-5',
    severity: 'error',
    title: '`presentation` is not `{when: accepted|completed, value: expression}`',
    example: model(`${OUTPUT_PORT}tools:\n  - notes.render:\n      presentation:\n        when: started\n        value: $.output.card\n`),
  },
  BP1426: {
    rule: 'TOOL-5',
    severity: 'error',
    title: "`presentation` on a tool connection without the caller's `port.output: true`",
    example: model('tools:\n  - notes.render:\n      presentation:\n        when: completed\n        value: $.output.card\n'),
  },
  BP1427: {
    rule: 'TOOL-5',
    severity: 'error',
    title: '`when: completed` on an async connection',
    example: model(`${OUTPUT_PORT}tools:\n  - notes.render:\n      async: true\n      presentation:\n        when: completed\n        value: $.output.card\n`),
  },
  BP1428: {
    rule: 'TOOL-5',
    severity: 'error',
    title: 'A presentation value that is not an object with exactly `format`, `document`, `title` and `fallback`',
    example: model(
      `${OUTPUT_PORT}tools:\n  - notes.render:\n      presentation:\n        when: completed\n        value:\n          format: $.catalogs.cards\n          document: $.output.card\n`,
    ),
  },
  BP1429: {
    rule: 'TOOL-5',
    severity: 'error',
    title: 'A path into `output` in a presentation published `when: accepted`, before any output exists',
    example: model(`${OUTPUT_PORT}tools:\n  - notes.render:\n      async: true\n      presentation:\n        when: accepted\n        value: $.output.card\n`),
  },
  BP1430: {
    rule: 'NEXT-1',
    severity: 'error',
    title: '`next` is not a target name or a mapping',
    example: model('next: 42\n'),
  },
  BP1431: {
    rule: 'NEXT-1',
    severity: 'error',
    title: 'Unknown key in `next`',
    example: model('next:\n  to: notes.reply\n  with:\n    text: $.output.text\n'),
  },
  BP1432: {
    rule: 'NEXT-1',
    severity: 'error',
    title: 'A `next` target is not a valid name',
    example: model('next: notes reply\n'),
  },
  BP1435: {
    rule: 'NEXT-2',
    severity: 'error',
    title: '`next` needs exactly one of `to` or `select` with `cases`',
    example: model('next:\n  to: notes.reply\n  select: $.output.kind\n'),
  },
  BP1436: {
    rule: 'NEXT-2',
    severity: 'error',
    title: '`next.cases` is not a nonempty mapping of labels to target names or null',
    example: model('next:\n  select: $.output.kind\n  cases: {}\n'),
  },
  BP1437: {
    rule: 'NEXT-2',
    severity: 'error',
    title: '`next.select` is not a path string',
    example: model('next:\n  select: 3\n  cases:\n    done: null\n'),
  },
  BP1440: {
    rule: 'NEXT-3',
    severity: 'error',
    title: '`next.output` is not a boolean',
    example: model('next:\n  to: notes.reply\n  output: yes\n'),
  },
  BP1441: {
    rule: 'NEXT-3',
    severity: 'error',
    title: "`next.output: true` without the caller's `port.output: true`",
    example: model('next:\n  to: notes.reply\n  output: true\n'),
  },
  BP1445: {
    rule: 'NEXT-4',
    severity: 'error',
    title: '`$literal` beside other keys in an expression',
    example: model('next:\n  to: notes.reply\n  input:\n    $literal: hello\n    tone: $.input.tone\n'),
  },
  BP1446: {
    rule: 'NEXT-4',
    severity: 'error',
    title: 'A `select` expression without a path and nonempty `cases`, or with other keys',
    example: model('next:\n  to: notes.reply\n  input:\n    select: $.output.kind\n'),
  },
  BP1447: {
    rule: 'NEXT-4',
    severity: 'error',
    title: 'A `!ref` in an expression does not hold a valid name',
    example: model('next:\n  to: notes.reply\n  input:\n    style: !ref notes..style\n'),
  },
  BP1450: {
    rule: 'PORT-1',
    severity: 'error',
    title: '`port` does not have exactly `input`, `output` and `limits`',
    example: model('port:\n  output: true\n'),
  },
  BP1451: {
    rule: 'PORT-1',
    severity: 'error',
    title: '`port.input` or `port.output` is not a boolean',
    example: model('port:\n  input: false\n  output: yes\n  limits:\n    bytes: 65536\n    messages: 16\n    pending: 4\n'),
  },
  BP1452: {
    rule: 'PORT-1',
    severity: 'error',
    title: 'Neither `port.input` nor `port.output` is `true`',
    example: model('port:\n  input: false\n  output: false\n  limits:\n    bytes: 65536\n    messages: 16\n    pending: 4\n'),
  },
  BP1453: {
    rule: 'PORT-1',
    severity: 'error',
    title: '`port.limits` does not have exactly `bytes`, `messages` and `pending`',
    example: model('port:\n  input: false\n  output: true\n  limits:\n    bytes: 65536\n'),
  },
  BP1454: {
    rule: 'PORT-1',
    severity: 'error',
    title: 'A port limit is not a positive safe integer',
    example: model('port:\n  input: false\n  output: true\n  limits:\n    bytes: 64kb\n    messages: 16\n    pending: 4\n'),
  },
  BP1460: {
    rule: 'MISC-1',
    severity: 'error',
    title: '`compaction` is not a mapping of `max_tokens`, `keep_turns` and an optional `summary`',
    example: model('compaction:\n  max_tokens: 20000\n'),
  },
  BP1461: {
    rule: 'MISC-1',
    severity: 'error',
    title: '`max_tokens` is not a positive safe integer or `keep_turns` not a nonnegative one',
    example: model('compaction:\n  max_tokens: 0\n  keep_turns: 4\n'),
  },
  BP1462: {
    rule: 'MISC-1',
    severity: 'error',
    title: '`compaction.summary` is not a valid routine name',
    example: model('compaction:\n  max_tokens: 20000\n  keep_turns: 4\n  summary: notes summary\n'),
  },
  BP1465: {
    rule: 'MISC-2',
    severity: 'error',
    title: '`configure` is not a mapping of exactly `routine` and `fields`',
    example: model('configure: notes.setup\n'),
  },
  BP1466: {
    rule: 'MISC-2',
    severity: 'error',
    title: '`configure.routine` is not a valid routine name',
    example: model('configure:\n  routine: notes..setup\n  fields:\n    - tone\n'),
  },
  BP1467: {
    rule: 'MISC-2',
    severity: 'error',
    title: '`configure.fields` is not a nonempty list of nonempty strings',
    example: model('configure:\n  routine: notes.setup\n  fields: []\n'),
  },
  BP1468: {
    rule: 'MISC-2',
    severity: 'error',
    title: 'A field listed twice in `configure.fields`',
    example: model('configure:\n  routine: notes.setup\n  fields:\n    - tone\n    - tone\n'),
  },
  BP1470: {
    rule: 'MISC-3',
    severity: 'error',
    title: '`route` is not exactly `{routine: name}`',
    example: model('route: notes.router\n'),
  },
  BP1471: {
    rule: 'MISC-3',
    severity: 'error',
    title: '`route.routine` is not a valid routine name',
    example: model('route:\n  routine: env.router\n'),
  },
  BP1475: {
    rule: 'MISC-4',
    severity: 'error',
    title: '`permissions` is not a list of tool IDs, `catalogs` or `tools`',
    example: model('permissions: all\n'),
  },
  BP1476: {
    rule: 'MISC-4',
    severity: 'error',
    title: 'A `permissions` entry is not a valid tool ID',
    example: model('permissions:\n  - web search\n'),
  },
  BP1477: {
    rule: 'MISC-4',
    severity: 'error',
    title: 'A tool ID listed twice in `permissions`',
    example: model('permissions:\n  - web.search\n  - web.search\n'),
  },
  BP1490: {
    rule: 'REF-4',
    severity: 'error',
    title: '`!ref` outside schema `const`/`enum`, `next.input` and `presentation.value`',
    example: model('next: !ref notes.reply\n'),
  },
} as const satisfies Record<string, CodeInfo>;
