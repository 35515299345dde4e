import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { LineIndex } from '../src/diagnostics/line-index.js';
import { Reporter } from '../src/diagnostics/reporter.js';
import { nodeHost, TrackingHost, type CompilerHost } from '../src/host.js';
import { parseJsonWithPositions } from '../src/json/parse-json.js';
import { captureResources, discoverSources, isInside, readManifest, type ManifestInfo } from '../src/manifest/index.js';
import type { Diagnostic } from '../src/diagnostics/diagnostic.js';
import type { YMap, YScalar, YSeq } from '../src/source/yaml-tree.js';
import { summary } from '../../../test/support/diagnose.js';

const enc = (s: string) => new TextEncoder().encode(s);
const sha = (b: Uint8Array | string) => 'sha256-' + createHash('sha256').update(b).digest('hex');
const FIXTURES = fileURLToPath(new URL('./fixtures/manifest/', import.meta.url));
const SCHEMA = 'https://agent-plugins.org/schemas/1.0.0/plugin.schema.json';

/** Extension text starts on line 6 at column 28; write its inner lines unindented so columns are easy to count. */
const HEAD = `{\n  "$schema": "${SCHEMA}",\n  "name": "example.notebook",\n  "version": "1",\n  "extensions": {\n    "ai.strawberry.berry": `;
const man = (ext: string) => `${HEAD}${ext}\n  }\n}\n`;
const AGENTS = '"agents": {"notebook": {"title": "Notebook", "description": "Notes.", "entry": "converse"}}';
const read = (text: string | Uint8Array, options?: { version?: string }) =>
  readManifest('/pkg/plugin.json', typeof text === 'string' ? enc(text) : text, options);
const diag = (text: string | Uint8Array) => summary(read(text).diagnostics);
const one = (text: string, code: string): Diagnostic => {
  const d = read(text).diagnostics.find((x) => x.code === code);
  expect(d, `${code} in ${JSON.stringify(summary(read(text).diagnostics))}`).toBeDefined();
  return d!;
};

/** `line:column` of the nth occurrence of `needle`: the node a diagnostic must point at. */
function at(text: string, needle: string, nth = 1): string {
  let i = -1;
  for (let k = 0; k < nth; k++) {
    i = text.indexOf(needle, i + 1);
    if (i === -1) throw new Error(`${needle} is not in the text`);
  }
  const before = text.slice(0, i).split('\n');
  return `${before.length}:${before[before.length - 1]!.length + 1}`;
}

function parse(text: string) {
  const reporter = new Reporter('/x.json', new LineIndex(text));
  const tree = parseJsonWithPositions(text, reporter);
  return { tree, diagnostics: reporter.diagnostics, summary: summary(reporter.diagnostics) };
}

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});
/** A package on disk; string values are files, `null` makes a directory. */
function pkg(files: Record<string, string | Uint8Array | null>): string {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'berrypack-manifest-')));
  temps.push(root);
  for (const [rel, content] of Object.entries(files)) {
    const full = path.join(root, rel);
    if (content === null) mkdirSync(full, { recursive: true });
    else {
      mkdirSync(path.dirname(full), { recursive: true });
      writeFileSync(full, content);
    }
  }
  return root;
}
function load(dir: string): ManifestInfo {
  const file = path.join(dir, 'plugin.json');
  const result = readManifest(file, nodeHost.readFile(file));
  expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return result.manifest!;
}
const rel = (root: string, files: string[]) => files.map((f) => path.relative(root, f).split(path.sep).join('/'));

