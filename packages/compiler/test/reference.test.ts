import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { scanTemplate } from '../src/body/scan-template.js';
import type { Diagnostic } from '../src/diagnostics/diagnostic.js';
import { LineIndex } from '../src/diagnostics/line-index.js';
import type { Span } from '../src/diagnostics/reporter.js';
import { referenceCodes } from '../src/diagnostics/codes/reference.js';
import { resolveName, type ImportAlias, type NameTable } from '../src/reference/resolve-name.js';
import { resolvePackage, type PackageResolution, type ResolvedRoutine } from '../src/reference/resolve-package.js';
import { checkSource, type RoutineSource } from '../src/routine/check-routine.js';
import { compactRoutine } from '../src/package/compact-routine.js';

const CODE_BODY = 'export default function (input) {\n  return input;\n}\n';
// Seven lines, from `port:` to `pending: 4`.
const OUTPUT_PORT = 'port:\n  input: false\n  output: true\n  limits:\n    bytes: 65536\n    messages: 16\n    pending: 4\n';
const INPUT_Q = 'input:\n  type: object\n  required:\n    - q\n  properties:\n    q:\n      type: string\n    extra:\n      type: string\n';

const fileOf = (name: string): string => `/pkg/${name.replace(/\./g, '/')}.md`;

function source(file: string, frontmatter: string, body: string): RoutineSource {
  const result = checkSource(file, `---\n${frontmatter}---\n${body}`);
  expect(
    result.diagnostics.filter((d) => d.severity === 'error'),
    file,
  ).toEqual([]);
  return result.routine!;
}

/** Fields start on line 7; with no fields the body starts on line 8. */
function model(name: string, fields = '', body = 'Answer the question.\n', file = fileOf(name)): RoutineSource {
  return source(file, `name: ${name}\ndescription: A model routine.\nmodel:\n  select:\n    operation: generation\n${fields}`, body);
}

/** Fields start on line 5. */
function code(name: string, fields = '', body = CODE_BODY, file = fileOf(name)): RoutineSource {
  return source(file, `name: ${name}\ndescription: A code routine.\nlanguage: javascript\n${fields}`, body);
}

/** Fields start on line 4; with no fields the body starts on line 5. */
function instructions(name: string, body = 'Write plainly.\n', fields = '', file = fileOf(name)): RoutineSource {
  return source(file, `name: ${name}\ndescription: Reusable instructions.\n${fields}`, body);
}

interface Options {
  requires?: string[];
  catalog?: boolean;
  imports?: ImportAlias[];
  agents?: Record<string, string>;
  exports?: string[];
}

/** A plugin.json whose agent entries are on lines 3…, one per line, then one export per line. */
function manifestOf(agents: Record<string, string>, exports: string[]) {
  let text = '{\n  "agents": {\n';
  const at = (value: string, line: string): Span => {
    const start = text.length + line.indexOf(`"${value}"`);
    text += line + '\n';
    return { start, end: start + value.length + 2 };
  };
  const agentDecls = Object.entries(agents).map(([id, entry]) => ({ id, entry, entrySpan: at(entry, `    "${id}": { "entry": "${entry}" },`) }));
  text += '  },\n  "exports": [\n';
  const exportDecls = exports.map((name) => ({ name, span: at(name, `    "${name}",`) }));
  text += '  ]\n}\n';
  return { text, agents: agentDecls, exports: exportDecls };
}

/**
 * Resolves the sources as checked (whole trees) and again as a build keeps them (`compactRoutine`:
 * the copied fields' trees let go, routine-facts.ts): every test here also proves the two resolve
 * alike, diagnostics, positions, related locations and requirements included.
 */
function resolve(sources: RoutineSource[], options: Options = {}): PackageResolution {
  const manifest = manifestOf(options.agents ?? {}, options.exports ?? []);
  const once = (routines: RoutineSource[]) =>
    resolvePackage({
      routines,
      table: {
        sources: new Map(routines.map((s) => [s.name!, s])),
        imports: new Map((options.imports ?? []).map((i) => [i.alias, i])),
        externals: new Set(options.requires ?? []),
      },
      agents: manifest.agents,
      exports: manifest.exports,
      manifest: { file: '/pkg/plugin.json', lines: new LineIndex(manifest.text) },
      catalogGiven: options.catalog ?? false,
    });
  const result = once(sources);
  const compacted = sources.map(compactRoutine);
  expect(compacted.every((r) => r.facts !== undefined)).toBe(true);
  expect(once(compacted)).toEqual(result);
  return result;
}

/** `file code rule line:column` for compact, exact assertions. */
function summary(diagnostics: readonly Diagnostic[]): string[] {
  return diagnostics.map((d) => `${path.basename(d.file)} ${d.code} ${d.rule} ${d.line}:${d.column}`);
}

function routine(result: PackageResolution, name: string): ResolvedRoutine {
  const found = result.routines.get(name);
  expect(found, name).toBeDefined();
  return found!;
}

function only(result: PackageResolution): Diagnostic {
  expect(summary(result.diagnostics)).toHaveLength(1);
  return result.diagnostics[0]!;
}

