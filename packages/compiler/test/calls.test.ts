import { describe, expect, it } from 'vitest';
import { check, CODE_BODY, diagnose, HEAD, summary } from '../../../test/support/diagnose.js';
import type { CodeInfo } from '../src/diagnostics/codes/types.js';
import type { Diagnostic } from '../src/diagnostics/diagnostic.js';
import { callCodes } from '../src/diagnostics/codes/calls.js';
import { pathCodes } from '../src/diagnostics/codes/path.js';
import { checkSource } from '../src/routine/check-routine.js';

// The opening `---` and the five lines of HEAD.model come first: fields start on line 7.
const model = (fields: string): Diagnostic[] => diagnose(HEAD.model + fields);
// After `---` and the three lines of HEAD.code, fields start on line 5.
const code = (fields: string): Diagnostic[] => diagnose(HEAD.code + fields, CODE_BODY);
// Seven lines: written first, it puts the next field on line 14.
const OUTPUT_PORT = 'port:\n  input: false\n  output: true\n  limits:\n    bytes: 65536\n    messages: 16\n    pending: 4\n';

function only(diagnostics: Diagnostic[]): Diagnostic {
  expect(diagnostics).toHaveLength(1);
  return diagnostics[0]!;
}

describe('TOOL-1: tools is a list of distinct names or singleton `name: options` mappings', () => {
  it('accepts names, singleton mappings and an empty list', () => {
    expect(model('tools:\n  - notes.search\n  - notes.compose:\n      async: true\n  - web.fetch: {}\n')).toEqual([]);
    expect(model('tools: []\n')).toEqual([]);
    expect(code('tools:\n  - notes.search\n')).toEqual([]);
    expect(diagnose(HEAD.instructions + 'tools:\n  - notes.search\n')).toEqual([]);
  });

  it('refuses a single name written without a list, with the list form as hint', () => {
    const d = only(model('tools: notes.search\n'));
    expect(summary([d])).toEqual(['BP1401 TOOL-1 7:8']);
    expect(d.message).toBe('Unexpected a string for `tools`, expected a list');
    expect(d.hint).toContain('`  - notes.search`');
  });

  it('refuses null (SRC-4) and a mapping', () => {
    expect(summary(model('tools:\n'))).toEqual(['BP1030 SRC-4 7:7']);
    const d = only(model('tools:\n  notes.search: {}\n'));
    expect(summary([d])).toEqual(['BP1401 TOOL-1 8:3']);
    expect(d.message).toBe('Unexpected a mapping for `tools`, expected a list');
  });

  it('refuses entries that are not names: numbers, lists, empty mappings, invalid and reserved names', () => {
    const d = model('tools:\n  - 5\n  - - a\n  - {}\n  - notes..search\n  - env.secret\n  - bad name:\n      async: true\n');
    expect(summary(d)).toEqual([
      'BP1401 TOOL-1 8:5',
      'BP1401 TOOL-1 9:5',
      'BP1401 TOOL-1 10:5',
      'BP1401 TOOL-1 11:5',
      'BP1401 TOOL-1 12:5',
      'BP1401 TOOL-1 13:5',
    ]);
    expect(d[0]!.message).toBe('Unexpected a number in `tools`, expected a target name or `name: options`');
    expect(d[0]!.hint).toBe("quote it if it is a name: `'5'`");
    expect(d[3]!.message).toContain('empty segment in name `notes..search`');
    expect(d[4]!.message).toContain('reserved');
    expect(d[5]!.message).toContain('Unexpected character ` ` in name `bad name`');
  });

  it('refuses a duplicate, whether written plain or with options, pointing at the first', () => {
    const d = only(model('tools:\n  - notes.search\n  - notes.compose\n  - notes.search:\n      async: true\n'));
    expect(summary([d])).toEqual(['BP1402 TOOL-1 10:5']);
    expect(d.message).toBe('Unexpected second `notes.search` in `tools`, expected each tool once');
    expect(d.related).toEqual([{ file: '/pkg/routine.md', line: 8, column: 5, message: 'first `notes.search` is here' }]);
  });

  it('refuses an entry mapping with two keys (options not indented), with the layout as hint', () => {
    const d = only(model('tools:\n  - notes.search:\n    async: true\n'));
    expect(summary([d])).toEqual(['BP1403 TOOL-1 9:5']);
    expect(d.message).toBe('Unexpected `async` beside `notes.search` in one `tools` entry, expected a single `name: options` mapping');
    expect(d.hint).toBe('write `- notes.search:` and indent its options two spaces further than `notes.search`');
    expect(summary(model('tools:\n  - notes.search: {}\n    notes.compose: {}\n'))).toEqual(['BP1403 TOOL-1 9:5']);
  });
});

