import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { methodCodes } from '../src/diagnostics/codes/method.js';
import type { Diagnostic } from '../src/diagnostics/diagnostic.js';
import { checkMethod, findPlaceholders, isMethodFile, type MethodCheckResult } from '../src/method/index.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const FIXTURES = path.join(ROOT, 'fixtures/methods');
const HEAD = 'format: method/2\nname: demo\ngoal: Demonstrate.\n';
/** A step that makes the document complete: lines 5 to 13 after a one-line section 4. */
const SEARCH = [
  'steps:',
  '  search:',
  '    in:',
  '      query: inputs.query',
  '    do: Search for {{query}}.',
  '    out:',
  '      results:',
  '        type: list',
  '        description: Matching titles.',
  '        items:',
  '          type: text',
].join('\n');
const QUERY = 'inputs:\n  query:\n    type: text\n    description: What to search for.\n';

function check(text: string, file = '/m/demo.method.yaml'): MethodCheckResult {
  return checkMethod(file, text);
}
/** `code rule line:column`, errors and warnings. */
function summary(diagnostics: readonly Diagnostic[]): string[] {
  return diagnostics.filter((d) => d.severity !== 'info').map((d) => `${d.code} ${d.rule} ${d.line}:${d.column}`);
}
function diagnose(text: string, file?: string): string[] {
  return summary(check(text, file).diagnostics);
}
/** HEAD, QUERY, then the given lines (which start on line 8). */
function doc(...lines: string[]): string {
  return HEAD + QUERY + lines.join('\n') + '\n';
}
const VALID = doc(SEARCH, 'result: results');

describe('method documents', () => {
  it('recognizes method files by extension', () => {
    expect(['a.method.yaml', 'x/b.method.yml', 'c.method.json'].map(isMethodFile)).toEqual([true, true, true]);
    expect(['a.yaml', 'method.yaml', 'a.method.md', 'a.methods.json'].map(isMethodFile)).toEqual([false, false, false, false]);
  });
  it('accepts the small document the other tests vary', () => {
    const r = check(VALID);
    expect(r.diagnostics).toEqual([]);
    expect(r.method?.order).toEqual(['search']);
    expect(r.method?.result).toEqual({ single: { root: 'output', name: 'results', path: [], text: 'results' } });
  });
  it('codes are BP60xx–BP61xx method codes that state what they need', () => {
    for (const [code, info] of Object.entries(methodCodes)) {
      expect(code).toMatch(/^BP6[01]\d\d$/);
      expect(info.rule).toMatch(/^MTH-(?:[1-9]|1[0-7])$/);
      expect(info.needs.startsWith('a method document')).toBe(true);
    }
  });
});

describe('MTH-1 document and top-level sections', () => {
  it('refuses a document that is not a mapping, or is empty', () => {
    expect(diagnose('- format\n- name\n')).toEqual(['BP6001 MTH-1 1:1']);
    expect(diagnose('')).toEqual(['BP6001 MTH-1 1:1']);
    expect(diagnose('[]', '/m/x.method.json')).toEqual(['BP6001 MTH-1 1:1']);
  });
  it('refuses a missing or wrong format', () => {
    expect(diagnose(VALID.replace('format: method/2\n', ''))).toEqual(['BP6003 MTH-1 1:1']);
    expect(diagnose(VALID.replace('method/2', 'method/1'))).toEqual(['BP6003 MTH-1 1:9']);
  });
  it('refuses a missing required section at the start of the document', () => {
    const d = check(VALID.replace('goal: Demonstrate.\n', '')).diagnostics;
    expect(summary(d)).toEqual(['BP6004 MTH-1 1:1']);
    expect(d[0]!.message).toBe('Unexpected method document without `goal`, expected a `goal` section');
    expect(diagnose(HEAD + QUERY + SEARCH + '\n')).toEqual(['BP6004 MTH-1 1:1']);
  });
  it('refuses unknown top-level keys with a hint', () => {
    const d = check(VALID + 'description: A demo.\nstep: {}\n').diagnostics;
    expect(summary(d)).toEqual(['BP6006 MTH-1 20:1', 'BP6006 MTH-1 21:1']);
    expect(d[0]!.hint).toBe('write the purpose of the method as `goal`');
    expect(d[1]!.hint).toBe('did you mean `steps`?');
  });
  it('refuses a goal that is not a nonempty string', () => {
    expect(diagnose(VALID.replace('goal: Demonstrate.', "goal: ''"))).toEqual(['BP6005 MTH-1 3:7']);
    expect(diagnose(VALID.replace('inputs:\n', 'environment: []\ninputs:\n'))).toEqual(['BP6005 MTH-1 4:14']);
  });
  it('refuses JSON that is not JSON under the method rule', () => {
    const d = check('{"format": "method/2",}', '/m/x.method.json').diagnostics;
    expect(summary(d)).toEqual(['BP6002 MTH-1 1:22']);
  });
  it('accepts empty optional sections', () => {
    expect(diagnose(VALID.replace('inputs:\n', 'environment: {}\nstate: {}\ninputs:\n'))).toEqual([]);
  });
  it('keeps YAML strictness (duplicates, tags) but not style warnings', () => {
    expect(diagnose(VALID + 'name: again\n')).toEqual(['BP1011 SRC-2 20:1']);
    expect(diagnose(VALID.replace('result: results', 'result: !ref results'))).toEqual(['BP1014 SRC-2 19:9']);
    expect(diagnose(VALID.replace('inputs:\n  query:', 'inputs:\n    query:').replace(/\n {4}(type|description): (text|What)/g, '\n      $1: $2'))).toEqual([]);
  });
});