describe('REF-1, REF-2: one resolver, in precedence order', () => {
  const table = (sources: string[], imports: string[] = [], externals: string[] = []): NameTable => ({
    sources: new Map(sources.map((name) => [name, instructions(name)])),
    imports: new Map(imports.map((alias) => [alias, { alias, kind: 'model' as const }])),
    externals: new Set(externals),
  });

  it.each<[string, string[], string[], string[], string, string | undefined, boolean, unknown]>([
    ['a sibling beats the root name', ['x.helper', 'helper'], [], [], 'helper', 'x', false, { kind: 'source', name: 'x.helper' }],
    ['the root name when the caller has no sibling', ['x.helper', 'helper'], [], [], 'helper', 'y', false, { kind: 'source', name: 'helper' }],
    ['the root name beats a unique final segment', ['helper', 'y.helper'], [], [], 'helper', 'z', false, { kind: 'source', name: 'helper' }],
    ['a unique final segment', ['y.helper'], [], [], 'helper', 'z', false, { kind: 'source', name: 'y.helper' }],
    ['a unique final segment beats an external name', ['y.helper'], [], ['helper'], 'helper', 'z', true, { kind: 'source', name: 'y.helper' }],
    ['an external name only when no source matches', [], [], ['helper'], 'helper', 'z', true, { kind: 'external', name: 'helper' }],
    ['an import alias like a source', ['x.other'], ['lib'], [], 'lib', 'x', false, { kind: 'import', alias: 'lib' }],
    ['an import alias by its final segment', [], ['vendor.lib'], [], 'lib', 'x', false, { kind: 'import', alias: 'vendor.lib' }],
    ['a qualified name exactly', ['x.helper', 'y.helper'], [], [], 'x.helper', 'y', false, { kind: 'source', name: 'x.helper' }],
    [
      'a qualified source before a qualified external',
      ['web.search'],
      [],
      ['web.search'],
      'web.search',
      undefined,
      true,
      { kind: 'source', name: 'web.search' },
    ],
    ['a qualified external name', [], [], ['web.search'], 'web.search', 'x', true, { kind: 'external', name: 'web.search' }],
    ['no caller namespace (REF-3): no sibling step', ['x.helper', 'helper'], [], [], 'helper', undefined, false, { kind: 'source', name: 'helper' }],
  ])('%s', (_, sources, imports, externals, name, caller, allowExternal, target) => {
    expect(resolveName(table(sources, imports, externals), name, caller, { allowExternal })).toEqual({ ok: true, target });
  });

  it('refuses an external name where externals are not allowed, and a qualified name that matches only by final segments', () => {
    expect(resolveName(table([], [], ['helper']), 'helper', 'x')).toEqual({ ok: false, reason: 'missing', candidates: [] });
    expect(resolveName(table(['x.y.helper']), 'y.helper', 'x')).toMatchObject({ ok: false, reason: 'missing' });
    expect(resolveName(table([], [], ['web.search']), 'web.search', 'x', { allowExternal: true })).toMatchObject({ ok: true });
    expect(resolveName(table([], [], ['web.search']), 'web.serch', 'x', { allowExternal: true })).toEqual({
      ok: false,
      reason: 'missing',
      candidates: ['web.search'],
    });
  });

  it('reports an ambiguous short name with every candidate, sorted', () => {
    expect(resolveName(table(['x.helper', 'y.helper', 'w.helper'], ['v.helper']), 'helper', 'z')).toEqual({
      ok: false,
      reason: 'ambiguous',
      candidates: ['v.helper', 'w.helper', 'x.helper', 'y.helper'],
    });
  });

  it('suggests the nearest names for a missing one', () => {
    expect(resolveName(table(['notes.search', 'notes.compose']), 'notes.serch', 'notes')).toEqual({
      ok: false,
      reason: 'missing',
      candidates: ['notes.search'],
    });
  });

  it('a second `*.helper` makes a short `helper` ambiguous from a third namespace, but not from within `x`', () => {
    const base = [model('x.helper'), model('x.caller', 'tools:\n  - helper\n'), model('z.caller', 'tools:\n  - helper\n')];
    const before = resolve(base);
    expect(before.diagnostics).toEqual([]);
    expect(routine(before, 'z.caller').tools).toEqual([{ key: 'helper', target: { kind: 'source', name: 'x.helper' }, options: {} }]);

    const after = resolve([...base, model('y.helper')]);
    expect(summary(after.diagnostics)).toEqual(['caller.md BP2101 REF-2 8:5']);
    const d = after.diagnostics[0]!;
    expect(d.file).toBe('/pkg/z/caller.md');
    expect(d.message).toBe('Unexpected ambiguous tool `helper`, expected one match among `x.helper` or `y.helper`');
    expect(d.hint).toBe('write the qualified name, `x.helper` or `y.helper`: a qualified name cannot become ambiguous when sources are added');
    expect(d.related).toEqual([
      { file: '/pkg/x/helper.md', line: 2, column: 7, message: '`x.helper` is declared here' },
      { file: '/pkg/y/helper.md', line: 2, column: 7, message: '`y.helper` is declared here' },
    ]);
    expect(routine(after, 'x.caller').tools[0]!.target).toEqual({ kind: 'source', name: 'x.helper' });
  });
});

describe('REF-3: agent entries and exports have no caller namespace', () => {
  it('resolves an entry without a sibling step, by root name, then by unique final segment', () => {
    const result = resolve([model('helper'), model('x.helper'), model('notes.answer')], { agents: { one: 'helper', two: 'answer' } });
    expect(result.diagnostics).toEqual([]);
    expect(result.exports).toEqual([
      { name: 'answer', target: { kind: 'source', name: 'notes.answer' }, entry: true },
      { name: 'helper', target: { kind: 'source', name: 'helper' }, entry: true },
    ]);
  });

  it('refuses an ambiguous short entry, at its position in plugin.json', () => {
    const result = resolve([model('x.helper'), model('y.helper')], { agents: { one: 'helper' } });
    expect(summary(result.diagnostics)).toEqual(['plugin.json BP2101 REF-2 3:23']);
  });
});