describe('MAN-1 plugin.json: a JSON object with $schema, name and version', () => {
  it('accepts the minimal Berry manifest and keeps standard metadata', () => {
    const r = read(man(`{${AGENTS}}`).replace('"version": "1",', '"version": "1",\n  "description": "Notes.",\n  "__proto__": {"x": 1},'));
    expect(r.diagnostics).toEqual([]);
    const m = r.manifest!;
    expect([m.name, m.version, m.isBerry, m.file, m.dir, m.sourcesDir]).toEqual(['example.notebook', '1', true, '/pkg/plugin.json', '/pkg', '/pkg']);
    expect(Object.keys(m.metadata)).toEqual(['$schema', 'name', 'version', 'description', '__proto__']);
    expect(Object.getOwnPropertyDescriptor(m.metadata, '__proto__')?.value).toEqual({ x: 1 });
    expect(m.agents).toMatchObject([{ id: 'notebook', title: 'Notebook', description: 'Notes.', entry: 'converse' }]);
  });
  it('refuses a value other than an object at its position, and gives no manifest', () => {
    const r = read('\n  ["a"]\n');
    expect(summary(r.diagnostics)).toEqual(['BP2003 MAN-1 2:3']);
    expect(r.manifest).toBeUndefined();
  });
  it('refuses invalid JSON (BP2001) and gives no manifest', () => {
    const text = man(`{${AGENTS},}`);
    const r = read(text);
    expect(summary(r.diagnostics)).toEqual([`BP2001 MAN-1 ${at(text, ',}')}`]);
    expect(r.diagnostics[0]!.hint).toContain('trailing comma');
    expect(r.manifest).toBeUndefined();
  });
  it('refuses a missing $schema at the opening brace, another URL at its value, and accepts the exact URL', () => {
    expect(diag(man(`{${AGENTS}}`).replace(`  "$schema": "${SCHEMA}",\n`, ''))).toEqual(['BP2004 MAN-1 1:1']);
    const other = one(man(`{${AGENTS}}`).replace('1.0.0', '0.9.0'), 'BP2004');
    expect(summary([other])).toEqual(['BP2004 MAN-1 2:14']);
    expect(other.message).toContain(SCHEMA);
    expect(diag(man(`{${AGENTS}}`).replace(`"${SCHEMA}"`, '42'))).toEqual(['BP2004 MAN-1 2:14']);
    expect(diag(man(`{${AGENTS}}`))).toEqual([]);
  });
  it('refuses version 1 as a number with the hint to quote it, and other versions; accepts "1"', () => {
    const n = one(man(`{${AGENTS}}`).replace('"version": "1"', '"version": 1'), 'BP2007');
    expect(summary([n])).toEqual(['BP2007 MAN-1 4:14']);
    expect(n.hint).toBe('quote it: `"version": "1"`');
    expect(diag(man(`{${AGENTS}}`).replace('"version": "1"', '"version": "1.0.0"'))).toEqual(['BP2007 MAN-1 4:14']);
    expect(diag(man(`{${AGENTS}}`).replace('  "version": "1",\n', ''))).toEqual(['BP2007 MAN-1 1:1']);
  });
  it('refuses a missing or non-string name', () => {
    expect(diag(man(`{${AGENTS}}`).replace('  "name": "example.notebook",\n', ''))).toEqual(['BP2005 MAN-1 1:1']);
    expect(diag(man(`{${AGENTS}}`).replace('"example.notebook"', '["x"]'))).toEqual(['BP2005 MAN-1 3:11']);
  });
  it('refuses invalid UTF-8 at the bad byte; a BOM and CRLF give the same positions as LF', () => {
    const bytes = new Uint8Array([...enc('{\n  "name": "a'), 0xff, ...enc('"\n}\n')]);
    const r = read(bytes);
    expect(summary(r.diagnostics)).toEqual(['BP2002 MAN-1 2:13']);
    expect(r.manifest).toBeUndefined();
    const lf = man(`{${AGENTS}}`).replace('"version": "1"', '"version": 1');
    const crlf = read(enc('\uFEFF' + lf.replace(/\n/g, '\r\n')));
    expect(summary(crlf.diagnostics)).toEqual(summary(read(lf).diagnostics));
    expect(crlf.manifest!.text).toBe(lf);
  });
  it('reads a manifest without the Berry extension as non-Berry, without Berry checks', () => {
    const r = read(`{"$schema": "${SCHEMA}", "name": "other.plugin", "version": "1", "agents": 3, "extensions": {"com.example": {"x": 1}}}`);
    expect(r.diagnostics).toEqual([]);
    expect(r.manifest!.isBerry).toBe(false);
    expect(r.manifest!.metadata).toEqual({ $schema: SCHEMA, name: 'other.plugin', version: '1', agents: 3 });
  });
  it('reads the fixture package', () => {
    const m = load(path.join(FIXTURES, 'notebook'));
    expect(m.agents.map((a) => `${a.id}→${a.entry}`)).toEqual(['notebook→converse', 'notebook-lite→converse']);
    expect(m.agents[1]!.welcome).toEqual({ text: 'Hi' });
    expect(m.exports.map((e) => e.name)).toEqual(['patterns.style']);
    expect(m.requires.map((e) => e.name)).toEqual(['notes.compose']);
    expect(m.sourcesDir).toBe(path.join(FIXTURES, 'notebook', 'src'));
    expect(m.metadata).toMatchObject({ description: 'Organize notes.', keywords: ['notes'] });
  });
  it('refuses the invalid-json fixture at its trailing comma', () => {
    const file = path.join(FIXTURES, 'invalid-json', 'plugin.json');
    expect(summary(readManifest(file, nodeHost.readFile(file)).diagnostics)).toEqual(['BP2001 MAN-1 4:17']);
  });
});

describe('NAME-4 plugin name: lowercase letters, digits, hyphens and periods', () => {
  const named = (name: string) => read(man(`{${AGENTS}}`).replace('"example.notebook"', JSON.stringify(name)));
  it.each([
    ['Notebook', 'package names are lowercase; for example `notebook`'],
    ['my_plugin', 'use `-` instead of `_`; for example `my-plugin`'],
    ['@acme/notes', 'plugin names have no npm scope; use a dotted prefix such as `example.notebook`; for example `acme-notes`'],
    ['a..b', 'remove the leading, trailing or doubled `.`'],
    ['.a', 'remove the leading, trailing or doubled `.`'],
    ['a.', 'remove the leading, trailing or doubled `.`'],
    ['', undefined],
    ['a'.repeat(129), undefined],
    ['caf\u00e9', 'use lowercase letters, digits, `-` and `.` only'],
  ])('refuses %j at the value', (name, hint) => {
    const r = named(name);
    expect(summary(r.diagnostics)).toEqual(['BP2006 NAME-4 3:11']);
    expect(r.diagnostics[0]!.hint).toBe(hint);
    expect(r.manifest!.name).toBeUndefined();
  });
  it.each(['example.notebook', 'a-1.b2', '0', 'a'.repeat(128), '-x'])('accepts %j', (name) => {
    const r = named(name);
    expect(r.diagnostics).toEqual([]);
    expect(r.manifest!.name).toBe(name);
  });
});

describe('SRC-2 plugin.json: duplicate keys at any depth', () => {
  it('refuses a duplicate top-level key with related → the first', () => {
    const r = read(man(`{${AGENTS}}`).replace('"version": "1",', '"version": "1",\n  "name": "again",'));
    expect(summary(r.diagnostics)).toEqual(['BP1011 SRC-2 5:3']);
    expect(r.diagnostics[0]!.related).toEqual([{ file: '/pkg/plugin.json', line: 3, column: 3, message: 'first `name` is here' }]);
    expect(r.manifest!.name).toBe('example.notebook');
  });
  it('refuses duplicates nested deep, and keys equal after unescaping', () => {
    const text = man(`{${AGENTS.replace('"entry": "converse"', '"entry": "converse", "entry": "x"')}}`);
    expect(diag(text)).toEqual([`BP1011 SRC-2 ${at(text, '"entry": "x"')}`]);
    const escaped = '{"a": [{"b": {"c": 1, "\\u0063": 2}}]}';
    expect(parse(escaped).summary).toEqual([`BP1011 SRC-2 ${at(escaped, '"\\u0063"')}`]);
  });
  it('accepts equal keys in different objects', () => {
    expect(parse('{"a": {"k": 1}, "b": {"k": 1}, "c": [{"k": 1}, {"k": 2}]}').diagnostics).toEqual([]);
  });
});