describe('TOOL-2: options are async, output, limits, presentation; flags enabled only by true', () => {
  it('accepts boolean flags, `false` included, and empty options', () => {
    expect(
      model(
        OUTPUT_PORT + 'tools:\n  - notes.a:\n      async: true\n      output: true\n  - notes.b:\n      async: false\n      output: false\n  - notes.c: {}\n',
      ),
    ).toEqual([]);
  });

  it('refuses an unknown option with did-you-mean, and a limit written beside the options', () => {
    const d = model('tools:\n  - notes.search:\n      asynch: true\n      timeout: 5000\n');
    expect(summary(d)).toEqual(['BP1410 TOOL-2 9:7', 'BP1410 TOOL-2 10:7']);
    expect(d[0]!.message).toBe('Unexpected field `asynch` in the options of `notes.search`, expected one of `async`, `output`, `limits` or `presentation`');
    expect(d[0]!.hint).toBe('did you mean `async`?');
    expect(d[1]!.hint).toBe('`timeout` belongs inside `limits`');
  });

  it('refuses flags that are not booleans', () => {
    const d = model('tools:\n  - notes.search:\n      async: "true"\n      output: 1\n');
    expect(summary(d)).toEqual(['BP1411 TOOL-2 9:14', 'BP1411 TOOL-2 10:15']);
    expect(d[0]!.hint).toBe('write it unquoted, in lowercase');
  });

  it('accepts the short form `name: async` with a warning preferring the expanded mapping', () => {
    const result = check(HEAD.model + 'tools:\n  - notes.search: async\n');
    const d = only(result.diagnostics);
    expect(summary([d])).toEqual(['BP1412 TOOL-2 8:19']);
    expect(d.severity).toBe('warning');
    expect(result.status).toBe('source');
    expect(d.hint).toBe('write `- notes.search:` and below it, indented, `async: true`');
  });

  it('refuses `name: output` (only async has a short form) and other scalar options', () => {
    const d = model('tools:\n  - notes.render: output\n  - notes.search: true\n  - notes.list:\n      - async\n');
    expect(summary(d)).toEqual(['BP1411 TOOL-2 8:19', 'BP1411 TOOL-2 9:19', 'BP1411 TOOL-2 11:7']);
    expect(d[0]!.message).toBe('Unexpected `output` for the options of `notes.render`, expected a mapping of `async`, `output`, `limits` and `presentation`');
    expect(d[0]!.hint).toBe('only `async` has a short form; write `- notes.render:` and below it, indented, `output: true`');
  });

  it('refuses null options as SRC-4, suggesting the plain name', () => {
    const d = only(model('tools:\n  - notes.search:\n'));
    expect(summary([d])).toEqual(['BP1030 SRC-4 8:18']);
    expect(d.hint).toBe('a key with nothing after it is null; write `- notes.search` for a plain connection, or indent its options below it');
  });
});

describe("TOOL-3: `output: true` requires the caller's port.output", () => {
  it('accepts output: true with an output port, and output: false without one', () => {
    expect(model(OUTPUT_PORT + 'tools:\n  - notes.render:\n      output: true\n')).toEqual([]);
    expect(model('tools:\n  - notes.render:\n      output: false\n')).toEqual([]);
  });

  it('refuses output: true without an output port, at the `output` key', () => {
    const d = only(model('tools:\n  - notes.render:\n      output: true\n'));
    expect(summary([d])).toEqual(['BP1415 TOOL-3 9:7']);
    expect(d.hint).toContain('add `port` with `output: true`');
    const inputOnly = 'port:\n  input: true\n  output: false\n  limits:\n    bytes: 1\n    messages: 1\n    pending: 1\n';
    expect(summary(code(inputOnly + 'tools:\n  - notes.render:\n      output: true\n'))).toEqual(['BP1415 TOOL-3 14:7']);
  });
});