describe('REF-4: `!ref` resolves in schema const/enum, next.input and presentation.value', () => {
  const sources = (): RoutineSource[] => [instructions('notes.style'), instructions('notes.card'), model('notes.reply'), model('notes.render')];

  it('resolves every `!ref` from the routine namespace, sorted and deduplicated, and builds the tagged next.input', () => {
    const answer = model(
      'notes.answer',
      'input:\n  type: object\n  properties:\n    style:\n      const: !ref style\n    kind:\n      enum:\n        - plain\n        - !ref notes.card\n' +
        OUTPUT_PORT +
        'tools:\n  - notes.render:\n      presentation:\n        when: completed\n        value:\n          format:\n            $literal: card\n          document: !ref card\n          title: $.output.title\n          fallback: $.output.text\n' +
        'next:\n  to: reply\n  input:\n    style: !ref notes.style\n    text: $.output\n    n: 3\n    pick:\n      select: $.output.kind\n      cases:\n        a:\n          $literal: $.not.a.path\n        b:\n          - !ref style\n',
    );
    const result = resolve([...sources(), answer]);
    expect(result.diagnostics).toEqual([]);
    const r = routine(result, 'notes.answer');
    expect(r.refs).toEqual([
      { kind: 'source', name: 'notes.card' },
      { kind: 'source', name: 'notes.style' },
    ]);
    expect(r.next).toEqual({ to: { kind: 'source', name: 'notes.reply' } });
    expect(r.nextInput).toEqual({
      object: {
        style: { '!ref': { kind: 'source', name: 'notes.style' } },
        text: { path: '$.output' },
        n: { literal: 3 },
        pick: {
          select: '$.output.kind',
          cases: { a: { literal: '$.not.a.path' }, b: { array: [{ '!ref': { kind: 'source', name: 'notes.style' } }] } },
        },
      },
    });
    expect(r.tools[0]!.options).toEqual({
      presentation: {
        when: 'completed',
        value: {
          object: {
            format: { literal: 'card' },
            document: { '!ref': { kind: 'source', name: 'notes.card' } },
            title: { path: '$.output.title' },
            fallback: { path: '$.output.text' },
          },
        },
      },
    });
  });

  it('refuses a `!ref` to a missing name, with did-you-mean, and never resolves it to an external name', () => {
    const answer = model('notes.answer', 'next:\n  to: notes.reply\n  input:\n    a: !ref notes.styl\n    b: !ref web.search\n');
    const result = resolve([...sources(), answer], { requires: ['web.search'] });
    expect(summary(result.diagnostics)).toEqual(['answer.md BP2102 REF-4 10:8', 'answer.md BP2102 REF-4 11:8']);
    expect(result.diagnostics[0]!.message).toBe('Unexpected unknown `!ref` name `notes.styl`, expected the name of a source or import');
    expect(result.diagnostics[0]!.hint).toBe('did you mean `notes.style`, `notes.card` or `notes.reply`?');
  });

  it('refuses a `!ref` inside `$literal`, whose value is plain data', () => {
    const answer = model('notes.answer', 'next:\n  to: notes.reply\n  input:\n    $literal:\n      style: !ref notes.style\n');
    const d = only(resolve([...sources(), answer]));
    expect(summary([d])).toEqual(['answer.md BP2103 REF-4 11:14']);
    expect(d.message).toBe('Unexpected `!ref notes.style` inside `$literal`, expected plain data');
  });
});

describe('REF-5: references use declared names, not file names', () => {
  // `notes/compose.md` declares `notes.writer`.
  const writer = (): RoutineSource => model('notes.writer', '', 'Write.\n', '/pkg/notes/compose.md');

  it('accepts the declared name', () => {
    expect(resolve([writer(), model('notes.answer', 'tools:\n  - notes.writer\n')]).diagnostics).toEqual([]);
  });

  it.each([
    ['tools:\n  - compose\n', 'answer.md BP2104 REF-5 8:5'],
    ['tools:\n  - compose.md\n', 'answer.md BP2104 REF-5 8:5'],
    ['tools:\n  - notes.compose\n', 'answer.md BP2104 REF-5 8:5'],
    ['next: compose\n', 'answer.md BP2104 REF-5 7:7'],
  ])('refuses a file name in frontmatter: %j', (fields, expected) => {
    const d = only(resolve([writer(), model('notes.answer', fields)]));
    expect(summary([d])).toEqual([expected]);
    expect(d.hint).toBe('references use declared names, not file names: did you mean `notes.writer`?');
  });

  it('refuses a file path in a body include and dependency', () => {
    const style = instructions('notes.style', 'Plain.\n', '', '/pkg/notes/house-style.md');
    const result = resolve([style, model('notes.answer', '', '{{notes/house-style.md}}\n[[ ./notes/house-style ]]\n')]);
    expect(summary(result.diagnostics)).toEqual(['answer.md BP2104 REF-5 8:1', 'answer.md BP2104 REF-5 9:1']);
    expect(result.diagnostics[0]!.message).toBe('Unexpected file name `notes/house-style.md` for the include, expected the declared name of a source');
    expect(result.diagnostics[1]!.hint).toBe('references use declared names, not file names: did you mean `notes.style`?');
  });
});