describe('MTH-2 names', () => {
  it('refuses names outside the pattern, with a suggestion', () => {
    const d = check(VALID.replace('  search:', '  Draft-Report:')).diagnostics;
    expect(summary(d)).toEqual(['BP6010 MTH-2 9:3']);
    expect(d[0]!.hint).toBe('write `draft_report`');
    expect(diagnose(VALID.replace('name: demo', 'name: Weekly Report'))).toEqual(['BP6010 MTH-2 2:7']);
    expect(diagnose(VALID.replace('      query: inputs', '      Query: inputs').replace('{{query}}', '{{Query}}'))).toEqual(['BP6010 MTH-2 11:7']);
  });
  it('refuses names longer than 80 characters and accepts 80', () => {
    expect(diagnose(VALID.replace('  search:', `  ${'s'.repeat(81)}:`))).toEqual(['BP6010 MTH-2 9:3']);
    expect(diagnose(VALID.replace('  search:', `  ${'s'.repeat(80)}:`))).toEqual([]);
  });
  it('refuses reserved names', () => {
    const d = check(VALID.replace('  query:', '  state:').replace('inputs.query', 'inputs.state')).diagnostics;
    expect(summary(d)).toEqual(['BP6011 MTH-2 5:3']);
    expect(diagnose(VALID.replace('  search:', '  run:'))).toEqual(['BP6011 MTH-2 9:3']);
  });
  it('accepts digits and underscores after the first letter', () => {
    expect(diagnose(VALID.replace('  search:', '  search_2b:').replace('name: demo', 'name: demo_v2'))).toEqual([]);
  });
  it('accepts a reserved word as a record field, which never stands at a reference root', () => {
    expect(diagnose(VALID.replace('        items:\n          type: text', '        fields:\n          state:\n            type: text'))).toEqual([]);
  });
});

describe('MTH-3 data declarations', () => {
  it('refuses a declaration without description or type', () => {
    expect(diagnose(VALID.replace('    description: What to search for.\n', ''))).toEqual(['BP6020 MTH-3 5:3']);
    expect(diagnose(VALID.replace('    type: text\n', ''))).toEqual(['BP6020 MTH-3 5:3']);
  });
  it('refuses unknown types, with a guess', () => {
    const d = check(VALID.replace('type: text\n    description', 'type: string\n    description')).diagnostics;
    expect(summary(d)).toEqual(['BP6021 MTH-3 6:11']);
    expect(d[0]!.hint).toBe('did you mean `text`?');
  });
  it('refuses a record without fields and a list with both or neither of fields and items', () => {
    expect(diagnose(VALID.replace('type: list', 'type: record').replace('        items:\n          type: text\n', ''))).toEqual(['BP6022 MTH-3 15:15']);
    expect(diagnose(VALID.replace('        items:\n          type: text\n', ''))).toEqual(['BP6022 MTH-3 15:15']);
    expect(diagnose(VALID.replace('          type: text\n', '          type: text\n        fields:\n          a:\n            type: text\n'))).toEqual([
      'BP6022 MTH-3 17:9',
    ]);
  });
  it('refuses keys a declaration does not accept', () => {
    const d = check(VALID.replace('    type: text\n', '    type: text\n    format: markdown\n')).diagnostics;
    expect(summary(d)).toEqual(['BP6023 MTH-3 7:5']);
    expect(d[0]!.hint).toContain('only a file declares a format');
    expect(diagnose(VALID.replace('    type: text\n', '    type: text\n    required: true\n'))).toEqual(['BP6023 MTH-3 7:5']);
  });
  it('refuses a bare `record` or `list` where a type is expected (no room for fields), an unknown bare name, and a bare `file` in state', () => {
    const bareRecord = check(VALID.replace('        items:\n          type: text', '        fields:\n          who: record')).diagnostics;
    expect(summary(bareRecord)).toEqual(['BP6022 MTH-3 18:16']);
    expect(bareRecord[0]!.hint).toBe('write `{type: record, fields: {name: text, …}}`');
    expect(diagnose(VALID.replace('        items:\n          type: text', '        items: list'))).toEqual(['BP6022 MTH-3 17:16']);
    const unknown = check(VALID.replace('        items:\n          type: text', '        items: string')).diagnostics;
    expect(summary(unknown)).toEqual(['BP6021 MTH-3 17:16']);
    expect(unknown[0]!.hint).toBe('did you mean `text`?');
    expect(diagnose(VALID.replace('        items:\n          type: text', '        items: 3'))).toEqual(['BP6021 MTH-3 17:16']);
    const seq = check(VALID.replace('        items:\n          type: text', '        items: [text]')).diagnostics;
    expect(summary(seq)).toEqual(['BP6020 MTH-3 17:16']);
    expect(seq[0]!.message).toBe('Unexpected a list for the items of output `results`, expected a type name or a declaration');
    const state = VALID.replace(
      'steps:',
      'state:\n  seen:\n    type: record\n    description: Seen.\n    file: seen.json\n    default: {}\n    fields:\n      page: file\nsteps:',
    );
    expect(diagnose(state)).toContain('BP6043 MTH-5 15:13');
  });
  it('MTH-3 decision: a bare type name and a nested declaration mean the same type, at every nesting level and under inputs, state and out', () => {
    // Each case: the same type written with bare names (`bare`) and with nested declarations (`nested`).
    const cases: { bare: string; nested: string; type: unknown }[] = [
      { bare: 'items: text', nested: 'items: {type: text}', type: { type: 'list', items: { type: 'text' } } },
      {
        bare: 'fields: {name: text, age: number}',
        nested: 'fields: {name: {type: text}, age: {type: number}}',
        type: { type: 'list', fields: { name: { type: 'text' }, age: { type: 'number' } } },
      },
      {
        bare: 'items: {type: list, items: boolean}',
        nested: 'items: {type: list, items: {type: boolean}}',
        type: { type: 'list', items: { type: 'list', items: { type: 'boolean' } } },
      },
      {
        bare: 'fields: {person: {type: record, fields: {name: text, tags: {type: list, items: text}}}}',
        nested: 'fields: {person: {type: record, fields: {name: {type: text}, tags: {type: list, items: {type: text}}}}}',
        type: { type: 'list', fields: { person: { type: 'record', fields: { name: { type: 'text' }, tags: { type: 'list', items: { type: 'text' } } } } } },
      },
    ];
    const compiled = (spec: string, place: 'inputs' | 'state' | 'out') => {
      const declaration = `{type: list, description: Things., ${spec}${place === 'state' ? ', file: things.json, default: []' : place === 'inputs' ? ', default: []' : ''}}`;
      const text = {
        out: VALID.replace(
          '      results:\n        type: list\n        description: Matching titles.\n        items:\n          type: text',
          `      results: ${declaration}`,
        ),
        inputs: VALID.replace('inputs:\n', `inputs:\n  things: ${declaration}\n`),
        state: VALID.replace('steps:', `state:\n  things: ${declaration}\nsteps:`),
      }[place];
      const r = check(text);
      expect(r.diagnostics, `${place}: ${spec}`).toEqual([]);
      const type = place === 'out' ? r.method!.outputs.results!.type : place === 'state' ? r.method!.state.things : r.method!.inputs.things;
      const { description, file: _file, default: _default, ...rest } = type as Record<string, unknown>;
      expect(description).toBe('Things.');
      return rest;
    };
    for (const place of ['inputs', 'state', 'out'] as const) {
      for (const { bare, nested, type } of cases) {
        expect(compiled(bare, place), `${place}: ${bare}`).toEqual(type);
        expect(compiled(nested, place), `${place}: ${nested}`).toEqual(type);
      }
    }
  });
  it('accepts nested types, whose description is optional', () => {
    const nested = VALID.replace(
      '        items:\n          type: text',
      '        fields:\n          title:\n            type: text\n          tags:\n            type: list\n            items:\n              type: record\n              fields:\n                label:\n                  type: text\n                  description: A tag.\n          page:\n            type: file\n            format: html',
    );
    const r = check(nested);
    expect(r.diagnostics).toEqual([]);
    expect(r.method?.outputs.results?.type).toEqual({
      type: 'list',
      description: 'Matching titles.',
      fields: {
        title: { type: 'text' },
        tags: { type: 'list', items: { type: 'record', fields: { label: { type: 'text', description: 'A tag.' } } } },
        page: { type: 'file', format: 'html' },
      },
    });
  });
});