describe('TOOL-4: limits are calls, steps, concurrency, timeout as positive safe integers', () => {
  it('accepts the four limits', () => {
    expect(model('tools:\n  - notes.search:\n      limits:\n        calls: 3\n        steps: 10\n        concurrency: 2\n        timeout: 30000\n')).toEqual(
      [],
    );
  });

  it('refuses unknown limits, with a hint for port limits', () => {
    const d = model('tools:\n  - notes.search:\n      limits:\n        retries: 3\n        bytes: 100\n');
    expect(summary(d)).toEqual(['BP1420 TOOL-4 10:9', 'BP1420 TOOL-4 11:9']);
    expect(d[0]!.message).toBe('Unexpected field `retries` in `notes.search.limits`, expected one of `calls`, `steps`, `concurrency` or `timeout`');
    expect(d[1]!.hint).toBe('`bytes` is a port limit; it belongs inside `port.limits`');
  });

  it('refuses zero, negative, fractional, unsafe and string limits', () => {
    const d = model(
      'tools:\n  - notes.search:\n      limits:\n        calls: 0\n        steps: -1\n        concurrency: 1.5\n        timeout: 9007199254740992\n  - notes.list:\n      limits:\n        timeout: "100"\n',
    );
    expect(summary(d)).toEqual(['BP1421 TOOL-4 10:16', 'BP1421 TOOL-4 11:16', 'BP1421 TOOL-4 12:22', 'BP1421 TOOL-4 13:18', 'BP1421 TOOL-4 16:18']);
    expect(d[0]!.message).toBe('Unexpected `0` for `notes.search.limits.calls`, expected a positive safe integer');
    expect(d[3]!.message).toContain('`notes.search.limits.timeout` (milliseconds)');
  });

  it('refuses limits that are not a mapping (null is SRC-4)', () => {
    expect(summary(model('tools:\n  - notes.search:\n      limits: 5\n'))).toEqual(['BP1421 TOOL-4 9:15']);
    expect(summary(model('tools:\n  - notes.search:\n      limits:\n'))).toEqual(['BP1030 SRC-4 9:14']);
  });
});

describe('TOOL-5: presentation {when, value} over input, call, output, catalogs', () => {
  const tool = (options: string, port = OUTPUT_PORT): Diagnostic[] => model(`${port}tools:\n  - notes.render:\n${options}`);
  // With OUTPUT_PORT and the tools head, the options start on line 16.

  it('accepts a completed presentation building the object, and an accepted one on an async call', () => {
    expect(
      tool(
        '      presentation:\n        when: completed\n        value:\n          format: $.catalogs.cards.id\n          document: $.output.card\n          title:\n            $literal: Rendered note\n          fallback: $.output.text\n',
      ),
    ).toEqual([]);
    expect(
      tool(
        '      async: true\n      presentation:\n        when: accepted\n        value:\n          format: $.catalogs.cards.id\n          document:\n            chip: $.call.executionId\n            ref: !ref notes.card\n          title: $.input.title\n          fallback: $.call.id\n',
      ),
    ).toEqual([]);
  });

  it('accepts a value that is a path or a select, which only run time can check', () => {
    expect(tool('      presentation:\n        when: completed\n        value: $.output.card\n')).toEqual([]);
    expect(
      tool(
        '      presentation:\n        when: completed\n        value:\n          select: $.output.kind\n          cases:\n            card: $.output.card\n',
      ),
    ).toEqual([]);
  });

  it("refuses a presentation without the caller's output port", () => {
    const d = only(tool('      presentation:\n        when: completed\n        value: $.output.card\n', ''));
    expect(summary([d])).toEqual(['BP1426 TOOL-5 9:7']);
    expect(d.hint).toContain('output port');
  });

  it('refuses an unknown `when`, a missing `value` and extra keys', () => {
    const d = tool('      presentation:\n        when: complete\n        status: done\n');
    expect(summary(d)).toEqual(['BP1425 TOOL-5 18:9', 'BP1425 TOOL-5 17:9', 'BP1425 TOOL-5 17:15']);
    expect(d[1]!.message).toBe('Unexpected `notes.render.presentation` without `value`, expected all of `when` and `value`');
    expect(d[2]!.hint).toBe('did you mean `completed`?');
    expect(summary(tool('      presentation: $.output.card\n'))).toEqual(['BP1425 TOOL-5 16:21']);
  });

  it('refuses `when: completed` on an async connection, pointing at `async`', () => {
    const d = only(tool('      async: true\n      presentation:\n        when: completed\n        value: $.output.card\n'));
    expect(summary([d])).toEqual(['BP1427 TOOL-5 18:15']);
    expect(d.related?.[0]).toMatchObject({ line: 16, column: 7, message: '`async: true` is here' });
  });

  it('refuses a value object without exactly format, document, title and fallback', () => {
    const d = tool(
      '      presentation:\n        when: completed\n        value:\n          format: $.catalogs.cards.id\n          document: $.output.card\n          status: $.output.status\n',
    );
    expect(summary(d)).toEqual(['BP1428 TOOL-5 21:11', 'BP1428 TOOL-5 19:11']);
    expect(d[0]!.hint).toBe('a presentation declares catalog content only: no status, actions or new work');
    expect(d[1]!.message).toBe(
      'Unexpected `presentation.value` without `title` and `fallback`, expected an object of exactly `format`, `document`, `title` and `fallback`',
    );
    expect(summary(tool('      presentation:\n        when: completed\n        value:\n          - $.output.card\n'))).toEqual(['BP1428 TOOL-5 19:11']);
    expect(summary(tool('      presentation:\n        when: completed\n        value:\n          $literal:\n            format: x\n'))).toEqual([
      'BP1428 TOOL-5 20:13',
    ]);
  });

  it('refuses a path into `output` when the presentation is published on acceptance, also inside a select', () => {
    const d = tool(
      '      async: true\n      presentation:\n        when: accepted\n        value:\n          select: $.input.mode\n          cases:\n            full: $.output.card\n',
    );
    expect(summary(d)).toEqual(['BP1429 TOOL-5 22:19']);
    expect(d[0]!.message).toContain('`$.output.card` into `output`');
  });

  it('uses the next.input expression language over its own roots', () => {
    const d = tool('      presentation:\n        when: completed\n        value: $.session.id\n');
    expect(summary(d)).toEqual(['BP1502 PATH-2 18:17']);
    expect(d[0]!.message).toBe('Unexpected root `session` in `presentation.value`, expected a path starting `$.input`, `$.call`, `$.output` or `$.catalogs`');
  });
});