describe('MAN-1 JSON parser: strict RFC 8259', () => {
  it.each([
    ['trailing comma in an object', '{"a": 1,}', '1:8', 'JSON allows no trailing comma; remove it'],
    ['trailing comma in an array', '[1, 2,]', '1:6', 'JSON allows no trailing comma; remove it'],
    ['a line comment', '{"a": 1 // note\n}', '1:9', 'JSON has no comments; remove it'],
    ['a block comment', '/* c */ {}', '1:1', 'JSON has no comments; remove it'],
    ['a single-quoted key', "{'a': 1}", '1:2', 'JSON property names are written in double quotes'],
    ['a single-quoted value', '{"a": \'x\'}', '1:7', 'JSON strings are written in double quotes: `"…"`'],
    ['an unquoted key', '{\n  name: 1}', '2:3', 'write `"name"`'],
    ['a raw tab in a string', '{"a": "x\ty"}', '1:9', 'JSON strings cannot hold raw control characters'],
    ['a raw line break in a string', '{"a": "x\ny"}', '1:9', 'a JSON string cannot span lines; close it, or write `\\n` for a line break inside the text'],
    ['an invalid escape', '{"a": "\\x41"}', '1:8', 'write `\\u00XX` for a character code'],
    ['an escaped single quote', '{"a": "\\\'"}', '1:8', 'a single quote needs no escape in JSON'],
    ['a short \\u escape', '{"a": "\\u12"}', '1:8', undefined],
    ['a lone high surrogate', '{"a": "\\ud800x"}', '1:8', 'a high surrogate must be followed by a low one (`\\udc00`–`\\udfff`)'],
    ['a lone low surrogate', '["\\udc00"]', '1:3', 'a low surrogate must follow a high one (`\\ud800`–`\\udbff`)'],
    ['a leading zero', '{"a": 012}', '1:7', 'JSON numbers have no leading zeros; quote the value if the zeros matter'],
    ['a negative leading zero', '[-00]', '1:2', 'JSON numbers have no leading zeros; quote the value if the zeros matter'],
    ['a hexadecimal number', '[0x1F]', '1:2', 'JSON numbers are decimal'],
    ['a leading plus', '[+1]', '1:2', 'JSON numbers have no leading `+`'],
    ['a leading decimal point', '[.5]', '1:2', 'write a `0` before the decimal point'],
    ['a trailing decimal point', '[1.]', '1:4', 'write at least one digit after the decimal point'],
    ['an empty exponent', '[1e]', '1:4', undefined],
    ['NaN', '{"a": NaN}', '1:7', 'JSON has no NaN or Infinity; use a finite number, `null` or a quoted string'],
    ['Infinity', '[Infinity]', '1:2', 'JSON has no NaN or Infinity; use a finite number, `null` or a quoted string'],
    ['-Infinity', '[-Infinity]', '1:2', 'JSON has no NaN or Infinity; use a finite number, `null` or a quoted string'],
    ['True', '[True]', '1:2', 'write `true` in lowercase'],
    ['undefined', '[undefined]', '1:2', 'JSON has no `undefined`; use `null` or leave the property out'],
    ['an unquoted word', '{"a": hello}', '1:7', 'quote it to make it a string: `"hello"`'],
    ['a number beyond the double range', '[1e400]', '1:2', 'quote it if it is an identifier rather than a quantity'],
    ['text after the value', '{"a": 1} x', '1:10', 'a JSON file holds exactly one value'],
    ['an extra closing brace', '{"a": 1}}', '1:9', 'remove the extra `}`'],
    ['two values', '{}\n{}', '2:1', 'a JSON file holds exactly one value'],
    ['an empty file', '', '1:1', 'the file is empty'],
    ['whitespace only', '\n\n', '3:1', 'the file is empty'],
    ['a missing colon', '{"a" 1}', '1:6', undefined],
    ['`=` for a colon', '{"a" = 1}', '1:6', 'JSON separates a property name from its value with `:`'],
    ['a missing comma', '{"a": 1\n "b": 2}', '2:2', 'a `,` is missing before this property'],
    ['a missing comma in an array', '[1 2]', '1:4', 'a `,` is missing before this value'],
    ['an unclosed object', '{"a": [1]', '1:10', undefined],
    ['an unclosed string', '["abc', '1:2', 'the string that starts here is never closed'],
    ['a BOM inside the text', '{"a":\uFEFF1}', '1:6', undefined],
    ['a no-break space', '{"a":\u00a01}', '1:6', undefined],
    ['a value where a key belongs', '{1: 2}', '1:2', undefined],
  ])('refuses %s with the exact position', (_, text, position, hint) => {
    const r = parse(text);
    expect(r.tree).toBeUndefined();
    expect(r.summary).toEqual([`BP2001 MAN-1 ${position}`]);
    expect(r.diagnostics[0]!.message).toMatch(/^Unexpected .*, expected /);
    expect(r.diagnostics[0]!.hint).toBe(hint);
  });
  it('names where an unclosed object opens', () => {
    const r = parse('{\n  "a": {\n    "b": 1\n}');
    expect(r.summary).toEqual(['BP2001 MAN-1 4:2']);
    expect(r.diagnostics[0]!.related).toEqual([{ file: '/x.json', line: 1, column: 1, message: 'the object opens here and is not closed' }]);
  });
  it('reads escapes, unicode and surrogate pairs', () => {
    const r = parse('["\\u00e9\\u0041\\/\\"\\\\\\b\\f\\n\\r\\t", "\\ud83d\\ude00", "😀 é", "\\u0000"]');
    expect(r.diagnostics).toEqual([]);
    expect((r.tree as YSeq).items.map((n) => (n as YScalar).value)).toEqual(['éA/"\\\b\f\n\r\t', '😀', '😀 é', '\u0000']);
  });
  it('reads numbers by the grammar: big, tiny, negative zero, exponents', () => {
    const r = parse('[0, -0, 1E+2, 1e-2, 1.5e308, -1.5e308, 5e-324, 1e-400, 12345678901234567890, 0.1]');
    expect(r.diagnostics).toEqual([]);
    const values = (r.tree as YSeq).items.map((n) => (n as YScalar).value);
    // eslint-disable-next-line no-loss-of-precision -- the same rounding JSON.parse does is what is tested
    expect(values).toEqual([0, -0, 100, 0.01, 1.5e308, -1.5e308, 5e-324, 0, 12345678901234567890, 0.1]);
    expect(Object.is(values[1], -0)).toBe(true);
  });
  it('builds the located tree: key spans, value spans, styles', () => {
    const text = '{\n  "a": "x",\n  "b": [true, null, 2]\n}';
    const r = parse(text);
    const map = r.tree as YMap;
    expect(map.kind).toBe('map');
    expect(map.span).toEqual({ start: 0, end: text.length });
    expect(map.entries.map((e) => [e.key, e.keySpan, e.value.span, e.span])).toEqual([
      ['a', { start: 4, end: 7 }, { start: 9, end: 12 }, { start: 4, end: 12 }],
      ['b', { start: 16, end: 19 }, { start: 21, end: 36 }, { start: 16, end: 36 }],
    ]);
    expect((map.entries[0]!.value as YScalar).style).toBe('double');
    expect((map.entries[1]!.value as YSeq).items.map((n) => [(n as YScalar).value, (n as YScalar).style, n.span.start])).toEqual([
      [true, 'plain', text.indexOf('true')],
      [null, 'plain', text.indexOf('null')],
      [2, 'plain', text.indexOf('2]')],
    ]);
  });
  it('accepts 1000 levels of nesting and refuses 100,000 at level 1001 without overflowing', () => {
    expect(parse('['.repeat(1000) + ']'.repeat(1000)).diagnostics).toEqual([]);
    const deep = parse('['.repeat(100_000) + ']'.repeat(100_000));
    expect(deep.summary).toEqual(['BP2001 MAN-1 1:1001']);
    expect(deep.diagnostics[0]!.message).toContain('deeper than 1000');
    // The root, `extensions` and the extension hold three levels; the 998th runtime object is the 1001st.
    const text = man(`{${AGENTS}, "runtime": ${'{"a": '.repeat(100_000)}1${'}'.repeat(100_000)}}`);
    expect(summary(read(text).diagnostics)).toEqual([`BP2001 MAN-1 ${at(text, '{"a": ', 998)}`]);
  });
  it('parses a long string and a wide array quickly enough to be iterative', () => {
    const wide = parse('[' + Array.from({ length: 100_000 }, (_, i) => i).join(',') + ']');
    expect((wide.tree as YSeq).items).toHaveLength(100_000);
    expect((parse(JSON.stringify('x'.repeat(1_000_000))).tree as YScalar).value).toHaveLength(1_000_000);
  });
});