describe('MTH-4 data is declared once', () => {
  const second = ['  again:', '    do: Search again.', '    out:', '      results:', '        type: text', '        description: Again.'].join('\n');
  it('refuses a second output of the same name, pointing at the first', () => {
    const d = check(doc(SEARCH, second, 'result: results')).diagnostics;
    expect(summary(d)).toEqual(['BP6030 MTH-4 22:7']);
    expect(d[0]!.related).toEqual([{ file: '/m/demo.method.yaml', line: 14, column: 7, message: 'first declared by step `search`' }]);
  });
  it('refuses an output named like an input', () => {
    const d = check(doc(SEARCH.replace('      results:', '      query:'), 'result: query')).diagnostics;
    expect(summary(d)).toEqual(['BP6030 MTH-4 14:7', 'BP6061 MTH-7 19:9']);
    expect(d[0]!.related?.[0]).toMatchObject({ line: 5, column: 3 });
  });
  it('refuses one local name used twice in a step', () => {
    const d = check(VALID.replace('      query: inputs.query', '      query: inputs.query\n      results: inputs.query')).diagnostics;
    expect(summary(d)).toEqual(['BP6031 MTH-4 15:7']);
    expect(d[0]!.related?.[0]).toMatchObject({ line: 12, column: 7 });
  });
  it("accepts an alias named like another step's output", () => {
    expect(diagnose(doc(SEARCH, '  report:', '    in:', '      results: results', '    do: Report {{results}}.', 'result: results'))).toEqual([]);
  });
});

describe('MTH-5 defaults and state files', () => {
  const state = (decl: string) => VALID.replace('steps:', `state:\n  seen:\n${decl}steps:`);
  const seen = '    type: list\n    description: Titles seen before.\n    items:\n      type: text\n';
  it('refuses an input default that does not fit its type, at the value', () => {
    expect(diagnose(VALID.replace('    description: What to search for.\n', '    description: What to search for.\n    default: 3\n'))).toEqual([
      'BP6040 MTH-5 8:14',
    ]);
    expect(diagnose(state(seen + '    file: seen.json\n    default:\n      - a\n      - 2\n'))).toEqual(['BP6040 MTH-5 17:9']);
  });
  it('refuses a record default with a missing or extra field', () => {
    const rec = '    type: record\n    description: Last run.\n    file: last.json\n    fields:\n      week:\n        type: text\n    default:\n';
    expect(diagnose(state(rec + '      day: x\n'))).toEqual(['BP6040 MTH-5 17:7']);
    expect(diagnose(state(rec.replace('    default:\n', '    default: {}\n')))).toEqual(['BP6040 MTH-5 16:14']);
    expect(diagnose(state(rec + '      week: x\n'))).toEqual([]);
  });
  it('refuses state without file, and files outside the data folder', () => {
    expect(diagnose(state(seen))).toEqual(['BP6041 MTH-5 9:3']);
    expect(diagnose(state(seen + '    file: ../seen.json\n'))).toEqual(['BP6042 MTH-5 14:11']);
    expect(diagnose(state(seen + '    file: /var/seen.json\n'))).toEqual(['BP6042 MTH-5 14:11']);
    const d = check(state(seen + '    file: data\\seen.json\n')).diagnostics;
    expect(summary(d)).toEqual(['BP6042 MTH-5 14:11']);
    expect(d[0]!.hint).toBe('write `data/seen.json`: paths use `/` on every system');
  });
  it('refuses two states sharing a file and a state of type file', () => {
    const two = state(seen + '    file: seen.json\n  other:\n' + seen + '    file: ./seen.json\n');
    const d = check(two).diagnostics;
    expect(summary(d)).toEqual(['BP6042 MTH-5 20:11']);
    expect(d[0]!.related?.[0]).toMatchObject({ line: 14, column: 11 });
    expect(diagnose(state('    type: file\n    description: A file.\n    file: f.json\n'))).toEqual(['BP6043 MTH-5 10:11']);
  });
  it('accepts valid defaults and a nested relative state file', () => {
    const r = check(
      state(seen + '    file: data/seen.json\n    default: []\n').replace(
        '    description: What to search for.\n',
        "    description: What to search for.\n    default: 'berries'\n",
      ),
    );
    expect(r.diagnostics).toEqual([]);
    expect(r.method?.state.seen).toMatchObject({ file: 'data/seen.json', default: [] });
    expect(r.method?.inputs.query).toEqual({ type: 'text', description: 'What to search for.', default: 'berries' });
  });
});