describe('NEXT-1: next is a target name or a mapping of to, select, cases, input, output', () => {
  it('accepts a target name and a mapping with `to`', () => {
    expect(model('next: notes.reply\n')).toEqual([]);
    expect(model('next:\n  to: notes.reply\n')).toEqual([]);
    expect(code('next: notes.reply\n')).toEqual([]);
  });

  it('refuses numbers, lists and invalid names', () => {
    const d = model('next: 42\n');
    expect(summary(d)).toEqual(['BP1430 NEXT-1 7:7']);
    expect(d[0]!.message).toBe('Unexpected a number for `next`, expected a target name or a mapping');
    expect(summary(model('next:\n  - notes.a\n'))).toEqual(['BP1430 NEXT-1 8:3']);
    expect(summary(model('next: notes reply\n'))).toEqual(['BP1432 NEXT-1 7:7']);
    expect(summary(model('next:\n  to: notes..reply\n'))).toEqual(['BP1432 NEXT-1 8:7']);
  });

  it('refuses null as SRC-4, suggesting to remove `next`', () => {
    const d = only(model('next:\n'));
    expect(summary([d])).toEqual(['BP1030 SRC-4 7:6']);
    expect(d.hint).toContain('remove `next` to end with the local output');
  });

  it('refuses unknown keys, `next.with` included', () => {
    const d = model('next:\n  too: notes.reply\n  to: notes.reply\n  with:\n    a: 1\n');
    expect(summary(d)).toEqual(['BP1431 NEXT-1 8:3', 'BP1431 NEXT-1 10:3']);
    expect(d[0]!.hint).toBe('did you mean `to`?');
    expect(d[1]!.hint).toBe("there is no `next.with`: `next.input` builds the successor's input");
  });
});

describe('NEXT-2: exactly one of `to` or `select` with nonempty `cases`', () => {
  it('accepts select with cases, null ending the chain, and a label named `default`', () => {
    expect(model('next:\n  select: $.output.kind\n  cases:\n    question: notes.answer\n    default: notes.triage\n    done: null\n    stop:\n')).toEqual([]);
  });

  it('refuses `to` beside `select` and `cases`', () => {
    const d = model('next:\n  to: notes.reply\n  select: $.output.kind\n  cases:\n    done: null\n');
    expect(summary(d)).toEqual(['BP1435 NEXT-2 9:3', 'BP1435 NEXT-2 10:3']);
    expect(d[0]!.message).toBe('Unexpected `select` beside `to`, expected either `to` or `select` with `cases`');
  });

  it('refuses neither, select without cases and cases without select', () => {
    expect(summary(model('next:\n  output: false\n'))).toEqual(['BP1435 NEXT-2 8:3']);
    const d = only(model('next:\n  select: $.output.kind\n'));
    expect(summary([d])).toEqual(['BP1435 NEXT-2 8:3']);
    expect(d.message).toBe('Unexpected `select` without `cases`, expected `cases` mapping labels to targets');
    expect(summary(model('next:\n  cases:\n    done: null\n'))).toEqual(['BP1435 NEXT-2 8:3']);
  });

  it('refuses empty cases, cases that are not a mapping, and case targets that are not names', () => {
    expect(summary(model('next:\n  select: $.output.kind\n  cases: {}\n'))).toEqual(['BP1436 NEXT-2 9:10']);
    expect(summary(model('next:\n  select: $.output.kind\n  cases:\n    - notes.a\n'))).toEqual(['BP1436 NEXT-2 10:5']);
    const d = model('next:\n  select: $.output.kind\n  cases:\n    a: 1\n    b: notes..x\n');
    expect(summary(d)).toEqual(['BP1436 NEXT-2 10:8', 'BP1436 NEXT-2 11:8']);
    expect(d[0]!.message).toBe('Unexpected a number for the case `a`, expected a string');
  });

  it('refuses a `select` that is not a path string', () => {
    const d = only(model('next:\n  select:\n    - $.output.kind\n  cases:\n    done: null\n'));
    expect(summary([d])).toEqual(['BP1437 NEXT-2 9:5']);
    expect(d.message).toBe('Unexpected a list for `next.select`, expected a path such as `$.output.kind`');
  });
});