describe('TOOL-6: tools resolve to a callable routine, a callable import or a known external tool', () => {
  const lib: ImportAlias[] = [
    { alias: 'lib.ask', kind: 'model' },
    { alias: 'lib.data', kind: 'opaque' },
    { alias: 'lib.rules', kind: 'instructions', body: 'Rules.' },
  ];

  it('accepts local model and code routines, a callable import and an external name in `requires`', () => {
    const result = resolve(
      [
        model('notes.search'),
        code('notes.count'),
        model('notes.answer', 'tools:\n  - search\n  - notes.count:\n      async: true\n  - lib.ask\n  - web.fetch: async\n'),
      ],
      { requires: ['web.fetch'], imports: lib },
    );
    expect(summary(result.diagnostics)).toEqual([]);
    expect(routine(result, 'notes.answer').tools).toEqual([
      { key: 'search', target: { kind: 'source', name: 'notes.search' }, options: {} },
      { key: 'notes.count', target: { kind: 'source', name: 'notes.count' }, options: { async: true } },
      { key: 'lib.ask', target: { kind: 'import', alias: 'lib.ask' }, options: {} },
      { key: 'web.fetch', target: { kind: 'external', name: 'web.fetch' }, options: { async: true } },
    ]);
    expect(result.requirements.tools).toEqual(['web.fetch']);
  });

  it('refuses instructions, with the include as hint, and imports without a callable export', () => {
    const result = resolve([instructions('notes.style'), model('notes.answer', 'tools:\n  - style\n  - lib.data\n  - lib.rules\n')], { imports: lib });
    expect(summary(result.diagnostics)).toEqual(['answer.md BP2111 TOOL-6 8:5', 'answer.md BP2111 TOOL-6 9:5', 'answer.md BP2111 TOOL-6 10:5']);
    const [style, data, rules] = result.diagnostics;
    expect(style!.message).toBe('Unexpected instructions `notes.style` as a tool, expected a model or code routine, a callable import or an external tool');
    expect(style!.hint).toBe('instructions are not callable: include them with {{notes.style}} instead');
    expect(data!.hint).toContain('`!ref lib.data`');
    expect(rules!.hint).toBe('instructions are not callable: include them with {{lib.rules}} instead');
  });

  it('refuses an external name missing from `requires` without a catalog, with that as hint', () => {
    const d = only(resolve([model('notes.answer', 'tools:\n  - web.fetch\n')]));
    expect(summary([d])).toEqual(['answer.md BP2110 TOOL-6 8:5']);
    expect(d.message).toBe('Unexpected unknown tool `web.fetch`, expected a model or code routine, a callable import or an external tool');
    expect(d.hint).toBe('if `web.fetch` is an external tool, list it in plugin.json `requires` (the build has no catalog)');
  });

  it('with a catalog, suggests the nearest known names', () => {
    const d = only(resolve([model('notes.answer', 'tools:\n  - web.fetsh\n')], { requires: ['web.fetch'], catalog: true }));
    expect(d.hint).toBe('did you mean `web.fetch`?; no source, import, `requires` entry or catalog tool is named `web.fetsh`');
  });

  it('resolves the tools of instructions from their own namespace', () => {
    const result = resolve([model('kit.lookup'), instructions('kit.style', 'Plain.\n', 'tools:\n  - lookup\n')]);
    expect(result.diagnostics).toEqual([]);
    expect(routine(result, 'kit.style').tools[0]!.target).toEqual({ kind: 'source', name: 'kit.lookup' });
  });
});

describe('NEXT-5: next targets are callable routines, callable imports or known external tools', () => {
  it('accepts `next: name`, `next.to`, every case and self-next; null ends a chain', () => {
    const result = resolve(
      [
        model('flow.a', 'next: b\n'),
        model('flow.b', 'next:\n  to: flow.b\n  output: false\n'),
        code('flow.c', 'next:\n  select: $.output.kind\n  cases:\n    again: c\n    out: mail.send\n    done: null\n'),
      ],
      { requires: ['mail.send'] },
    );
    expect(result.diagnostics).toEqual([]);
    expect(routine(result, 'flow.a').next).toEqual({ to: { kind: 'source', name: 'flow.b' } });
    expect(routine(result, 'flow.b').next).toEqual({ to: { kind: 'source', name: 'flow.b' } });
    expect(routine(result, 'flow.b').nextOutput).toBe(false);
    expect(routine(result, 'flow.c').next).toEqual({
      select: '$.output.kind',
      cases: { again: { kind: 'source', name: 'flow.c' }, out: { kind: 'external', name: 'mail.send' }, done: null },
    });
    expect(result.requirements.tools).toEqual(['mail.send']);
  });

  it('refuses instructions, unknown names and unlisted external tools', () => {
    const result = resolve([
      instructions('flow.style'),
      model('flow.a', 'next:\n  select: $.output.kind\n  cases:\n    x: style\n    y: flow.nope\n    z: mail.send\n'),
    ]);
    expect(summary(result.diagnostics)).toEqual(['a.md BP2116 NEXT-5 10:8', 'a.md BP2115 NEXT-5 11:8', 'a.md BP2115 NEXT-5 12:8']);
    expect(result.diagnostics[0]!.message).toBe(
      'Unexpected instructions `flow.style` as a `next` target, expected a model or code routine, a callable import or an external tool',
    );
  });
});