describe('MAN-2 the Berry extension holds only Berry declarations', () => {
  it.each([
    ['permissions', 'installation authority is granted when the package is prepared, never declared in the source manifest'],
    ['user_settings', 'user settings belong to an installation, not to the source manifest'],
    ['limits', 'runtime limits belong in runtime.yaml beside the manifest'],
    ['timeout', 'runtime limits belong in runtime.yaml beside the manifest'],
    ['models', 'requirements are derived from the sources; `requires` lists only external tools for composition'],
    ['agent', 'did you mean `agents`?'],
    ['description', 'belongs at the top level of plugin.json, beside `name`'],
    ['zzz', undefined],
  ])('refuses `%s` at its key with a specific hint', (key, hint) => {
    const d = one(man(`{${AGENTS},\n"${key}": {}}`), 'BP2011');
    expect(summary([d])).toEqual(['BP2011 MAN-2 7:1']);
    expect(d.hint).toBe(hint);
  });
  it('accepts every declared field', () => {
    const ext = `{${AGENTS}, "exports": [], "sources": ".", "imports": [], "resources": [], "interfaces": [{"kind": "view"}], "requires": [], "runtime": {"entry": "serve"}}`;
    const r = read(man(ext));
    expect(r.diagnostics).toEqual([]);
    expect(r.manifest!.interfaces).toEqual([{ kind: 'view' }]);
    expect(r.manifest!.runtime).toEqual({ entry: 'serve' });
  });
  it('refuses an extension or extensions that is not an object', () => {
    expect(diag(man('[]'))).toEqual(['BP2010 MAN-2 6:28']);
    expect(read(man('[]')).manifest!.isBerry).toBe(true);
    const text = `{"$schema": "${SCHEMA}", "name": "a", "version": "1", "extensions": []}`;
    expect(diag(text)).toEqual([`BP2010 MAN-2 ${at(text, '[]')}`]);
  });
  it('refuses interfaces that are not objects and a runtime that is not an object', () => {
    expect(diag(man(`{${AGENTS},\n"interfaces": {}}`))).toEqual(['BP2012 MAN-2 7:15']);
    expect(diag(man(`{${AGENTS},\n"interfaces": [{}, "x"]}`))).toEqual(['BP2012 MAN-2 7:20']);
    expect(diag(man(`{${AGENTS},\n"runtime": "node server.js"}`))).toEqual(['BP2012 MAN-2 7:12']);
  });
  it('warns about Berry fields at the top level of a Berry manifest', () => {
    const r = read(man(`{${AGENTS}}`).replace('"version": "1",', '"version": "1",\n  "agents": {},'));
    expect(summary(r.diagnostics)).toEqual(['BP2013 MAN-2 5:3']);
    expect(r.diagnostics[0]!.severity).toBe('warning');
  });
});