describe("NEXT-3: next.output: true requires the caller's port.output", () => {
  it('accepts next.output: true with an output port', () => {
    expect(model(OUTPUT_PORT + 'next:\n  to: notes.reply\n  output: true\n')).toEqual([]);
    expect(model('next:\n  to: notes.reply\n  output: false\n')).toEqual([]);
  });

  it('refuses next.output: true without one, and a non-boolean', () => {
    const d = only(model('next:\n  to: notes.reply\n  output: true\n'));
    expect(summary([d])).toEqual(['BP1441 NEXT-3 9:3']);
    expect(d.message).toBe('Unexpected `next.output: true` in a routine without an output port, expected `port.output: true`');
    expect(summary(model('next:\n  to: notes.reply\n  output: "yes"\n'))).toEqual(['BP1440 NEXT-3 9:11']);
  });
});

describe('NEXT-4: next.input expressions', () => {
  const input = (expression: string): Diagnostic[] => model(`next:\n  to: notes.reply\n  input:\n${expression}`);
  // The expression starts on line 10.

  it('accepts objects, lists, paths, literals, $literal, nested select and !ref', () => {
    expect(
      input(
        [
          '    question: $.input.question',
          '    answer: $["output"].text',
          '    items:',
          '      - $.output.items[-1]',
          '      - 3',
          '      - true',
          '      - null',
          '    greeting:',
          '      $literal: Hello, {{ name }}',
          '    raw:',
          '      $literal:',
          '        select: not a path',
          '    tone:',
          '      select: $.output.mood',
          '      cases:',
          '        happy:',
          '          $literal: cheerful',
          '        sad: $.input.fallback_tone',
          '    style: !ref notes.style',
          '    empty: {}',
          '    none: []',
          '    cases: $.output.cases',
          '',
        ].join('\n'),
      ),
    ).toEqual([]);
  });

  it('refuses `$literal` beside other keys', () => {
    const d = only(input('    text:\n      $literal: hi\n      tone: $.input.tone\n'));
    expect(summary([d])).toEqual(['BP1445 NEXT-4 12:7']);
    expect(d.message).toBe('Unexpected `tone` beside `$literal` in `next.input`, expected `$literal` alone in its mapping');
  });

  it('refuses a select without cases, with extra keys, with empty cases or without a path; hints at $literal for objects', () => {
    const d = only(input('    mode:\n      select: $.output.mode\n'));
    expect(summary([d])).toEqual(['BP1446 NEXT-4 11:7']);
    expect(d.hint).toContain('`{$literal: {select: …}}`');
    expect(summary(input('    mode:\n      select: $.output.mode\n      cases:\n        a: 1\n      default: 2\n'))).toEqual(['BP1446 NEXT-4 14:7']);
    expect(summary(input('    mode:\n      select: $.output.mode\n      cases: {}\n'))).toEqual(['BP1446 NEXT-4 12:14']);
    expect(summary(input('    mode:\n      select: 4\n      cases:\n        a: 1\n'))).toEqual(['BP1446 NEXT-4 11:15']);
  });

  it('refuses a `!ref` that does not hold a name', () => {
    const d = only(input('    style: !ref notes..style\n'));
    expect(summary([d])).toEqual(['BP1447 NEXT-4 10:12']);
  });

  it('refuses templates and bare literal strings as bad paths (PATH-1), with hints', () => {
    const d = input("    a: '{{ $.input.x }}'\n    b: hello\n");
    expect(summary(d)).toEqual(['BP1501 PATH-1 10:9', 'BP1501 PATH-1 11:8']);
    expect(d[0]!.hint).toBe('there are no templates here: write the path on its own, such as `$.input.text`');
    expect(d[1]!.hint).toBe('a string here is a path; write a literal string as `{$literal: "hello"}`');
  });
});