describe('MTH-6 steps', () => {
  it('refuses empty steps and a step that is not a mapping', () => {
    expect(diagnose(doc('steps: {}', 'result: inputs.query'))).toEqual(['BP6050 MTH-6 8:8']);
    expect(diagnose(doc('steps:', '  search: Search.', 'result: inputs.query'))).toEqual(['BP6050 MTH-6 9:11']);
  });
  it('refuses both or neither of do and ask', () => {
    expect(diagnose(VALID.replace('    do: Search', '    ask: Search for me?\n    do: Search'))).toEqual(['BP6051 MTH-6 13:5']);
    expect(diagnose(VALID.replace('    do: Search for {{query}}.\n', ''))).toEqual(['BP6051 MTH-6 9:3']);
  });
  it('refuses unknown step keys with a hint, and empty instructions', () => {
    const d = check(VALID.replace('    in:', '    inputs:')).diagnostics;
    expect(summary(d)).toContain('BP6052 MTH-6 10:5');
    expect(d.find((x) => x.code === 'BP6052')!.hint).toBe('write `in`');
    expect(diagnose(VALID.replace('do: Search for {{query}}.', "do: ''"))).toEqual(['BP6053 MTH-6 12:9']);
    expect(diagnose(VALID.replace('    do:', '    name: 3\n    do:'))).toEqual(['BP6053 MTH-6 12:11']);
  });
  it('accepts an ask step with a display name', () => {
    const r = check(VALID.replace('    do: Search for', '    name: Ask the librarian\n    ask: Which titles match'));
    expect(r.diagnostics).toEqual([]);
    expect(r.method?.steps.search).toMatchObject({ kind: 'ask', title: 'Ask the librarian', text: 'Which titles match {{query}}.' });
  });
});

describe('MTH-7 references', () => {
  const people =
    '    type: list\n    description: People.\n    fields:\n      name:\n        type: text\n      address:\n        type: record\n        fields:\n          city:\n            type: text\n';
  const base = (ref: string) =>
    VALID.replace(
      'steps:',
      `state:\n  people:\n${people}    file: people.json\nenvironment:\n  web:\n    type: browser\n    description: A browser.\nsteps:`,
    ).replace('      query: inputs.query', `      query: inputs.query\n      x: ${ref}`);
  it('refuses unknown references with a guess', () => {
    const d = check(VALID.replace('inputs.query', 'inputs.querry')).diagnostics;
    expect(summary(d)).toEqual(['BP6061 MTH-7 11:14']);
    expect(d[0]!.hint).toBe('did you mean `inputs.query`?');
    expect(check(VALID.replace('inputs.query', 'query')).diagnostics[0]!.hint).toBe('`query` is an input; write `inputs.query`');
    expect(check(VALID.replace('result: results', 'result: resutls')).diagnostics[0]!.hint).toBe('did you mean `results`?');
    expect(diagnose(base('run.finished_at'))).toEqual(['BP6061 MTH-7 29:10']);
    expect(diagnose(base('people..name'))).toEqual(['BP6061 MTH-7 29:10']);
  });
  it('refuses a suffix that does not fit the type, at the segment', () => {
    const d = check(base('state.people.0.email')).diagnostics;
    expect(summary(d)).toEqual(['BP6062 MTH-7 29:25']);
    expect(d[0]!.message).toBe('Unexpected field `.email` in `state.people.0.email`, expected `name` or `address`');
    expect(diagnose(base('inputs.query.0'))).toEqual(['BP6062 MTH-7 29:23']);
    expect(diagnose(base('state.people.name'))).toEqual(['BP6062 MTH-7 29:23']);
    expect(diagnose(base('environment.web.url'))).toEqual(['BP6062 MTH-7 29:26']);
  });
  it('accepts every reference form', () => {
    for (const ref of ['state.people', 'state.people.0', 'state.people.1.address.city', 'run.started_at', 'environment.web']) {
      expect(diagnose(base(ref)), ref).toEqual([]);
    }
    const r = check(base('state.people.1.address.city'));
    expect(r.method?.steps.search?.in.x).toEqual({ root: 'state', name: 'people', path: [1, 'address', 'city'], text: 'state.people.1.address.city' });
    expect(r.method?.steps.search?.dependsOn).toEqual([]);
  });
  it('accepts a record field of an output and links the steps', () => {
    const r = check(
      doc(
        SEARCH.replace('        items:\n          type: text', '        fields:\n          title:\n            type: text'),
        '  report:',
        '    in:',
        '      first: results.0.title',
        '    do: Report {{first}}.',
        'result: results',
      ),
    );
    expect(r.diagnostics).toEqual([]);
    expect(r.method?.steps.report?.dependsOn).toEqual(['search']);
  });
});