describe('MAN-3 agents and exports', () => {
  it('accepts several agents sharing an entry, with welcome, icons and presentation as data', () => {
    const ext = `{"agents": {\n"a": {"title": "A", "description": "Da.", "entry": "converse", "welcome": {"text": "Hi"}, "icons": [{"src": "i.png"}], "presentation": {"x": 1}},\n"b": {"title": "B", "description": "Db.", "entry": "converse"}}}`;
    const text = man(ext);
    const r = read(text);
    expect(r.diagnostics).toEqual([]);
    expect(r.manifest!.agents).toEqual([
      {
        id: 'a',
        idSpan: expect.any(Object),
        title: 'A',
        description: 'Da.',
        entry: 'converse',
        entrySpan: expect.any(Object),
        welcome: { text: 'Hi' },
        icons: [{ src: 'i.png' }],
        presentation: { x: 1 },
      },
      { id: 'b', idSpan: expect.any(Object), title: 'B', description: 'Db.', entry: 'converse', entrySpan: expect.any(Object) },
    ]);
    const pos = (offset: number) => Object.values(r.manifest!.lines.position(offset)).join(':');
    expect(pos(r.manifest!.agents[1]!.idSpan.start)).toBe('8:1');
    expect(pos(r.manifest!.agents[1]!.entrySpan.start)).toBe(at(text, '"converse"', 2));
  });
  it('refuses agents that is not an object', () => {
    expect(diag(man('{\n"agents": ["converse"]}'))).toEqual(['BP2020 MAN-3 7:11']);
  });
  it('refuses an agent without entry (at its id), an empty title, an unknown field and a non-object agent', () => {
    expect(diag(man('{"agents": {\n"a": {"title": "A", "description": "D."}}}'))).toEqual(['BP2020 MAN-3 7:1']);
    expect(diag(man('{"agents": {\n"a": {"title": " ", "description": "D.", "entry": "e"}}}'))).toEqual(['BP2020 MAN-3 7:16']);
    const text = man('{"agents": {\n"a": {"title": "A", "description": "D.", "entry": "e", "model": {}}}}');
    const unknown = one(text, 'BP2020');
    expect(summary([unknown])).toEqual([`BP2020 MAN-3 ${at(text, '"model"')}`]);
    expect(unknown.hint).toBe("model settings belong in the entry routine's frontmatter");
    expect(diag(man('{"agents": {\n"a": "converse"}}'))).toEqual(['BP2020 MAN-3 7:6']);
  });
  it('refuses an invalid agent id (NAME-1) and an invalid entry name', () => {
    expect(diag(man('{"agents": {\n"my agent": {"title": "A", "description": "D.", "entry": "e"}}}'))).toEqual(['BP1100 NAME-1 7:1']);
    const bad = man('{"agents": {\n"a": {"title": "A", "description": "D.", "entry": "notes..x"}}}');
    expect(diag(bad)).toEqual([`BP1100 NAME-1 ${at(bad, '"notes..x"')}`]);
    const number = man('{"agents": {\n"a": {"title": "A", "description": "D.", "entry": 3}}}');
    expect(diag(number)).toEqual([`BP2020 MAN-3 ${at(number, '3}')}`]);
  });
  it('accepts a library with exports only; refuses non-lists, non-names and repeats', () => {
    expect(diag(man('{"exports": ["notes.style", "notes.compose"]}'))).toEqual([]);
    expect(diag(man('{\n"exports": "notes.style"}'))).toEqual(['BP2021 MAN-3 7:12']);
    expect(one(man('{\n"exports": "notes.style"}'), 'BP2021').hint).toBe('write `["notes.style"]`');
    expect(diag(man('{\n"exports": ["a", 1]}'))).toEqual(['BP2021 MAN-3 7:18']);
    expect(diag(man('{\n"exports": ["a", "env.x"]}'))).toEqual(['BP1101 NAME-2 7:18']);
    const repeat = one(man('{\n"exports": ["a", "b", "a"]}'), 'BP2021');
    expect(summary([repeat])).toEqual(['BP2021 MAN-3 7:23']);
    expect(repeat.related).toEqual([{ file: '/pkg/plugin.json', line: 7, column: 13, message: '`a` is first listed here' }]);
  });
  it('warns when the package declares neither agents nor exports (also `{}` and `[]`)', () => {
    for (const ext of ['{}', '{"sources": "."}', '{"agents": {}, "exports": []}']) {
      const r = read(man(ext));
      expect(summary(r.diagnostics)).toEqual(['BP2022 MAN-3 6:28']);
      expect(r.diagnostics[0]!.severity).toBe('warning');
    }
  });
});