describe('PATH-1: singular absolute JSONPath, reported at the offending character', () => {
  const select = (path: string): Diagnostic[] => model(`next:\n  select: ${path}\n  cases:\n    done: null\n`);

  it('accepts name and index segments in dot and bracket notation', () => {
    expect(select("$['output']['a b'][0]")).toEqual([]);
    expect(select('"$.output.items[-1].kind"')).toEqual([]);
  });

  it('points into plain, single- and double-quoted scalars', () => {
    const plain = only(select('$.output.labels[*]'));
    expect(summary([plain])).toEqual(['BP1501 PATH-1 8:26']);
    expect(plain.endColumn).toBe(29);
    expect(plain.message).toBe(
      'Unexpected wildcard `[*]`, expected a name or index segment (singular paths only), in the path `$.output.labels[*]` of `next.select`',
    );
    // `''` is one quote in the value: the column counts source characters.
    expect(summary(select("'$[''output''][*]'"))).toEqual(['BP1501 PATH-1 8:25']);
    expect(summary(select('"$.output..kind"'))).toEqual(['BP1501 PATH-1 8:20']);
  });

  it('falls back to the whole scalar where escapes or block style break the mapping', () => {
    expect(summary(select('"$.output\\u005b*]"'))).toEqual(['BP1501 PATH-1 8:11']);
    const d = only(model('next:\n  select: |\n    $.output.kind\n  cases:\n    done: null\n'));
    expect(summary([d])).toEqual(['BP1501 PATH-1 8:11']);
    expect(d.hint).toContain('block scalar');
  });
});

describe('PATH-2: a path starts at a root the place offers', () => {
  it('accepts $.input and $.output in next', () => {
    expect(model("next:\n  select: $['input'].kind\n  cases:\n    done: null\n")).toEqual([]);
  });

  it('refuses other roots with did-you-mean, `$` alone and an index first', () => {
    const d = model('next:\n  to: notes.reply\n  input:\n    a: $.inputs.x\n    b: $\n    c: $[0]\n    d: $.call.id\n');
    expect(summary(d)).toEqual(['BP1502 PATH-2 10:9', 'BP1502 PATH-2 11:8', 'BP1502 PATH-2 12:9', 'BP1502 PATH-2 13:9']);
    expect(d[0]!.message).toBe('Unexpected root `inputs` in `next.input`, expected a path starting `$.input` or `$.output`');
    expect(d[0]!.hint).toBe('did you mean `$.input`?');
    expect(d[1]!.message).toBe('Unexpected `$` alone in `next.input`, expected a path starting `$.input` or `$.output`');
    expect(summary(model('next:\n  select: $.result.kind\n  cases:\n    done: null\n'))).toEqual(['BP1502 PATH-2 8:12']);
  });
});

describe('PORT-1: port has exactly input, output, limits', () => {
  it('accepts a complete port on model and code routines', () => {
    expect(model(OUTPUT_PORT)).toEqual([]);
    expect(code('port:\n  input: true\n  output: true\n  limits:\n    bytes: 1048576\n    messages: 64\n    pending: 8\n')).toEqual([]);
  });

  it('refuses missing and extra keys, with a hint for limits written at the top', () => {
    const d = model('port:\n  output: true\n  bytes: 10\n');
    expect(summary(d)).toEqual(['BP1450 PORT-1 9:3', 'BP1450 PORT-1 8:3']);
    expect(d[0]!.hint).toBe('`bytes` belongs inside `port.limits`');
    expect(d[1]!.message).toBe('Unexpected `port` without `input` and `limits`, expected all of `input`, `output` and `limits`');
    expect(summary(model('port: true\n'))).toEqual(['BP1450 PORT-1 7:7']);
    expect(summary(model('port:\n'))).toEqual(['BP1030 SRC-4 7:6']);
  });

  it('refuses non-boolean flags and a port with neither flag true', () => {
    expect(summary(model(OUTPUT_PORT.replace('input: false', 'input: 1')))).toEqual(['BP1451 PORT-1 8:10']);
    const d = only(model(OUTPUT_PORT.replace('output: true', 'output: false')));
    expect(summary([d])).toEqual(['BP1452 PORT-1 8:3']);
  });

  it('refuses limits without exactly bytes, messages, pending, or not positive safe integers', () => {
    const d = model('port:\n  input: true\n  output: false\n  limits:\n    bytes: 0\n    messages: 1.5\n    timeout: 10\n');
    expect(summary(d)).toEqual(['BP1453 PORT-1 13:5', 'BP1453 PORT-1 11:5', 'BP1454 PORT-1 11:12', 'BP1454 PORT-1 12:15']);
    expect(d[0]!.hint).toContain("a `tools` entry's `limits`");
    expect(d[1]!.message).toBe('Unexpected `port.limits` without `pending`, expected all of `bytes`, `messages` and `pending`');
    expect(summary(model('port:\n  input: true\n  output: false\n  limits: []\n'))).toEqual(['BP1453 PORT-1 10:11']);
  });
});