describe('MISC-1 (package part), MISC-2, MISC-3: summary, configure and route routines', () => {
  const COMPACTION = (summary: string): string => `compaction:\n  max_tokens: 2000\n  keep_turns: 2\n  summary: ${summary}\n`;

  it('accepts a plain generation summary (tools: [] counts as none) and callable configure/route routines', () => {
    const result = resolve([
      model('chat.sum', 'tools: []\n'),
      code('chat.setup'),
      model('chat.router'),
      model('chat.main', COMPACTION('sum') + 'configure:\n  routine: setup\n  fields:\n    - tone\nroute:\n  routine: chat.router\n'),
    ]);
    expect(result.diagnostics).toEqual([]);
    const main = routine(result, 'chat.main');
    expect([main.summary, main.configure, main.route]).toEqual([
      { kind: 'source', name: 'chat.sum' },
      { kind: 'source', name: 'chat.setup' },
      { kind: 'source', name: 'chat.router' },
    ]);
  });

  it('refuses a summary with tools and input, naming each with `related`', () => {
    const sum = model('chat.sum', 'input:\n  type: string\ntools:\n  - chat.other\n');
    const d = only(resolve([sum, model('chat.other'), model('chat.main', COMPACTION('chat.sum'))]));
    expect(summary([d])).toEqual(['main.md BP2121 MISC-1 10:12']);
    expect(d.message).toBe(
      'Unexpected `chat.sum` as `compaction.summary`: it declares `tools` and `input`, expected a plain generation routine without tools, port, input, output or compaction',
    );
    expect(d.related).toEqual([
      { file: '/pkg/chat/sum.md', line: 9, column: 1, message: '`tools` is declared here' },
      { file: '/pkg/chat/sum.md', line: 7, column: 1, message: '`input` is declared here' },
    ]);
  });

  it('refuses a code summary, a classification summary and a missing one', () => {
    const classify = source('/pkg/chat/judge.md', 'name: chat.judge\ndescription: Judges.\nmodel:\n  select:\n    operation: classification\n', 'Judge.\n');
    const result = resolve([
      code('chat.count'),
      classify,
      model('chat.a', COMPACTION('count')),
      model('chat.b', COMPACTION('judge')),
      model('chat.c', COMPACTION('nope')),
    ]);
    expect(summary(result.diagnostics)).toEqual(['a.md BP2121 MISC-1 10:12', 'b.md BP2121 MISC-1 10:12', 'c.md BP2120 MISC-1 10:12']);
    expect(result.diagnostics[1]!.message).toContain('it is a classification routine');
  });

  it('refuses instructions as configure or route routines', () => {
    const result = resolve([
      instructions('chat.style'),
      model('chat.main', 'configure:\n  routine: style\n  fields:\n    - tone\nroute:\n  routine: chat.nope\n'),
    ]);
    expect(summary(result.diagnostics)).toEqual(['main.md BP2126 MISC-2 8:12', 'main.md BP2127 MISC-3 12:12']);
  });
});

describe('MAN-3 (entries): agent entries are local callable routines; exports are local sources', () => {
  it('accepts model and code entries (exported automatically, once) and an exported instructions source', () => {
    const result = resolve([model('notes.answer'), code('notes.count'), instructions('notes.style')], {
      agents: { a: 'notes.answer', b: 'notes.answer', c: 'count' },
      exports: ['notes.style', 'notes.answer'],
    });
    expect(result.diagnostics).toEqual([]);
    expect(result.exports).toEqual([
      { name: 'count', target: { kind: 'source', name: 'notes.count' }, entry: true },
      { name: 'notes.answer', target: { kind: 'source', name: 'notes.answer' }, entry: true },
      { name: 'notes.style', target: { kind: 'source', name: 'notes.style' }, entry: false },
    ]);
  });

  it('refuses instructions, imports and unknown names as entries, and imports as exports, at their plugin.json positions', () => {
    const result = resolve([instructions('notes.style'), model('notes.answer')], {
      imports: [{ alias: 'lib.ask', kind: 'model' }],
      agents: { a: 'notes.style', b: 'lib.ask', c: 'notes.answr' },
      exports: ['lib.ask', 'notes.nope'],
    });
    expect(summary(result.diagnostics)).toEqual([
      'plugin.json BP2131 MAN-3 3:21',
      'plugin.json BP2131 MAN-3 4:21',
      'plugin.json BP2130 MAN-3 5:21',
      'plugin.json BP2133 MAN-3 8:5',
      'plugin.json BP2132 MAN-3 9:5',
    ]);
    expect(result.diagnostics[0]!.message).toBe(
      'Unexpected instructions `notes.style` as the entry of agent `a`, expected a model or code routine of this package',
    );
    expect(result.diagnostics[2]!.hint).toBe('did you mean `notes.answer` or `notes.style`?');
    expect(result.exports).toEqual([]);
  });
});

describe('TPL-1: `{{name}}` includes instructions at build time', () => {
  it('expands includes recursively, resolving names in the included source namespace', () => {
    const result = resolve([
      instructions('notes.tone', 'Be warm.'),
      instructions('app.tone', 'Be cold.'),
      instructions('notes.style', 'Style: {{tone}}!'),
      model('app.answer', '', 'Intro.\n{{ notes.style }}\nEnd.\n'),
    ]);
    expect(result.diagnostics).toEqual([]);
    const answer = routine(result, 'app.answer');
    expect(answer.template).toEqual([{ text: 'Intro.\nStyle: Be warm.!\nEnd.\n' }]);
    expect(answer.includes).toEqual(['notes.style', 'notes.tone']);
  });

  it('includes an imported instructions body, with its runtime templates', () => {
    const result = resolve([model('notes.answer', '', 'Hello. {{house}}\n')], {
      imports: [{ alias: 'house', kind: 'instructions', body: 'For {{ $.user.name }}: \\{{x}}' }],
    });
    expect(result.diagnostics).toEqual([]);
    const answer = routine(result, 'notes.answer');
    expect(answer.template).toEqual([{ text: 'Hello. For ' }, { path: '$.user.name' }, { text: ': {{x}}\n' }]);
    expect(answer.includes).toEqual(['house']);
    expect(answer.readers).toEqual(['runtime.user.profile.read']);
  });

  it('refuses an unknown name, a routine, and double braces holding anything else, with hints', () => {
    const result = resolve([code('notes.count'), model('notes.answer', '', 'A {{ notes.count }}\nB {{ user.name }}\nC {{#each items}}\nD {{}}\n')]);
    expect(summary(result.diagnostics)).toEqual([
      'answer.md BP2202 TPL-1 8:6',
      'answer.md BP2201 TPL-1 9:6',
      'answer.md BP2204 TPL-1 10:3',
      'answer.md BP2204 TPL-1 11:3',
    ]);
    const [routineInclude, user, each] = result.diagnostics;
    expect(routineInclude!.message).toBe('Unexpected code routine `notes.count` in an include, expected instructions');
    expect(user!.hint).toBe('did you mean the runtime template `{{ $.user.name }}`?');
    expect(each!.message).toBe('Unexpected `{{#each items}}`, expected `{{source.name}}`, `{{ $.path }}` or `{{ env.NAME }}`');
    expect(each!.hint).toContain('not Mustache or Handlebars');
  });

  it('refuses an include cycle of three once, naming the whole cycle, with the other includes related', () => {
    const result = resolve([
      instructions('notes.b', 'B {{notes.c}}'),
      instructions('notes.a', 'A {{b}}'),
      instructions('notes.c', 'C\n{{ a }}'),
      model('notes.answer', '', '{{notes.b}}\n'),
    ]);
    expect(summary(result.diagnostics)).toEqual(['a.md BP2203 TPL-1 5:5']);
    const d = result.diagnostics[0]!;
    expect(d.message).toBe('Unexpected include cycle `notes.a` → `notes.b` → `notes.c` → `notes.a`, expected instructions that do not include themselves');
    expect(d.related).toEqual([
      { file: '/pkg/notes/b.md', line: 5, column: 5, message: '`notes.b` includes `notes.c` here' },
      { file: '/pkg/notes/c.md', line: 6, column: 4, message: '`notes.c` includes `notes.a` here' },
    ]);
  });

  it('refuses a source that includes itself', () => {
    const d = only(resolve([instructions('notes.a', 'A {{a}}')]));
    expect(summary([d])).toEqual(['a.md BP2203 TPL-1 5:5']);
    expect(d.message).toContain('`notes.a` → `notes.a`');
  });
});