describe('MAN-4 sources and discovery', () => {
  it.each([
    ['"/abs/src"', 'Unexpected absolute path'],
    ['"C:/src"', 'Unexpected absolute path'],
    ['"../src"', 'leaving the package'],
    ['"src/../../x"', 'leaving the package'],
    ['"src\\\\routines"', 'expected `/` as the separator'],
    ['3', 'expected a string'],
    ['""', 'Unexpected empty path'],
  ])('refuses sources %s at its value', (value, message) => {
    const d = one(man(`{${AGENTS},\n"sources": ${value}}`), 'BP2030');
    expect(summary([d])).toEqual(['BP2030 MAN-4 7:12']);
    expect(d.message).toContain(message);
  });
  it('gives the hint to use `/` for a Windows separator', () => {
    expect(one(man(`{${AGENTS},\n"sources": "src\\\\routines"}`), 'BP2030').hint).toContain('write `src/routines`');
  });
  it('accepts `./src/` and `.` and resolves them', () => {
    expect(read(man(`{${AGENTS}, "sources": "./src/"}`)).manifest!.sourcesDir).toBe(path.join('/pkg', 'src'));
    expect(read(man(`{${AGENTS}, "sources": "."}`)).manifest!.sourcesDir).toBe('/pkg');
    expect(read(man(`{${AGENTS}, "sources": "a/./b/../c"}`)).manifest!.sourcesDir).toBe(path.join('/pkg', 'a', 'c'));
  });
  it('discovers the fixture: every .md below sources, skipping dot-directories and nested packages', () => {
    const dir = path.join(FIXTURES, 'notebook');
    const host = new TrackingHost();
    const found = discoverSources(load(dir), host);
    expect(found.diagnostics).toEqual([]);
    expect(rel(dir, found.sources)).toEqual(['src/README.md', 'src/converse.md', 'src/patterns/style.md']);
    expect(rel(dir, found.directories)).toEqual(['src', 'src/patterns']);
    expect(host.directories).toEqual(new Set(found.directories));
    expect(host.files.has(path.join(dir, 'src', 'patterns', 'plugin.json'))).toBe(true);
  });
  it('skips node_modules, dot-directories, dot-files, nested packages and non-.md files; walks the manifest dir by default', () => {
    const root = pkg({
      'plugin.json': man(`{${AGENTS}}`),
      'a.md': '---\n',
      'b/c.md': '---\n',
      'b/d.MD': '',
      'b/e.md.txt': '',
      'node_modules/x/x.md': '',
      'b/node_modules/y.md': '',
      '.git/z.md': '',
      '.hidden.md': '',
      'nested/plugin.json': '{}',
      'nested/n.md': '',
      'nested-dir-only/plugin.json/readme.md': '',
      empty: null,
    });
    const found = discoverSources(load(root), nodeHost);
    expect(found.diagnostics).toEqual([]);
    expect(rel(root, found.sources)).toEqual(['a.md', 'b/c.md', 'nested-dir-only/plugin.json/readme.md']);
    expect(rel(root, found.directories)).toEqual(['', 'b', 'empty', 'nested-dir-only', 'nested-dir-only/plugin.json']);
  });
  it('is deterministic regardless of readdir order', () => {
    const root = pkg({ 'plugin.json': man(`{${AGENTS}}`), 'z.md': '', 'a/b.md': '', 'a-b.md': '', 'A.md': '', 'm/n/o.md': '' });
    const reversed: CompilerHost = { ...nodeHost, readdir: (p) => nodeHost.readdir(p).reverse() };
    const a = discoverSources(load(root), nodeHost);
    const b = discoverSources(load(root), reversed);
    expect(b).toEqual(a);
    expect(rel(root, a.sources)).toEqual(['A.md', 'a-b.md', 'a/b.md', 'm/n/o.md', 'z.md']);
  });
  it('refuses a missing sources directory and a file at the manifest `sources`', () => {
    const root = pkg({ 'plugin.json': man(`{${AGENTS},\n"sources": "routines"}`), 'file.md': '' });
    expect(summary(discoverSources(load(root), nodeHost).diagnostics)).toEqual(['BP2031 MAN-4 7:12']);
    const file = pkg({ 'plugin.json': man(`{${AGENTS},\n"sources": "file.md"}`), 'file.md': '' });
    expect(discoverSources(load(file), nodeHost).diagnostics[0]!.message).toContain('Unexpected file `file.md`');
  });
  it('refuses symbolic links that leave the package, at the link; follows links inside it', () => {
    const outside = pkg({ 'secret.md': '---\n', 'dir/x.md': '' });
    const root = pkg({ 'plugin.json': man(`{${AGENTS},\n"sources": "src"}`), 'src/a.md': '', 'shared/s.md': '', 'shared/deep/t.md': '' });
    symlinkSync(path.join(outside, 'secret.md'), path.join(root, 'src', 'leak.md'));
    symlinkSync(path.join(outside, 'dir'), path.join(root, 'src', 'leakdir'));
    symlinkSync(path.join(outside, 'secret.md'), path.join(root, 'src', 'leak.txt'));
    symlinkSync(path.join(root, 'shared'), path.join(root, 'src', 'shared'));
    const found = discoverSources(load(root), nodeHost);
    expect(found.diagnostics.map((d) => `${d.code} ${d.rule} ${path.relative(root, d.file)} ${d.line}:${d.column}`)).toEqual([
      `BP2032 MAN-4 ${path.join('src', 'leak.md')} 1:1`,
      `BP2032 MAN-4 ${path.join('src', 'leakdir')} 1:1`,
    ]);
    expect(rel(root, found.sources)).toEqual(['src/a.md', 'src/shared/deep/t.md', 'src/shared/s.md']);
  });
  it('refuses a sources directory reached through a link that leaves the package', () => {
    const outside = pkg({ 'x.md': '' });
    const root = pkg({ 'plugin.json': man(`{${AGENTS},\n"sources": "src"}`) });
    symlinkSync(outside, path.join(root, 'src'));
    expect(summary(discoverSources(load(root), nodeHost).diagnostics)).toEqual(['BP2032 MAN-4 7:12']);
  });
  it('terminates on symbolic link loops and does not list a file twice', () => {
    const root = pkg({ 'plugin.json': man(`{${AGENTS}}`), 'a/x.md': '', 'b/y.md': '' });
    symlinkSync('..', path.join(root, 'a', 'up'));
    symlinkSync('../a', path.join(root, 'b', 'to-a'));
    symlinkSync('../b', path.join(root, 'a', 'to-b'));
    symlinkSync('self.md', path.join(root, 'self.md'));
    symlinkSync('x.md', path.join(root, 'a', 'alias.md'));
    const found = discoverSources(load(root), nodeHost);
    expect(rel(root, found.sources)).toEqual(['a/x.md', 'b/y.md']);
    expect(summary(found.diagnostics)).toEqual(['BP9001 SRC-10 1:1']);
    expect(found.diagnostics[0]!.file).toBe(path.join(root, 'self.md'));
  });
  it('bounds the walk and reports it at `sources`', () => {
    const root = pkg({ 'plugin.json': man(`{${AGENTS},\n"sources": "."}`), 'a.md': '', 'b.md': '', 'c/d.md': '', 'c/e.md': '' });
    const found = discoverSources(load(root), nodeHost, { maxEntries: 4 });
    expect(summary(found.diagnostics)).toEqual(['BP2033 MAN-4 7:12']);
    expect(found.sources).toEqual([]);
    expect(discoverSources(load(root), nodeHost, { maxEntries: 7 }).diagnostics).toEqual([]);
  });
});