describe('MTH-8 placeholders', () => {
  const people = 'state:\n  people:\n    type: list\n    description: People.\n    file: people.json\n    fields:\n      name:\n        type: text\n';
  const withEach = (text: string) =>
    VALID.replace('steps:', people + 'steps:')
      .replace('    in:', '    each:\n      person: state.people\n    in:')
      .replace('do: Search for {{query}}.', `do: ${text}`);
  it('refuses a placeholder naming no alias, at the placeholder', () => {
    const d = check(VALID.replace('{{query}}', '{{querry}}')).diagnostics;
    expect(summary(d)).toEqual(['BP6070 MTH-8 12:20']);
    expect(d[0]!.hint).toBe('did you mean `query`?');
    expect(diagnose(VALID.replace('do: Search for {{query}}.', 'do: |\n      Search for {{query}}\n      and {{results}}.'))).toEqual(['BP6070 MTH-8 14:11']);
  });
  it('refuses a field the alias does not have', () => {
    const d = check(withEach('Ask {{person.email}} about {{query}}.')).diagnostics;
    expect(summary(d)).toEqual(['BP6071 MTH-8 22:13']);
    expect(diagnose(withEach('Search {{query.name}}.'))).toEqual(['BP6071 MTH-8 22:16']);
  });
  it('accepts aliases from in and each, fields, spaces inside braces, and other braces as text', () => {
    expect(diagnose(withEach('Ask {{ person.name }} about {{query}}; keep {{ not a placeholder }} and {{}} as written.'))).toEqual([]);
    expect(findPlaceholders('a {{x}} {{ y.z.0 }} {{no way}}')).toEqual([
      { index: 2, length: 5, alias: 'x', path: [] },
      { index: 8, length: 11, alias: 'y', path: ['z', 0] },
    ]);
  });
});

describe('MTH-9 checks', () => {
  const withCheck = (lines: string) => VALID.replace('result: results', `    check:\n${lines}\nresult: results`);
  it('refuses a count without a bound, min above max, two forms, an unknown form', () => {
    expect(diagnose(withCheck('      count:\n        value: results'))).toEqual(['BP6080 MTH-9 20:7']);
    expect(diagnose(withCheck('      count:\n        value: results\n        min: 5\n        max: 2'))).toEqual(['BP6080 MTH-9 22:14']);
    expect(diagnose(withCheck('      present: results\n      file: results'))).toEqual(['BP6080 MTH-9 20:7']);
    const d = check(withCheck('      equal:\n        actual: results\n        expected: query')).diagnostics;
    expect(summary(d)).toEqual(['BP6080 MTH-9 20:7']);
    expect(d[0]!.hint).toBe('did you mean `equals`?');
    expect(diagnose(withCheck('      equals:\n        actual: results'))).toEqual(['BP6080 MTH-9 21:9']);
  });
  it('refuses names that are not locals of the step', () => {
    const d = check(withCheck('      present: inputs.query')).diagnostics;
    expect(summary(d)).toEqual(['BP6081 MTH-9 20:16']);
    expect(d[0]!.hint).toContain('add an `in` alias');
    expect(diagnose(withCheck('      present: titles'))).toEqual(['BP6081 MTH-9 20:16']);
  });
  it('refuses a count of a non-list and a file check of a non-file', () => {
    expect(diagnose(withCheck('      count:\n        value: query\n        min: 1'))).toEqual(['BP6082 MTH-9 21:16']);
    expect(diagnose(withCheck('      file: results'))).toEqual(['BP6082 MTH-9 20:13']);
  });
  it('accepts plain English and every exact form', () => {
    const forms: [string, unknown][] = [
      ['    check: Every title mentions the query.', { kind: 'english', text: 'Every title mentions the query.' }],
      ['      equals:\n        actual: results\n        expected: query', { kind: 'equals', actual: 'results', expected: 'query' }],
      ['      count:\n        value: results\n        min: 1\n        max: 20', { kind: 'count', value: 'results', min: 1, max: 20 }],
      ['      count: {value: results, max: 0}', { kind: 'count', value: 'results', max: 0 }],
      ['      present: query', { kind: 'present', name: 'query' }],
    ];
    for (const [lines, spec] of forms) {
      const text = lines.startsWith('    check:') ? VALID.replace('result: results', `${lines}\nresult: results`) : withCheck(lines);
      const r = check(text);
      expect(r.diagnostics).toEqual([]);
      expect(r.method?.steps.search?.check).toEqual(spec);
    }
    const file = check(
      VALID.replace(
        'type: list\n        description: Matching titles.\n        items:\n          type: text',
        'type: file\n        description: Titles.',
      ).replace('result: results', '    check:\n      file: results\nresult: results'),
    );
    expect(file.diagnostics).toEqual([]);
    expect(file.method?.steps.search?.check).toEqual({ kind: 'file', name: 'results' });
  });
});

describe('MTH-10 dependencies and cycles', () => {
  const two = (after: string) => doc(SEARCH, '  notify:', '    do: Tell the team.', after, 'result: results');
  it('refuses after naming an unknown step or the step itself', () => {
    const d = check(two('    after: serch')).diagnostics;
    expect(summary(d)).toEqual(['BP6090 MTH-10 21:12']);
    expect(d[0]!.hint).toBe('did you mean `search`?');
    expect(diagnose(two('    after: notify'))).toEqual(['BP6090 MTH-10 21:12']);
    expect(check(two('    after: results')).diagnostics[0]!.hint).toContain('is an output of step `search`');
  });
  it('refuses a cycle of three, naming it step by step with the links', () => {
    const file = path.join(FIXTURES, 'broken/cycle.method.yaml');
    const d = checkMethod(file, readFileSync(file)).diagnostics;
    expect(summary(d)).toEqual(['BP6091 MTH-10 5:3']);
    expect(d[0]!.message).toBe('Unexpected dependency cycle `outline` → `write` → `review` → `outline`, expected steps that do not wait for themselves');
    expect(d[0]!.related).toEqual([
      { file, line: 15, column: 16, message: '`write` reads `outline_text` from `outline`' },
      { file, line: 23, column: 16, message: '`review` reads `article` from `write`' },
      { file, line: 7, column: 14, message: '`outline` reads `review_notes` from `review`' },
    ]);
  });
  it('refuses a step that reads its own output and a cycle through after', () => {
    expect(
      diagnose(
        VALID.replace('do: Search for {{query}}.', 'do: Search for {{query}} beyond {{seen}}.').replace(
          '      query: inputs.query',
          '      query: inputs.query\n      seen: results',
        ),
      ),
    ).toEqual(['BP6091 MTH-10 9:3']);
    const d = check(two('    after: search').replace('    in:', '    after: notify\n    in:')).diagnostics;
    expect(summary(d)).toEqual(['BP6091 MTH-10 9:3']);
    expect(d[0]!.message).toContain('`search` → `notify` → `search`');
  });
  it('accepts after and orders steps stably, document order among ready steps', () => {
    const r = check(
      doc('steps:', '  c:', '    do: C.', '    after: b', '  a:', '    do: A.', '  b:', '    do: B.', '    after:', '      - a', 'result: inputs.query'),
    );
    expect(r.diagnostics).toEqual([]);
    expect(r.method?.order).toEqual(['a', 'b', 'c']);
    expect(r.method?.steps.b?.after).toEqual(['a']);
    expect(check(two('    after: search')).method?.steps.notify?.dependsOn).toEqual(['search']);
  });
});