describe('MISC-1: compaction', () => {
  it('accepts max_tokens, keep_turns (zero included) and a summary name', () => {
    expect(model('compaction:\n  max_tokens: 20000\n  keep_turns: 0\n  summary: notes.summarize\n')).toEqual([]);
  });

  it('refuses a missing required key and unknown keys', () => {
    const d = model('compaction:\n  max_token: 20000\n  keep_turns: 4\n');
    expect(summary(d)).toEqual(['BP1460 MISC-1 8:3', 'BP1460 MISC-1 8:3']);
    expect(d[0]!.hint).toBe('did you mean `max_tokens`?');
    expect(d[1]!.message).toBe('Unexpected `compaction` without `max_tokens`, expected all of `max_tokens` and `keep_turns`');
    expect(summary(model('compaction: 100\n'))).toEqual(['BP1460 MISC-1 7:13']);
  });

  it('refuses a zero max_tokens, a negative keep_turns and an invalid summary name', () => {
    const d = model('compaction:\n  max_tokens: 0\n  keep_turns: -1\n  summary: notes summary\n');
    expect(summary(d)).toEqual(['BP1461 MISC-1 8:15', 'BP1461 MISC-1 9:15', 'BP1462 MISC-1 10:12']);
    expect(d[1]!.message).toBe('Unexpected `-1` for `compaction.keep_turns`, expected a nonnegative safe integer');
  });

  it('refuses compaction on classification once, under CLS-1', () => {
    expect(summary(diagnose(HEAD.classify + 'compaction:\n  max_tokens: 100\n  keep_turns: 1\n'))).toEqual(['BP1380 CLS-1 7:1']);
  });
});

describe('MISC-2: configure', () => {
  it('accepts a routine and a distinct nonempty list of fields', () => {
    expect(model('configure:\n  routine: notes.setup\n  fields:\n    - tone\n    - length\n')).toEqual([]);
  });

  it('refuses a scalar, missing and unknown keys', () => {
    const d = only(model('configure: notes.setup\n'));
    expect(summary([d])).toEqual(['BP1465 MISC-2 7:12']);
    expect(d.hint).toBe('write `configure:` and below it `  routine: notes.setup`');
    expect(summary(model('configure:\n  routine: notes.setup\n  field:\n    - tone\n'))).toEqual(['BP1465 MISC-2 9:3', 'BP1465 MISC-2 8:3']);
  });

  it('refuses an invalid routine, empty or non-string fields and duplicates', () => {
    expect(summary(model('configure:\n  routine: 5\n  fields:\n    - tone\n'))).toEqual(['BP1466 MISC-2 8:12']);
    expect(summary(model('configure:\n  routine: notes.setup\n  fields: []\n'))).toEqual(['BP1467 MISC-2 9:11']);
    expect(summary(model('configure:\n  routine: notes.setup\n  fields:\n    - 3\n    - ""\n'))).toEqual(['BP1467 MISC-2 10:7', 'BP1467 MISC-2 11:7']);
    const d = only(model('configure:\n  routine: notes.setup\n  fields:\n    - tone\n    - tone\n'));
    expect(summary([d])).toEqual(['BP1468 MISC-2 11:7']);
    expect(d.related?.[0]).toMatchObject({ line: 10, column: 7 });
  });
});

describe('MISC-3: route', () => {
  it('accepts {routine: name}', () => {
    expect(model('route:\n  routine: notes.router\n')).toEqual([]);
  });

  it('refuses a bare name, extra or missing keys and an invalid routine name', () => {
    const d = only(model('route: notes.router\n'));
    expect(summary([d])).toEqual(['BP1470 MISC-3 7:8']);
    expect(d.hint).toBe('write `route:` and below it `  routine: notes.router`');
    expect(summary(model('route:\n  routine: notes.router\n  thread: main\n'))).toEqual(['BP1470 MISC-3 9:3']);
    expect(summary(model('route: {}\n'))).toEqual(['BP1470 MISC-3 7:8']);
    expect(summary(model('route:\n  routine: env.router\n'))).toEqual(['BP1471 MISC-3 8:12']);
  });
});

describe('MISC-4: permissions', () => {
  it('accepts a list of tool IDs, an empty list, `catalogs` and `tools`', () => {
    expect(code('permissions:\n  - web.search\n  - catalogs\n')).toEqual([]);
    expect(model('permissions: []\n')).toEqual([]);
    expect(model('permissions: catalogs\n')).toEqual([]);
    expect(model('permissions: tools\n')).toEqual([]);
  });

  it('refuses other scalars and mappings, listing the three forms', () => {
    const d = only(model('permissions: all\n'));
    expect(summary([d])).toEqual(['BP1475 MISC-4 7:14']);
    expect(d.hint).toBe('write a list of tool IDs (`- web.search`, or `[]` for none), `permissions: catalogs` or `permissions: tools`');
    expect(only(model('permissions: catalog\n')).hint).toBe('did you mean `catalogs`?');
    expect(summary(model('permissions:\n  web.search: true\n'))).toEqual(['BP1475 MISC-4 8:3']);
    expect(summary(model('permissions:\n'))).toEqual(['BP1030 SRC-4 7:13']);
  });

  it('refuses entries that are not valid tool IDs, and duplicates', () => {
    expect(summary(model('permissions:\n  - web search\n  - 7\n'))).toEqual(['BP1476 MISC-4 8:5', 'BP1476 MISC-4 9:5']);
    const d = only(model('permissions:\n  - web.search\n  - web.search\n'));
    expect(summary([d])).toEqual(['BP1477 MISC-4 9:5']);
  });
});