describe('TPL-2: `[[name]]` keeps a resolved dependency address', () => {
  it('records the resolved address, included ones too, and keeps the text as written', () => {
    const result = resolve([
      instructions('notes.guide'),
      instructions('notes.more', 'See [[ guide ]].'),
      model('notes.answer', '', 'Read [[notes.guide]]. {{more}}\n'),
    ]);
    expect(result.diagnostics).toEqual([]);
    const answer = routine(result, 'notes.answer');
    expect(answer.template).toEqual([{ text: 'Read [[notes.guide]]. See [[ guide ]].\n' }]);
    expect(answer.dependencies).toEqual([{ kind: 'source', name: 'notes.guide' }]);
    expect(routine(result, 'notes.more').dependencies).toEqual([{ kind: 'source', name: 'notes.guide' }]);
  });

  it('refuses an unknown name and brackets holding no name', () => {
    const result = resolve([model('notes.answer', '', 'Read [[notes.gide]] and [[1, 2]].\n')]);
    expect(summary(result.diagnostics)).toEqual(['answer.md BP2210 TPL-2 8:8', 'answer.md BP2211 TPL-2 8:25']);
    expect(result.diagnostics[1]!.hint).toBe('to write `[[` literally, put a backslash before it: `\\[[`');
  });
});

describe('TPL-3: runtime templates select singular paths from the offered roots', () => {
  const body = (line: string): PackageResolution => resolve([model('notes.answer', INPUT_Q, `${line}\n`)]);

  it('accepts every root in a model body', () => {
    const result = body(
      '{{ $.input.q }} {{$.input}} {{ $.parent.parent.input.goal }} {{ $.parent.calls[0].output }} {{ $.calls[-1] }} {{ $.calls[0].status }} ' +
        "{{ $.session.thread }} {{ $.session.state['my-plan'].value }} {{ $.runtime.summary }} {{ $.user }}",
    );
    expect(result.diagnostics).toEqual([]);
  });

  it.each([
    ['{{ $.output.text }}', 'answer.md BP2220 TPL-3 17:4', 'there is no own `$.output`'],
    ['{{ $.inputs.q }}', 'answer.md BP2220 TPL-3 17:4', 'did you mean `$.input`?'],
    ['{{ $ }}', 'answer.md BP2220 TPL-3 17:4', undefined],
    ['{{ $.parent }}', 'answer.md BP2220 TPL-3 17:4', undefined],
    ['{{ $.parent.state }}', 'answer.md BP2220 TPL-3 17:4', undefined],
    ['{{ $.calls.first }}', 'answer.md BP2220 TPL-3 17:4', undefined],
    ['{{ $.calls[0].result }}', 'answer.md BP2220 TPL-3 17:4', undefined],
    ['{{ $.session.state.plan }}', 'answer.md BP2220 TPL-3 17:4', undefined],
    ['Use {{ $.input.items[*] }}', 'answer.md BP1501 PATH-1 17:21', undefined],
    ['{{ $.input..q }}', 'answer.md BP1501 PATH-1 17:11', undefined],
  ])('refuses %j', (line, expected, hint) => {
    const d = only(body(line));
    expect(summary([d])).toEqual([expected]);
    if (hint === 'there is no own `$.output`') expect(d.hint).toContain('a routine has no output before it completes');
    else if (hint !== undefined) expect(d.hint).toBe(hint);
  });

  it('warns where a `$.input` template may be missing: not required, or no input at all', () => {
    const optional = body('{{ $.input.extra }}');
    expect(summary(optional.diagnostics)).toEqual(['answer.md BP2221 TPL-3 17:4']);
    expect(optional.diagnostics[0]!.severity).toBe('warning');
    expect(optional.diagnostics[0]!.message).toBe(
      'Unexpected `{{ $.input.extra }}` in `notes.answer`: `extra` is not in `required` of the input schema, expected a value every invocation provides',
    );
    expect(summary(resolve([model('notes.answer', '', '{{ $.input.q }}\n')]).diagnostics)).toEqual(['answer.md BP2221 TPL-3 8:4']);
  });

  it('checks included templates against each including model, reporting in the instructions file', () => {
    const result = resolve([
      instructions('notes.ask', 'Ask about {{ $.input.q }}.'),
      model('notes.strict', INPUT_Q, '{{ask}}\n'),
      model('notes.loose', '', '{{ask}}\n'),
    ]);
    expect(summary(result.diagnostics)).toEqual(['ask.md BP2221 TPL-3 5:14']);
    expect(result.diagnostics[0]!.message).toContain('in `notes.loose`');
  });

  it('warns about templates in instructions no model routine includes, unless exported', () => {
    const lonely = (): RoutineSource => instructions('notes.lonely', 'For {{ $.user.name }}.');
    const result = resolve([lonely()]);
    expect(summary(result.diagnostics)).toEqual(['lonely.md BP2222 TPL-3 5:8']);
    expect(result.diagnostics[0]!.severity).toBe('warning');
    expect(resolve([lonely()], { exports: ['notes.lonely'] }).diagnostics).toEqual([]);
    expect(resolve([lonely(), model('notes.answer', '', '{{lonely}}\n')]).diagnostics).toEqual([]);
  });
});