describe('MAN-5 imports', () => {
  const imp = (items: string) => man(`{${AGENTS},\n"imports": [${items}]}`);
  it('accepts manifest, bundle and root imports, with and without export', () => {
    const text = imp(
      `{"name": "lib", "manifest": "../lib/plugin.json", "export": "notes.compose"}, {"name": "b", "bundle": "vendor/b.1234.berry.json"}, {"name": "snap", "root": "sha256-${'ab'.repeat(32)}"}`,
    );
    const r = read(text);
    expect(r.diagnostics).toEqual([]);
    expect(r.manifest!.imports.map((i) => [i.name, i.kind, i.target, i.export?.name])).toEqual([
      ['lib', 'manifest', path.join('/', 'lib', 'plugin.json'), 'notes.compose'],
      ['b', 'bundle', path.join('/pkg', 'vendor', 'b.1234.berry.json'), undefined],
      ['snap', 'root', `sha256-${'ab'.repeat(32)}`, undefined],
    ]);
    expect(Object.values(r.manifest!.lines.position(r.manifest!.imports[0]!.targetSpan.start)).join(':')).toBe(at(text, '"../lib/plugin.json"'));
  });
  it('refuses imports that is not a list and an import that is not an object', () => {
    expect(diag(man(`{${AGENTS},\n"imports": {}}`))).toEqual(['BP2040 MAN-5 7:12']);
    expect(diag(imp('"lib"'))).toEqual(['BP2040 MAN-5 7:13']);
  });
  it('refuses an import without a name, and an unknown field with a hint', () => {
    expect(diag(imp('{"manifest": "../lib/plugin.json"}'))).toEqual(['BP2040 MAN-5 7:13']);
    const url = one(imp('{"name": "lib", "url": "https://x", "root": "sha256-' + '0'.repeat(64) + '"}'), 'BP2040');
    expect(summary([url])).toEqual(['BP2040 MAN-5 7:29']);
    expect(url.hint).toBe('imports never download: name a local `manifest`, `bundle` or retained `root`');
  });
  it('refuses both and neither of manifest, bundle and root', () => {
    const both = one(imp('{"name": "lib", "manifest": "../lib/plugin.json", "bundle": "b.berry.json"}'), 'BP2041');
    expect(summary([both])).toEqual(['BP2041 MAN-5 7:63']);
    expect(both.related).toEqual([{ file: '/pkg/plugin.json', line: 7, column: 29, message: '`manifest` is here' }]);
    expect(diag(imp('{"name": "lib", "export": "x"}'))).toEqual(['BP2041 MAN-5 7:13']);
  });
  it.each([
    ['"manifest": "/abs/plugin.json"', 'Unexpected absolute path', undefined],
    ['"manifest": "..\\\\lib\\\\plugin.json"', 'expected `/` as the separator', 'write `../lib/plugin.json`; paths in plugin.json use `/` on every system'],
    ['"manifest": "../lib"', 'expected a path to a `plugin.json` file', 'write `../lib/plugin.json`'],
    ['"manifest": "https://example.com/plugin.json"', 'Unexpected URL', undefined],
    ['"bundle": "C:/b.berry.json"', 'Unexpected absolute path', undefined],
    ['"root": "sha256-abc"', 'expected `sha256-` followed by 64 lowercase hexadecimal digits', undefined],
    ['"root": "SHA256-' + 'AB'.repeat(32) + '"', 'expected `sha256-`', `write it in lowercase: \`sha256-${'ab'.repeat(32)}\``],
  ])('refuses %s at the value', (field, message, hint) => {
    const text = imp(`{"name": "lib", ${field}}`);
    const d = one(text, 'BP2042');
    expect(summary([d])).toEqual([`BP2042 MAN-5 ${at(text, field.slice(field.indexOf(': ') + 2))}`]);
    expect(d.message).toContain(message);
    if (hint !== undefined) expect(d.hint).toBe(hint);
  });
  it('refuses two imports with one name, with related → the first', () => {
    const d = one(imp(`{"name": "lib", "manifest": "../a/plugin.json"},\n{"name": "lib", "manifest": "../b/plugin.json"}`), 'BP2043');
    expect(summary([d])).toEqual(['BP2043 MAN-5 8:10']);
    expect(d.related?.[0]).toMatchObject({ line: 7, column: 22 });
  });
  it('refuses an invalid import name and export name (NAME-1)', () => {
    expect(diag(imp('{"name": "a b", "manifest": "../a/plugin.json"}'))).toEqual(['BP1100 NAME-1 7:22']);
    const text = imp('{"name": "a", "manifest": "../a/plugin.json", "export": ".x"}');
    expect(diag(text)).toEqual([`BP1100 NAME-1 ${at(text, '".x"')}`]);
  });
});