describe('MTH-11 each', () => {
  const people = 'state:\n  people:\n    type: list\n    description: People.\n    file: people.json\n    items:\n      type: text\n';
  const repeat = (each: string) => VALID.replace('steps:', people + 'steps:').replace('    in:', `    each:\n${each}\n    in:`);
  it('refuses an each of two aliases or none', () => {
    expect(diagnose(repeat('      person: state.people\n      other: state.people'))).toEqual(['BP6100 MTH-11 18:7']);
    expect(diagnose(repeat('      {}'))).toEqual(['BP6100 MTH-11 18:7']);
  });
  it('refuses an each over data that is not a list', () => {
    expect(diagnose(repeat('      person: inputs.query'))).toEqual(['BP6101 MTH-11 18:15']);
  });
  it('makes each output a list downstream', () => {
    const text =
      repeat('      person: state.people').replace('result: results\n', '') +
      '  report:\n    in:\n      all: results\n    do: Report {{all}}.\nresult: results\n';
    const r = check(text);
    expect(r.diagnostics).toEqual([]);
    expect(r.method?.outputs.results).toMatchObject({ step: 'search', list: true });
    expect(r.method?.steps.search?.each).toEqual({ alias: 'person', ref: { root: 'state', name: 'people', path: [], text: 'state.people' } });
    // results is a list of lists downstream: an item is a list, its item a text.
    expect(diagnose(text.replace('all: results', 'all: results.0.0'))).toEqual([]);
    expect(diagnose(text.replace('all: results', 'all: results.0.0.0'))).toEqual(['BP6062 MTH-7 30:24']);
  });
});

describe('MTH-12 when', () => {
  const gate = [
    '  review:',
    '    do: Decide whether the results need review.',
    '    out:',
    '      needs_review:',
    '        type: boolean',
    '        description: True when a human should look.',
  ].join('\n');
  const consumer = (when: string) =>
    doc(
      SEARCH,
      gate,
      '  fix:',
      when,
      '    in:',
      '      found: results',
      '    do: Fix {{found}}.',
      '    out:',
      '      fixed:',
      '        type: text',
      '        description: Fixed.',
      '  publish:',
      '    in:',
      '      fixed: fixed',
      '    do: Publish {{fixed}}.',
      'result: results',
    );
  it('refuses when naming data that is not a boolean, or not a reference', () => {
    expect(diagnose(consumer('    when: results'))).toContain('BP6110 MTH-12 26:11');
    expect(diagnose(consumer('    when:\n      - needs_review'))).toContain('BP6110 MTH-12 27:7');
  });
  it('warns when a consumer of a conditional output lacks the condition, and still compiles', () => {
    const r = check(consumer('    when: needs_review'));
    expect(summary(r.diagnostics)).toEqual(['BP6111 MTH-12 36:14']);
    expect(r.diagnostics[0]!.severity).toBe('warning');
    expect(r.diagnostics[0]!.related?.[0]).toMatchObject({ line: 26, column: 11 });
    expect(r.method?.steps.fix?.when).toEqual({ root: 'output', name: 'needs_review', path: [], text: 'needs_review' });
    expect(r.method?.steps.fix?.dependsOn).toEqual(['review', 'search']);
  });
  it('accepts consumers that carry the same condition', () => {
    expect(diagnose(consumer('    when: needs_review').replace('  publish:\n', '  publish:\n    when: needs_review\n'))).toEqual([]);
  });
});

describe('MTH-13 changes', () => {
  const st = 'state:\n  seen:\n    type: list\n    description: Seen.\n    file: seen.json\n    items:\n      type: text\n';
  const changes = (lines: string, body = '    do: Search for {{query}}.') =>
    VALID.replace('steps:', st + 'steps:').replace('    do: Search for {{query}}.', `${body}\n    changes:\n${lines}`);
  it('refuses targets that are not declared state or environment', () => {
    const d = check(changes('      - inputs.query')).diagnostics;
    expect(summary(d)).toEqual(['BP6120 MTH-13 21:9']);
    expect(check(changes('      - state.sen')).diagnostics[0]!.hint).toBe('did you mean `state.seen`?');
    expect(diagnose(changes('      - state.seen\n      - state.seen'))).toEqual(['BP6120 MTH-13 22:9']);
    expect(diagnose(VALID.replace('steps:', st + 'steps:').replace('    do: Search for {{query}}.', '    do: Search.\n    changes: state.seen'))).toEqual([
      'BP6120 MTH-13 20:14',
    ]);
  });
  it('refuses changes on an ask step', () => {
    expect(diagnose(changes('      - state.seen', '    ask: Which titles?'))).toEqual(['BP6121 MTH-13 20:5']);
  });
  it('accepts a state change without a check', () => {
    const r = check(changes('      - state.seen'));
    expect(r.diagnostics).toEqual([]);
    expect(r.method?.steps.search?.changes).toEqual([{ root: 'state', name: 'seen', path: [], text: 'state.seen' }]);
  });
});