describe('TPL-4: templates derive reader requirements', () => {
  it.each([
    ['$.input.q', []],
    ['$.parent.input.goal', ['runtime.context.read']],
    ['$.calls[0].output', ['runtime.context.read']],
    ['$.session.thread', ['runtime.session.read']],
    ['$.session.state.plan.version', ['runtime.session.state.read']],
    ['$.runtime.summary', ['runtime.catalog.read']],
    ['$.user.email', ['runtime.user.profile.read']],
  ])('%s', (path, readers) => {
    const result = resolve([model('notes.answer', INPUT_Q, `{{ ${path} }}\n`)]);
    expect(result.diagnostics).toEqual([]);
    expect(routine(result, 'notes.answer').readers).toEqual(readers);
    expect(result.requirements.readers).toEqual(readers);
  });

  it('counts included templates for the model routine', () => {
    const result = resolve([instructions('notes.who', 'For {{ $.user.name }} in {{ $.session.thread }}'), model('notes.answer', '', '{{who}}\n')]);
    expect(routine(result, 'notes.answer').readers).toEqual(['runtime.session.read', 'runtime.user.profile.read']);
  });
});

describe('TPL-5: a backslash before `{{` or `[[` makes it literal; backslash pairs before a marker are literal backslashes', () => {
  // `x` is an instructions source whose whole text is `X`; `$.input.q` is required.
  it.each<[string, string, unknown[]]>([
    ['an include', '{{x}}', [{ text: 'X' }]],
    ['one backslash: a literal include', '\\{{x}}', [{ text: '{{x}}' }]],
    ['two backslashes: a backslash, then the include', '\\\\{{x}}', [{ text: '\\X' }]],
    ['three: a backslash, then a literal include', '\\\\\\{{x}}', [{ text: '\\{{x}}' }]],
    ['four: two backslashes, then the include', '\\\\\\\\{{x}}', [{ text: '\\\\X' }]],
    ['a backslash elsewhere is text', 'a\\b \\n \\}}', [{ text: 'a\\b \\n \\}}' }]],
    ['a literal dependency', '\\[[x]]', [{ text: '[[x]]' }]],
    ['a backslash, then a dependency kept as written', '\\\\[[x]]', [{ text: '\\[[x]]' }]],
    ['a literal runtime template', '\\{{ $.input.q }}', [{ text: '{{ $.input.q }}' }]],
    ['a backslash, then a runtime template', '\\\\{{ $.input.q }}', [{ text: '\\' }, { path: '$.input.q' }]],
    ['each nested opening escaped', '\\{{ \\{{x}} }}', [{ text: '{{ {{x}} }}' }]],
    ['a trailing backslash after an include', '{{x}}\\', [{ text: 'X\\' }]],
  ])('%s: %s', (_, line, template) => {
    const result = resolve([instructions('x', 'X'), model('notes.answer', INPUT_Q, line)]);
    expect(result.diagnostics).toEqual([]);
    expect(routine(result, 'notes.answer').template).toEqual(template);
  });

  it('records a dependency only when its marker is not escaped', () => {
    expect(routine(resolve([instructions('x', 'X'), model('notes.answer', '', '\\[[x]]')]), 'notes.answer').dependencies).toEqual([]);
    expect(routine(resolve([instructions('x', 'X'), model('notes.answer', '', '\\\\[[x]]')]), 'notes.answer').dependencies).toEqual([
      { kind: 'source', name: 'x' },
    ]);
  });

  it('refuses an opening marker without its closing one on the same line, keeping it as text', () => {
    const result = resolve([model('notes.answer', '', 'Use {{ here\nand }} there, [[ too.\n')]);
    expect(summary(result.diagnostics)).toEqual(['answer.md BP2230 TPL-5 8:5', 'answer.md BP2230 TPL-5 9:15']);
    expect(result.diagnostics[0]!.hint).toBe('to write `{{` literally, put a backslash before it: `\\{{`');
    expect(routine(result, 'notes.answer').template).toEqual([{ text: 'Use {{ here\nand }} there, [[ too.\n' }]);
  });

  it('scans in one pass: markers and text in order, spans into the body', () => {
    expect(scanTemplate('a {{ b.c }} [[d]] {{ $.x }} {{ env.E }}')).toEqual([
      { kind: 'text', text: 'a ' },
      { kind: 'include', name: 'b.c', at: { start: 5, end: 8 } },
      { kind: 'text', text: ' ' },
      { kind: 'dependency', name: 'd', raw: '[[d]]', at: { start: 14, end: 15 } },
      { kind: 'text', text: ' ' },
      { kind: 'path', text: '$.x', at: { start: 21, end: 24 } },
      { kind: 'text', text: ' ' },
      { kind: 'env', name: 'E', at: { start: 31, end: 36 } },
    ]);
  });
});