describe('MAN-6 resources', () => {
  const res = (items: string) => man(`{${AGENTS},\n"resources": [${items}]}`);
  it('refuses resources that is not a list, and an item that is not an object', () => {
    expect(diag(man(`{${AGENTS},\n"resources": {}}`))).toEqual(['BP2050 MAN-6 7:14']);
    expect(diag(res('"a.png"'))).toEqual(['BP2050 MAN-6 7:15']);
  });
  it('refuses a missing field, an empty uri, a media type that is not type/subtype, and unknown fields', () => {
    expect(diag(res('{"uri": "u", "path": "a.png"}'))).toEqual(['BP2050 MAN-6 7:15']);
    expect(diag(res('{"uri": "", "mimeType": "image/png", "path": "a.png"}'))).toEqual(['BP2050 MAN-6 7:23']);
    const text = res('{"uri": "u", "mimeType": "png", "path": "a.png"}');
    const png = one(text, 'BP2050');
    expect(summary([png])).toEqual([`BP2050 MAN-6 ${at(text, '"png"')}`]);
    expect(png.hint).toBe('write the full media type, e.g. `image/png` rather than `png`');
    const mime = one(res('{"uri": "u", "mime_type": "image/png", "mimeType": "image/png", "path": "a.png"}'), 'BP2050');
    expect(summary([mime])).toEqual(['BP2050 MAN-6 7:28']);
    expect(mime.hint).toBe('write `mimeType` in camel case');
  });
  it('accepts media types with parameters', () => {
    expect(
      diag(res('{"uri": "u", "mimeType": "text/html; charset=utf-8", "path": "a.html"}, {"uri": "v", "mimeType": "application/vnd.api+json", "path": "b"}')),
    ).toEqual([]);
  });
  it.each([
    ['"/etc/passwd"', 'Unexpected absolute path'],
    ['"../x.png"', 'leaving the package'],
    ['"assets\\\\x.png"', 'expected `/` as the separator'],
  ])('refuses path %s at its value', (value, message) => {
    const text = res(`{"uri": "u", "mimeType": "image/png", "path": ${value}}`);
    const d = one(text, 'BP2051');
    expect(summary([d])).toEqual([`BP2051 MAN-6 ${at(text, value)}`]);
    expect(d.message).toContain(message);
  });
  it('refuses two resources with one uri, with related → the first', () => {
    const d = one(res('{"uri": "ui://a", "mimeType": "text/plain", "path": "a"},\n{"uri": "ui://a", "mimeType": "text/plain", "path": "b"}'), 'BP2053');
    expect(summary([d])).toEqual(['BP2053 MAN-6 8:9']);
    expect(d.related).toEqual([{ file: '/pkg/plugin.json', line: 7, column: 23, message: '`ui://a` is first declared here' }]);
  });
  it('captures exact bytes (a BOM and CRLF kept), digest and size, in declaration order', () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...enc('a\r\nb\r\n'), 0x00, 0xff]);
    const root = pkg({
      'plugin.json': res(
        '{"uri": "ui://z", "mimeType": "text/plain", "path": "./assets/z.txt"}, {"uri": "ui://a", "mimeType": "application/octet-stream", "path": "assets//a.bin"}',
      ),
      'assets/z.txt': 'z',
      'assets/a.bin': bytes,
    });
    const host = new TrackingHost();
    const captured = captureResources(load(root), host);
    expect(captured.diagnostics).toEqual([]);
    expect(captured.resources.map(({ bytes: _, ...r }) => r)).toEqual([
      { uri: 'ui://z', path: 'assets/z.txt', mediaType: 'text/plain', digest: sha('z'), size: 1 },
      { uri: 'ui://a', path: 'assets/a.bin', mediaType: 'application/octet-stream', digest: sha(bytes), size: bytes.length },
    ]);
    expect([...captured.resources[1]!.bytes]).toEqual([...bytes]);
    expect(captured.files).toEqual([path.join(root, 'assets', 'z.txt'), path.join(root, 'assets', 'a.bin')]);
    expect(host.files.has(path.join(root, 'assets', 'a.bin'))).toBe(true);
  });
  it('refuses a missing file and a directory at the path; captures the fixture resource', () => {
    const text = res('{"uri": "u", "mimeType": "text/plain", "path": "nope.txt"},\n{"uri": "v", "mimeType": "text/plain", "path": "dir"}');
    const root = pkg({ 'plugin.json': text, 'dir/x': '' });
    const captured = captureResources(load(root), nodeHost);
    expect(summary(captured.diagnostics)).toEqual([`BP2052 MAN-6 ${at(text, '"nope.txt"')}`, `BP2052 MAN-6 ${at(text, '"dir"')}`]);
    expect(captured.resources).toEqual([]);
    const fixture = captureResources(load(path.join(FIXTURES, 'notebook')), nodeHost);
    expect(fixture.resources.map((r) => [r.uri, r.path, r.size])).toEqual([['ui://notebook/logo', 'assets/logo.txt', 5]]);
  });
  it('refuses a resource that leaves the package through a symbolic link', () => {
    const outside = pkg({ 'secret.txt': 's' });
    const text = res('{"uri": "u", "mimeType": "text/plain", "path": "link.txt"}');
    const root = pkg({ 'plugin.json': text });
    symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'link.txt'));
    const captured = captureResources(load(root), nodeHost);
    expect(summary(captured.diagnostics)).toEqual([`BP2051 MAN-6 ${at(text, '"link.txt"')}`]);
    expect(captured.resources).toEqual([]);
  });
});

describe('MAN-7 requires lists external tools only', () => {
  it('accepts a list of distinct tool names', () => {
    expect(read(man(`{${AGENTS}, "requires": ["notes.compose", "web.search"]}`)).manifest!.requires.map((r) => r.name)).toEqual([
      'notes.compose',
      'web.search',
    ]);
  });
  it('refuses an object of models or readers with the hint that requirements are derived', () => {
    const d = one(man(`{${AGENTS},\n"requires": {"models": ["x"], "readers": []}}`), 'BP2060');
    expect(summary([d])).toEqual(['BP2060 MAN-7 7:13']);
    expect(d.hint).toContain('derived from the sources');
  });
  it('refuses a string, a repeated name with related, and an invalid name', () => {
    expect(diag(man(`{${AGENTS},\n"requires": "notes.compose"}`))).toEqual(['BP2060 MAN-7 7:13']);
    const d = one(man(`{${AGENTS},\n"requires": ["a", "a"]}`), 'BP2060');
    expect(summary([d])).toEqual(['BP2060 MAN-7 7:19']);
    expect(d.related?.[0]).toMatchObject({ line: 7, column: 14 });
    expect(diag(man(`{${AGENTS},\n"requires": ["a/b"]}`))).toEqual(['BP1100 NAME-1 7:14']);
  });
});

describe('MAN-8 the version is the sha256 of the plugin.json bytes', () => {
  const text = man(`{${AGENTS}}`);
  it('accepts the matching version and records the digest', () => {
    const r = read(text, { version: sha(text) });
    expect(r.diagnostics).toEqual([]);
    expect(r.manifest!.digest).toBe(sha(text));
  });
  it('refuses a mismatch at 1:1 and still reads the manifest', () => {
    const r = read(text, { version: sha('other') });
    expect(summary(r.diagnostics)).toEqual(['BP2080 MAN-8 1:1']);
    expect(r.diagnostics[0]!.message).toBe(`Unexpected plugin.json version ${sha(text)}, expected ${sha('other')}`);
    expect(summary(read(text, { version: 'v1' }).diagnostics)).toEqual(['BP2080 MAN-8 1:1']);
  });
  it('hashes the raw bytes: a CRLF copy has another version but reads the same', () => {
    const crlf = enc(text.replace(/\n/g, '\r\n'));
    const r = read(crlf, { version: sha(crlf) });
    expect(r.diagnostics).toEqual([]);
    expect(r.manifest!.digest).not.toBe(sha(text));
    expect(summary(read(crlf, { version: sha(text) }).diagnostics)).toEqual(['BP2080 MAN-8 1:1']);
  });
});

describe('isInside', () => {
  it.each([
    ['/a/b', '/a/b', true],
    ['/a/b', '/a/b/c/d', true],
    ['/a/b', '/a/b/../b/c', true],
    ['/a/b', '/a/bc', false],
    ['/a/b', '/a', false],
    ['/a/b', '/a/b/../c', false],
    ['/a/b', '/a/b/..foo', true],
  ])('%s contains %s: %s', (root, target, inside) => {
    expect(isInside(root, target)).toBe(inside);
  });
});