describe('REF-4: `!ref` only inside next.input and presentation.value (in these fields)', () => {
  it('accepts `!ref` inside next.input and presentation.value', () => {
    expect(model('next:\n  to: notes.reply\n  input:\n    style: !ref notes.style\n')).toEqual([]);
    expect(
      model(
        `${OUTPUT_PORT}tools:\n  - notes.render:\n      presentation:\n        when: completed\n        value:\n          format: !ref notes.cards\n          document: $.output.card\n          title: $.output.title\n          fallback: $.output.text\n`,
      ),
    ).toEqual([]);
  });

  // A list's first item is never `!ref` here: the parser's indentation check (SRC-5) misreads a tagged first item.
  it('refuses `!ref` in tools, next, next.to, next.select, cases, port, limits and the other fields', () => {
    const cases: [string, string][] = [
      ['tools:\n  - notes.compose\n  - !ref notes.search\n', 'BP1490 REF-4 9:5'],
      ['tools:\n  - notes.search: !ref x\n', 'BP1490 REF-4 8:19'],
      ['tools: !ref notes.search\n', 'BP1490 REF-4 7:8'],
      ['next: !ref notes.reply\n', 'BP1490 REF-4 7:7'],
      ['next:\n  to: !ref notes.reply\n', 'BP1490 REF-4 8:7'],
      ['next:\n  select: !ref x\n  cases:\n    a: null\n', 'BP1490 REF-4 8:11'],
      ['next:\n  select: $.output.kind\n  cases:\n    a: !ref notes.a\n', 'BP1490 REF-4 10:8'],
      [OUTPUT_PORT.replace('bytes: 65536', 'bytes: !ref x'), 'BP1490 REF-4 11:12'],
      ['compaction:\n  max_tokens: 5\n  keep_turns: 1\n  summary: !ref notes.sum\n', 'BP1490 REF-4 10:12'],
      ['route:\n  routine: !ref notes.router\n', 'BP1490 REF-4 8:12'],
      ['configure:\n  routine: notes.setup\n  fields:\n    - length\n    - !ref tone\n', 'BP1490 REF-4 11:7'],
      ['permissions: !ref tools\n', 'BP1490 REF-4 7:14'],
      ['permissions:\n  - web.fetch\n  - !ref web.search\n', 'BP1490 REF-4 9:5'],
    ];
    for (const [fields, expected] of cases) expect(summary(model(fields)), fields).toEqual([expected]);
    expect(only(model('next: !ref notes.reply\n')).hint).toContain('write the name without `!ref`');
  });
});

describe('codes BP14xx and BP15xx', () => {
  const codes = Object.entries<CodeInfo>({ ...callCodes, ...pathCodes });

  it.each(codes)('%s: its example yields it', (code, info) => {
    expect(info.example, code).toBeDefined();
    const { diagnostics } = checkSource('/docs/example.md', info.example ?? '', { requireSource: true });
    const found = diagnostics.find((d) => d.code === code);
    expect(found, JSON.stringify(diagnostics)).toBeDefined();
    expect(found!.rule).toBe(info.rule);
    expect(found!.severity).toBe(info.severity);
  });
});

describe('robustness', () => {
  const values = [
    '',
    ' null',
    ' 0',
    ' -1',
    ' ""',
    ' []',
    ' {}',
    ' !ref x',
    ' !ref',
    '\n  - - - a\n  - {}\n  - null',
    '\n  a:\n    b:\n      - c: d\n        e: f',
    '\n  select:\n  cases:\n  to:\n  input:\n  output:',
  ];
  const fields = ['tools', 'next', 'port', 'compaction', 'configure', 'route', 'permissions'];

  it('never throws on odd trees in any of these fields', () => {
    for (const field of fields) {
      for (const value of values) {
        expect(() => model(`${field}:${value}\n`)).not.toThrow();
        expect(() => model(`${OUTPUT_PORT}tools:\n  - a:\n      presentation:\n        when: accepted\n        value:${value}\n`)).not.toThrow();
        expect(() => model(`next:\n  to: a\n  input:${value}\n`)).not.toThrow();
      }
    }
  });
});