describe('TPL-6: `{{ env.NAME }}` placeholders are kept and recorded', () => {
  it('records the names used, included ones too, and keeps them as env segments', () => {
    const result = resolve([instructions('notes.base', 'Base {{env.REGION}}'), model('notes.answer', '', 'Key {{ env.API_KEY }} {{notes.base}}\n')]);
    expect(result.diagnostics).toEqual([]);
    const answer = routine(result, 'notes.answer');
    expect(answer.template).toEqual([{ text: 'Key ' }, { env: 'API_KEY' }, { text: ' Base ' }, { env: 'REGION' }, { text: '\n' }]);
    expect(answer.env).toEqual(['API_KEY', 'REGION']);
    expect(result.requirements.env).toEqual(['API_KEY', 'REGION']);
  });

  it('refuses a placeholder name that is not letters, digits and `_`', () => {
    const result = resolve([model('notes.answer', '', 'A {{ env.1X }} B {{ env. }} C {{ env.a-b }}\n')]);
    expect(summary(result.diagnostics)).toEqual(['answer.md BP2240 TPL-6 8:6', 'answer.md BP2240 TPL-6 8:21', 'answer.md BP2240 TPL-6 8:34']);
  });
});

describe('TPL-7: code bodies are not templates', () => {
  it('leaves markers in a code body alone and gives code no template', () => {
    const result = resolve([code('notes.count', '', 'export default function () {\n  return "{{ nope }} [[ 1, 2 ]] {{ $.output }}";\n}\n')]);
    expect(result.diagnostics).toEqual([]);
    const count = routine(result, 'notes.count');
    expect(count.template).toBeUndefined();
    expect([count.readers, count.env, count.includes, count.dependencies]).toEqual([[], [], [], []]);
  });
});

describe('requirements (MAN-7): models, sessions (MDL-7, MDL-8), presentation (TOOL-5)', () => {
  it('derives model selections, call readers and runtime.ui.publish', () => {
    const voice = source(
      '/pkg/voice/talk.md',
      'name: voice.talk\ndescription: Talks.\nmodel:\n  select:\n    operation: generation\n    interaction: session\n    session:\n      trigger: voice_activity\n' +
        '    input_modalities:\n      - audio\n    output_modalities:\n      - audio\n' +
        'port:\n  input: true\n  output: true\n  limits:\n    bytes: 1048576\n    messages: 64\n    pending: 8\n' +
        'input:\n  type: object\n  additionalProperties: false\n  required:\n    - audio\n  properties:\n    audio:\n      type: object\n' +
        '      required:\n        - call\n        - milliseconds\n      properties:\n        call:\n          type: string\n        milliseconds:\n          type: integer\n          minimum: 10\n',
      'Talk.\n',
    );
    const pinned = source('/pkg/notes/pinned.md', 'name: notes.pinned\ndescription: Pinned.\nmodel:\n  provider: acme\n  id: acme-1\n', 'Answer.\n');
    const presenting = model(
      'notes.show',
      OUTPUT_PORT + 'tools:\n  - notes.pinned:\n      presentation:\n        when: completed\n        value: $.output.card\n',
    );
    const result = resolve([voice, pinned, presenting]);
    expect(result.diagnostics).toEqual([]);
    expect(result.requirements).toEqual({
      tools: [],
      readers: [],
      models: [
        { routine: 'notes.pinned', provider: 'acme', id: 'acme-1' },
        { routine: 'notes.show', select: { operation: 'generation' } },
        {
          routine: 'voice.talk',
          select: {
            operation: 'generation',
            interaction: 'session',
            session: { trigger: 'voice_activity' },
            input_modalities: ['audio'],
            output_modalities: ['audio'],
          },
        },
      ],
      env: [],
      ui: true,
      calls: ['runtime.call.cancel', 'runtime.call.read', 'runtime.call.send'],
    });
    const bounded = source(
      '/pkg/notes/chat.md',
      'name: notes.chat\ndescription: Chats.\nmodel:\n  select:\n    operation: generation\n    interaction: session\n',
      'Chat.\n',
    );
    expect(resolve([bounded]).requirements.calls).toEqual(['runtime.call.read', 'runtime.call.send']);
  });
});

describe('codes BP21xx and BP22xx', () => {
  it('name a rule and say what they need beyond a single file', () => {
    for (const [code, info] of Object.entries(referenceCodes)) {
      expect(code).toMatch(/^BP2[12]\d\d$/);
      expect(info.needs.length, code).toBeGreaterThan(5);
    }
  });
});

describe('robustness', () => {
  it('never throws on hostile bodies, and refuses includes nested too deep once (TPL-1)', () => {
    const chain = Array.from({ length: 200 }, (_, i) => instructions(`deep.n${i}`, i === 199 ? 'end' : `{{deep.n${i + 1}}}`));
    const result = resolve([
      ...chain,
      model('deep.top', '', '{{deep.n0}}\n' + '\\'.repeat(5000) + '{{'.repeat(3000) + '[['.repeat(3000) + '\n}}'.repeat(3000)),
    ]);
    expect(result.diagnostics.filter((d) => d.code === 'BP2205').map((d) => `${path.basename(d.file)} ${d.line}:${d.column}`)).toEqual(['n127.md 5:3']);
    expect(result.diagnostics.every((d) => d.code === 'BP2230' || d.code === 'BP2205')).toBe(true);
    expect(routine(result, 'deep.n199').template).toEqual([{ text: 'end' }]);
  });
});