describe('MTH-14 environment', () => {
  const env = (decl: string) => VALID.replace('steps:', `environment:\n  mail:\n${decl}steps:`);
  it('refuses an unknown connection type, with a guess', () => {
    const d = check(env('    type: servce\n    description: Mail.\n')).diagnostics;
    expect(summary(d)).toEqual(['BP6131 MTH-14 10:11']);
    expect(d[0]!.hint).toBe('did you mean `service`?');
  });
  it('refuses a connection without description or with other keys', () => {
    expect(diagnose(env('    type: service\n'))).toEqual(['BP6130 MTH-14 9:3']);
    const d = check(env('    type: service\n    description: Mail.\n    password: x\n')).diagnostics;
    expect(summary(d)).toEqual(['BP6130 MTH-14 12:5']);
    expect(d[0]!.hint).toContain('credentials belong to the run configuration');
    expect(diagnose(env('    service\n'))).toEqual(['BP6130 MTH-14 10:5']);
  });
  it('accepts the five connection types', () => {
    for (const type of ['browser', 'service', 'desktop', 'files', 'tool']) {
      const r = check(env(`    type: ${type}\n    description: Access.\n`));
      expect(r.diagnostics).toEqual([]);
      expect(r.method?.environment.mail).toEqual({ type, description: 'Access.' });
    }
  });
});

describe('MTH-15 result', () => {
  it('refuses a result that is neither a reference nor a map of them', () => {
    expect(diagnose(VALID.replace('result: results', 'result: []'))).toEqual(['BP6140 MTH-15 19:9']);
    expect(diagnose(VALID.replace('result: results', 'result: {}'))).toEqual(['BP6140 MTH-15 19:9']);
    expect(diagnose(VALID.replace('result: results', "result:\n  '': results"))).toEqual(['BP6140 MTH-15 20:3']);
  });
  it('refuses a connection as a result and reports unknown references under MTH-7', () => {
    const env = VALID.replace('steps:', 'environment:\n  web:\n    type: browser\n    description: Web.\nsteps:');
    expect(diagnose(env.replace('result: results', 'result: environment.web'))).toEqual(['BP6140 MTH-15 23:9']);
    expect(diagnose(VALID.replace('result: results', 'result:\n  Titles: titles'))).toEqual(['BP6061 MTH-7 20:11']);
  });
  it('accepts one reference or display names of any text', () => {
    const r = check(VALID.replace('result: results', 'result:\n  Matching titles: results\n  First one: results.0\n  Started: run.started_at'));
    expect(r.diagnostics).toEqual([]);
    expect(Object.keys((r.method?.result as { map: object }).map)).toEqual(['Matching titles', 'First one', 'Started']);
  });
});

describe('MTH-16 version id', () => {
  it('is the same for the YAML and JSON forms of one method', () => {
    const yaml = checkMethod('weekly-report.method.yaml', readFileSync(path.join(FIXTURES, 'weekly-report.method.yaml')));
    const json = checkMethod('weekly-report.method.json', readFileSync(path.join(FIXTURES, 'weekly-report.method.json')));
    expect(json.diagnostics).toEqual([]);
    expect(yaml.method?.versionId).toMatch(/^sha256-[0-9a-f]{64}$/);
    expect(json.method?.versionId).toBe(yaml.method?.versionId);
    expect(json.method?.document).toEqual(yaml.method?.document);
  });
  it('ignores comments, formatting, key order and line endings', () => {
    const id = check(VALID).method!.versionId;
    const restyled =
      '# comment\n' +
      VALID.replace('goal: Demonstrate.', 'goal: "Demonstrate."   # why').replace('        items:\n          type: text', '        items: {type: text}');
    expect(check(restyled).method?.versionId).toBe(id);
    expect(check(VALID.replace(/\n/g, '\r\n')).method?.versionId).toBe(id);
    const reordered = VALID.replace('format: method/2\nname: demo\n', 'name: demo\nformat: method/2\n');
    expect(check(reordered).method?.versionId).toBe(id);
  });
  it('changes with any content change', () => {
    const id = check(VALID).method!.versionId;
    expect(check(VALID.replace('Demonstrate.', 'Demonstrate!')).method?.versionId).not.toBe(id);
    expect(check(VALID.replace('Matching titles.', 'Matching titles')).method?.versionId).not.toBe(id);
  });
  it('refuses a document without a canonical form (a lone surrogate)', () => {
    expect(diagnose(VALID.replace('goal: Demonstrate.', 'goal: "Demonstrate \\ud800"'))).toEqual(['BP6150 MTH-16 1:1']);
  });
});

describe('MTH-17 external changes and output locations', () => {
  const env = 'environment:\n  chat:\n    type: service\n    description: Team chat.\n';
  const post = VALID.replace('steps:', env + 'steps:').replace(
    '    do: Search for {{query}}.',
    '    do: Post {{query}}.\n    changes:\n      - environment.chat',
  );
  it('refuses an environment change without a check', () => {
    const d = check(post).diagnostics;
    expect(summary(d)).toEqual(['BP6160 MTH-17 18:9']);
    expect(d[0]!.hint).toContain('independent');
  });
  it('accepts an environment change with a check', () => {
    expect(diagnose(post.replace('result: results', '    check: The chat shows the posted message.\nresult: results'))).toEqual([]);
  });
  it('refuses a path or file inside an out declaration, at any depth', () => {
    const d = check(VALID.replace('        items:\n', '        path: out/titles.json\n        items:\n')).diagnostics;
    expect(summary(d)).toEqual(['BP6161 MTH-17 17:9']);
    expect(d[0]!.hint).toContain('the method assigns locations');
    expect(diagnose(VALID.replace('          type: text', '          type: text\n          file: x.txt'))).toEqual(['BP6161 MTH-17 19:11']);
  });
});

describe('fixtures/methods', () => {
  it('the weekly report checks clean and compiles completely', () => {
    const file = path.join(FIXTURES, 'weekly-report.method.yaml');
    const r = checkMethod(file, readFileSync(file));
    expect(r.diagnostics).toEqual([]);
    const m = r.method!;
    expect(m.name).toBe('weekly_team_report');
    expect(m.order).toEqual(['collect', 'draft', 'approve', 'publish', 'remember']);
    expect(Object.keys(m.steps)).toEqual(['collect', 'draft', 'approve', 'publish', 'remember']);
    expect(m.steps.approve?.kind).toBe('ask');
    expect(m.steps.publish).toMatchObject({ when: { root: 'output', name: 'approval', path: ['approved'] }, dependsOn: ['approve', 'draft'] });
    expect(m.steps.remember?.changes).toEqual([{ root: 'state', name: 'last_report', path: [], text: 'state.last_report' }]);
    expect(m.outputs.person_work).toMatchObject({ step: 'collect', list: true });
    expect(m.outputs.report_file?.type).toEqual({
      type: 'file',
      format: 'markdown',
      description: 'The report, with a title, a summary and one section per person.',
    });
    expect(m.state.last_report?.default).toEqual({ week: 'none', url: 'none' });
    expect(m.inputs.max_results?.default).toBe(10);
  });
  it('the ticket triage checks clean: bare types inside fields and items, a read-only and a changing use of one connection', () => {
    const file = path.join(FIXTURES, 'ticket-triage.method.yaml');
    const r = checkMethod(file, readFileSync(file));
    expect(r.diagnostics).toEqual([]);
    expect(r.method!.order).toEqual(['find', 'reply', 'remember']);
    expect(r.method!.outputs.tickets?.type).toEqual({
      type: 'list',
      description: 'The new tickets, oldest first.',
      fields: { id: { type: 'text' }, title: { type: 'text' }, body: { type: 'text' } },
    });
    expect(r.method!.state.triaged).toMatchObject({ type: 'list', items: { type: 'text' } });
    expect(r.method!.steps.reply?.changes.map((c) => c.text)).toEqual(['environment.tracker']);
  });
  const expected = JSON.parse(readFileSync(path.join(FIXTURES, 'broken/expected.json'), 'utf8')) as Record<string, string[]>;
  it('lists every broken fixture', () => {
    expect(Object.keys(expected).sort()).toEqual(readdirSync(path.join(FIXTURES, 'broken')).filter(isMethodFile).sort());
  });
  it.each(Object.entries(expected))('broken/%s reports exactly the expected rules', (name, rules) => {
    const file = path.join(FIXTURES, 'broken', name);
    const r = checkMethod(file, readFileSync(file));
    expect([...new Set(r.diagnostics.filter((d) => d.severity === 'error').map((d) => d.rule))].sort()).toEqual([...rules].sort());
    expect(r.method).toBeUndefined();
  });
});

describe('robustness', () => {
  /** Deterministic, so a failure reproduces. */
  function prng(seed: number): () => number {
    return () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed / 0x80000000;
    };
  }
  it('treats keys like `constructor` and `__proto__` as plain keys', () => {
    const text = VALID.replace('steps:', 'constructor: 1\n__proto__: {}\nsteps:')
      .replace('    in:', '    toString: x\n    in:')
      .replace('type: text\n    description', 'type: constructor\n    description')
      .replace('      results:', '      constructor:\n        type: hasOwnProperty\n        description: x\n      results:');
    const d = check(text).diagnostics;
    expect(summary(d)).toEqual(['BP6021 MTH-3 6:11', 'BP6006 MTH-1 8:1', 'BP6006 MTH-1 9:1', 'BP6052 MTH-6 12:5', 'BP6021 MTH-3 18:15']);
    for (const x of d) expect(['string', 'undefined']).toContain(typeof x.hint);
  });
  it('never throws, and never reports an internal error, on a corpus of garbage', () => {
    const random = prng(20240611);
    const weekly = readFileSync(path.join(FIXTURES, 'weekly-report.method.yaml'), 'utf8');
    const weeklyJson = readFileSync(path.join(FIXTURES, 'weekly-report.method.json'), 'utf8');
    const alphabet = ' \n\t:-{}[],.#&*!|>\'"%@`?0123456789abcdefghijklmnopqrstuvwxyz_{}\\u';
    const corpus: [string, string | Uint8Array][] = [
      ['a.method.yaml', new Uint8Array([0xff, 0xfe, 0x00])],
      ['a.method.yaml', 'format: method/2\nsteps:\n  a:\n    each:\n      x: y\n    in: 3\n'],
      ['a.method.yaml', '['.repeat(5000) + ']'.repeat(5000)],
      ['a.method.json', '['.repeat(5000) + ']'.repeat(5000)],
      ['a.method.yaml', 'a: &x 1\nb: *x\n'],
    ];
    for (let i = 0; i < 150; i++) {
      const n = Math.floor(random() * 200);
      corpus.push([i % 2 ? 'g.method.yaml' : 'g.method.json', Array.from({ length: n }, () => alphabet[Math.floor(random() * alphabet.length)]).join('')]);
      const source = i % 3 === 0 ? weeklyJson : weekly;
      const lines = source.split('\n');
      for (let k = 0; k < 3; k++) lines.splice(Math.floor(random() * lines.length), 1 + Math.floor(random() * 3));
      let mutated = lines.join('\n');
      for (let k = 0; k < 4; k++) {
        const at = Math.floor(random() * mutated.length);
        mutated = mutated.slice(0, at) + alphabet[Math.floor(random() * alphabet.length)] + mutated.slice(at + 1);
      }
      corpus.push([i % 3 === 0 ? 'w.method.json' : 'w.method.yaml', mutated]);
    }
    for (const [file, input] of corpus) {
      let r: MethodCheckResult | undefined;
      expect(() => (r = checkMethod(file, input))).not.toThrow();
      expect(
        r!.diagnostics.filter((d) => d.code === 'BP6009'),
        String(input).slice(0, 200),
      ).toEqual([]);
      const failed = r!.diagnostics.some((d) => d.severity === 'error');
      // Compiled exactly when error-free, and then complete.
      expect(r!.method === undefined).toBe(failed);
      if (r!.method) expect(r!.method.order.length).toBe(Object.keys(r!.method.steps).length);
      for (const d of r!.diagnostics) {
        expect(d.line).toBeGreaterThanOrEqual(1);
        expect(d.column).toBeGreaterThanOrEqual(1);
      }
    }
  });
});
