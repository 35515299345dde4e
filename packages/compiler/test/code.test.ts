import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import {
  accountCodeSize,
  analyzeCodeRoutine,
  CodeCache,
  sizeExcessMessage,
  type CodeContext,
  type CodeRoutineInput,
  type CodeRoutineResult,
} from '../src/code/index.js';
import { codeCodes } from '../src/diagnostics/codes/code.js';
import type { Diagnostic } from '../src/diagnostics/diagnostic.js';
import { LineIndex } from '../src/diagnostics/line-index.js';
import { nodeHost, type CompilerHost } from '../src/host.js';
import { parseSource } from '../src/source/parse-source.js';
import { parse } from 'acorn';
import { childNodes, isFunction, type Node } from '../src/code/ast.js';
import { PARSE_OPTIONS } from '../src/code/parse-code.js';
import { analyzeScopes } from '../src/code/scope.js';
import { entry } from '../src/source/yaml-tree.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/code/', import.meta.url));
const HEAD = '---\nname: notes.count\ndescription: Counts notes.\nlanguage: javascript\n---\n';
/** The closing `---` of HEAD: body line L is `.md` line FENCE + L. */
const FENCE = 5;
const VIRTUAL_ROOT = '/virtual/pkg';

interface RoutineOptions {
  file?: string;
  root?: string;
  tools?: string[];
  catalog?: boolean;
}

/** A CodeRoutineInput from a whole `.md` text, read the way the package compiler reads it. */
function routineInput(md: Uint8Array | string, file: string, root: string, options: RoutineOptions = {}): CodeRoutineInput {
  const parsed = parseSource(file, md, { requireSource: true });
  if (parsed.status !== 'source') throw new Error(`not a source: ${JSON.stringify(parsed.diagnostics)}`);
  const { source } = parsed;
  const fm = source.frontmatter;
  const toolsNode = fm ? entry(fm, 'tools')?.value : undefined;
  const declared: string[] = [];
  if (toolsNode?.kind === 'seq') {
    for (const item of toolsNode.items) {
      if (item.kind === 'scalar' && typeof item.value === 'string') declared.push(item.value);
      else if (item.kind === 'map' && item.entries[0]) declared.push(item.entries[0].key);
    }
  }
  const catalogNode = fm ? entry(fm, 'catalog')?.value : undefined;
  return {
    file,
    text: source.text,
    lines: source.lines,
    bodyStart: source.bodyStart,
    sourcePath: path.relative(root, file).split(path.sep).join('/'),
    declaredTools: options.tools ?? declared,
    catalog: options.catalog ?? (catalogNode?.kind === 'scalar' && catalogNode.value === true),
  };
}

function analyzeMd(md: string, options: RoutineOptions = {}, ctx: Partial<CodeContext> = {}): CodeRoutineResult {
  const root = options.root ?? VIRTUAL_ROOT;
  const file = options.file ?? path.join(root, 'count.md');
  return analyzeCodeRoutine(routineInput(md, file, root, options), { host: nodeHost, packageRoot: root, ...ctx });
}

/** Analyses a body under HEAD. */
function analyze(body: string, options: RoutineOptions = {}): CodeRoutineResult {
  return analyzeMd(HEAD + body, options);
}

function summary(diagnostics: readonly Diagnostic[]): string[] {
  return diagnostics.map((d) => `${d.code} ${d.rule} ${d.line}:${d.column}`);
}

function codesOf(body: string, options?: RoutineOptions): string[] {
  return analyze(body, options).diagnostics.map((d) => d.code);
}

/** A fixture package: its realpath'd root and a routine inside it. */
function fixture(name: string, routine: string, ctx: Partial<CodeContext> = {}): CodeRoutineResult {
  const root = realpathSync(path.join(FIXTURES, name));
  const file = path.join(root, routine);
  return analyzeCodeRoutine(routineInput(nodeHost.readFile(file), file, root), { host: nodeHost, packageRoot: root, ...ctx });
}

const OK = 'export default function (input) {\n  return input;\n}\n';

describe('CODE-1 parsing as an ECMAScript 2023 module', () => {
  it('refuses a syntax error at its position in the .md file (body line 3 is .md line fence + 3)', () => {
    const r = analyze('// counts\nexport default function (input) {\n  return input +;\n}\n');
    expect(summary(r.diagnostics)).toEqual([`BP3001 CODE-1 ${FENCE + 3}:17`]);
    expect(r.diagnostics[0]!.message).toBe('Unexpected syntax: Unexpected token, expected an ECMAScript 2023 module');
    expect(r.diagnostics[0]!.file).toBe(path.join(VIRTUAL_ROOT, 'count.md'));
  });
  it('accepts ES2023 syntax (class fields, private names, optional chaining, hashbang-free modules)', () => {
    const body =
      'class A { #n = 1; static s = 2; get n() { return this.#n; } has(o) { return #n in o; } }\nexport default (input) => new A().n ?? input?.x?.[0] ?? 0n;\n';
    expect(analyze(body).diagnostics).toEqual([]);
  });
  it('refuses syntax newer than ES2023 (import attributes) and TypeScript, with hints', () => {
    expect(codesOf("import data from './data.js' with { type: 'json' };\nexport default () => data;\n")).toEqual(['BP3001']);
    const ts = analyze('export default function (input: string): number {\n  return input.length;\n}\n');
    expect(summary(ts.diagnostics)).toEqual([`BP3001 CODE-1 ${FENCE + 1}:31`]);
    expect(ts.diagnostics[0]!.hint).toMatch(/TypeScript/);
    // A fenced body is valid JavaScript (tagged template literals) without a default export.
    const fenced = analyze('```js\nexport default () => 1;\n```\n');
    expect(summary(fenced.diagnostics)).toEqual([`BP3010 CODE-2 ${FENCE + 1}:1`]);
    expect(fenced.diagnostics[0]!.hint).toMatch(/code fence/);
    expect(analyze('```js\nconst s = `${`;\n```\n').diagnostics[0]!.hint).toMatch(/code fence/);
  });
  it('refuses a syntax error in a captured module at its position in that module', () => {
    const r = fixture('module-errors', 'count.md');
    const broken = r.diagnostics.filter((d) => d.file.endsWith('broken.js'));
    expect(summary(broken)).toEqual(['BP3001 CODE-1 2:13']);
  });
  it('never throws: garbage, truncated bodies and nesting deeper than the parser allows', () => {
    const valid =
      'import { a } from "./a.js";\nexport default async function run(input, { helper }) {\n  const { x = 1, ...rest } = input;\n  for (const [k, v] of Object.entries(rest)) { label: if (v) break label; }\n  return helper(`${x}`);\n}\n';
    for (let n = 0; n <= valid.length; n += 7) expect(() => analyze(valid.slice(0, n))).not.toThrow();
    for (const body of ['', '\u0000', '}}}', '/*', '`${', 'export default', '\uD800', '#!/usr/bin/env node\nexport default () => 1;\n']) {
      expect(() => analyze(body)).not.toThrow();
    }
    const deep = analyze('export default () => ' + '['.repeat(100_000) + ']'.repeat(100_000) + ';\n');
    expect(summary(deep.diagnostics)[0]).toMatch(/^BP3001 CODE-1 6:/);
    // Deep, but within the parser's reach: the analysis walks with explicit stacks.
    const nested = analyze('export default (input) => ' + '('.repeat(300) + 'input' + ')'.repeat(300) + ' + ' + '['.repeat(300) + ']'.repeat(300) + ';\n');
    expect(nested.diagnostics).toEqual([]);
  });
});

describe('CODE-2 the default export is a function (routine bodies only)', () => {
  it.each([
    ['export default function', OK],
    ['export default async function', 'export default async function run(input, tools) {\n  return input;\n}\n'],
    ['an arrow', 'export default (input) => input;\n'],
    ['an async arrow', 'export default async (i) => i;\n'],
    ['a function expression', 'export default (function (input) { return input; });\n'],
    ['export { f as default } of a function declaration', 'function f(input) { return input; }\nexport { f as default };\n'],
    ['export { f as default } of a const arrow', 'const f = async (input) => input;\nexport { f as default };\n'],
    ["export { f as 'default' }", "const f = function (input) { return input; };\nexport { f as 'default' };\n"],
    ['export default f of a function declaration', 'export default f;\nfunction f(input) { return input; }\n'],
  ])('accepts %s', (_, body) => {
    expect(analyze(body).diagnostics).toEqual([]);
  });
  it.each([
    ['no default export', 'export function count(input) {\n  return 1;\n}\n', `BP3010 CODE-2 ${FENCE + 1}:1`],
    ['an empty body', '', `BP3010 CODE-2 ${FENCE + 1}:1`],
    ['a class', 'export default class Counter {}\n', `BP3011 CODE-2 ${FENCE + 1}:1`],
    ['a class bound to a const', 'const C = class {};\nexport { C as default };\n', `BP3011 CODE-2 ${FENCE + 2}:10`],
    ['a generator', '\nexport default function* (input) {\n  yield input;\n}\n', `BP3012 CODE-2 ${FENCE + 2}:1`],
    ['an async generator', 'export default async function* (input) {}\n', `BP3012 CODE-2 ${FENCE + 1}:1`],
    ['an object', 'export default { run() {} };\n', `BP3013 CODE-2 ${FENCE + 1}:1`],
    ['a number', 'export default 42;\n', `BP3013 CODE-2 ${FENCE + 1}:1`],
    ['a call result', 'const make = () => () => 1;\nexport default make();\n', `BP3013 CODE-2 ${FENCE + 2}:1`],
    ['a let bound to a function', 'let f = () => 1;\nexport { f as default };\n', `BP3013 CODE-2 ${FENCE + 2}:10`],
    ['a const bound to a non-function', 'const f = 1;\nexport default f;\n', `BP3013 CODE-2 ${FENCE + 2}:1`],
  ])('refuses %s', (_, body, expected) => {
    expect(summary(analyze(body).diagnostics)).toEqual([expected]);
  });
  it('refuses a default re-exported or imported from another module: it cannot be verified statically', () => {
    const re = analyze("export { default } from './run.js';\n").diagnostics;
    expect(summary(re.filter((d) => d.rule === 'CODE-2'))).toEqual([`BP3014 CODE-2 ${FENCE + 1}:10`]);
    expect(re.find((d) => d.code === 'BP3014')!.hint).toContain("import run from './run.js'");
    const imported = analyze("import run from './run.js';\nexport default run;\n").diagnostics;
    expect(summary(imported.filter((d) => d.rule === 'CODE-2'))).toEqual([`BP3014 CODE-2 ${FENCE + 2}:1`]);
    expect(imported.find((d) => d.code === 'BP3014')!.related).toEqual([
      { file: path.join(VIRTUAL_ROOT, 'count.md'), line: FENCE + 1, column: 8, message: '`run` is declared here' },
    ]);
  });
  it('refuses a namespace re-exported as the default', () => {
    const d = analyze("export * as default from './lib.js';\n").diagnostics.filter((x) => x.rule === 'CODE-2');
    expect(summary(d)).toEqual([`BP3013 CODE-2 ${FENCE + 1}:1`]);
  });
  it('does not ask captured modules for a default export', () => {
    const r = fixture('chain', 'notes/count.md');
    expect(r.modules.map((m) => m.relPath)).toContain('lib/b.js');
    expect(r.diagnostics).toEqual([]);
  });
});

describe('CODE-3 no top-level await, dynamic import() or import.meta', () => {
  it('refuses top-level await and for await, at the keyword', () => {
    const r = analyze('const x = await Promise.resolve(1);\nfor await (const y of []) {}\nexport default () => x;\n');
    expect(summary(r.diagnostics)).toEqual([`BP3020 CODE-3 ${FENCE + 1}:11`, `BP3020 CODE-3 ${FENCE + 2}:1`]);
  });
  it('accepts await inside async functions, also nested in blocks and class methods', () => {
    const body =
      'class K { async m(p) { return await p; } }\nexport default async (input) => {\n  for await (const x of input.items) { await x; }\n  return await new K().m(1);\n};\n';
    expect(analyze(body).diagnostics).toEqual([]);
  });
  it('refuses import() anywhere and import.meta; accepts new.target', () => {
    const r = analyze("export default async function () {\n  const m = await import('./m.js');\n  return [m, import.meta.url, new.target];\n}\n");
    expect(summary(r.diagnostics)).toEqual([`BP3021 CODE-3 ${FENCE + 2}:19`, `BP3022 CODE-3 ${FENCE + 3}:14`]);
  });
  it('applies to captured modules too, at their own positions', () => {
    const r = fixture('module-errors', 'count.md');
    expect(summary(r.diagnostics.filter((d) => d.file.endsWith('io.js') && d.rule === 'CODE-3'))).toEqual(['BP3020 CODE-3 1:16']);
  });
});

describe('CODE-4 static imports resolve to .js/.mjs files inside the package', () => {
  it.each([
    ['an npm package', "import _ from 'lodash';", 'BP3030'],
    ['a scoped npm package', "import x from '@scope/pkg/x.js';", 'BP3030'],
    ['a Node built-in', "import fs from 'node:fs';", 'BP3030'],
    ['a path without ./', "import x from 'lib/x.js';", 'BP3030'],
    ['an https URL', "import x from 'https://example.com/x.js';", 'BP3031'],
    ['a file URL', "import x from 'file:///srv/x.js';", 'BP3031'],
    ['a data URL', "import x from 'data:text/javascript,export default 1';", 'BP3031'],
    ['an absolute path', "import x from '/srv/x.js';", 'BP3032'],
    ['a missing extension (not guessed)', "import x from './x';", 'BP3033'],
    ['a .json file', "import x from './x.json';", 'BP3033'],
    ['a .cjs file', "import x from './x.cjs';", 'BP3033'],
    ['a directory', "import x from './lib/';", 'BP3033'],
    ['a query', "import x from './x.js?v=1';", 'BP3033'],
    ['a path leaving the package', "import x from '../x.js';", 'BP3034'],
    ['a re-export from a package', "export * from 'lodash';", 'BP3030'],
    ['a named re-export from a URL', "export { x } from 'https://e.com/x.js';", 'BP3031'],
  ])('refuses %s at the specifier', (_, line, code) => {
    const r = analyze(`${line}\nexport default () => 1;\n`);
    const column = line.search(/['"]/) + 1;
    expect(summary(r.diagnostics)).toEqual([`${code} CODE-4 ${FENCE + 1}:${column}`]);
  });
  it('follows a chain a → b → c relative to each importer, capturing each module once, sorted', () => {
    const r = fixture('chain', 'notes/count.md');
    const root = realpathSync(path.join(FIXTURES, 'chain'));
    expect(r.diagnostics).toEqual([]);
    expect(r.imports).toEqual([path.join(root, 'lib/a.js')]);
    expect(r.modules.map((m) => [m.relPath, m.imports.map((i) => path.relative(root, i))])).toEqual([
      ['lib/a.js', ['lib/b.js']],
      ['lib/b.js', ['util/c.mjs']],
      ['util/c.mjs', []],
    ]);
    expect(r.modules[2]!.text).toBe('export function c(x) {\n  return x.length;\n}\n');
    expect(r.modules[2]!.size).toBe(44);
    expect(r.files).toEqual(['lib/a.js', 'lib/b.js', 'util/c.mjs'].map((p) => path.join(root, p)));
  });
  it('accepts a cycle among supporting modules', () => {
    const r = fixture('cycle', 'count.md');
    expect(r.diagnostics).toEqual([]);
    expect(r.modules.map((m) => m.relPath)).toEqual(['x.js', 'y.js']);
    expect(r.modules[1]!.imports).toEqual([r.modules[0]!.path]);
  });
  it('refuses ../../outside.js leaving the package even when the file exists', () => {
    const r = fixture('escape/pkg', 'sub/count.md');
    expect(summary(r.diagnostics)).toEqual([`BP3034 CODE-4 ${FENCE + 1}:22`]);
    expect(r.modules).toEqual([]);
  });
  it('refuses a missing file in the body and in a module, and lists both for the watcher', () => {
    const r = fixture('missing', 'count.md');
    const root = realpathSync(path.join(FIXTURES, 'missing'));
    expect(r.diagnostics.map((d) => `${path.relative(root, d.file)} ${d.code} ${d.line}:${d.column}`)).toEqual([
      `count.md BP3035 ${FENCE + 2}:22`,
      'lib/present.js BP3035 1:24',
    ]);
    expect(r.diagnostics[0]!.message).toBe('Unexpected `./lib/missing.js`: lib/missing.js does not exist, expected a `.js` or `.mjs` file');
    expect(r.files).toEqual(expect.arrayContaining([path.join(root, 'lib/missing.js'), path.join(root, 'lib/gone.js'), path.join(root, 'lib/present.js')]));
    expect(r.modules.map((m) => m.relPath)).toEqual(['lib/present.js']);
  });
  it('refuses a .ts import even when the file exists (no TypeScript, exact names only)', () => {
    const r = fixture('ts-import', 'count.md');
    expect(summary(r.diagnostics)).toEqual([`BP3033 CODE-4 ${FENCE + 1}:24`]);
    expect(r.diagnostics[0]!.hint).toMatch(/compile it/);
  });

  describe('symbolic links', () => {
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'berrypack-code-'));
    afterAll(() => rmSync(tmp, { recursive: true, force: true }));
    const pkg = path.join(tmp, 'pkg');
    mkdirSync(path.join(pkg, 'lib'), { recursive: true });
    writeFileSync(path.join(tmp, 'outside.js'), 'export const leak = 1;\n');
    writeFileSync(path.join(pkg, 'lib/real.js'), 'export const real = 1;\n');
    symlinkSync(path.join(tmp, 'outside.js'), path.join(pkg, 'link.js'));
    symlinkSync(path.join(pkg, 'lib/real.js'), path.join(pkg, 'alias.js'));
    const root = realpathSync(pkg);
    const run = (body: string) => analyzeMd(HEAD + body, { root, file: path.join(root, 'count.md') });

    it('refuses a link that points outside the package', () => {
      const r = run("import { leak } from './link.js';\nexport default () => leak;\n");
      expect(summary(r.diagnostics)).toEqual([`BP3034 CODE-4 ${FENCE + 1}:22`]);
      expect(r.diagnostics[0]!.message).toContain('is a symbolic link to');
      expect(r.modules).toEqual([]);
    });
    it('accepts a link that stays inside, captured under the name the importer used', () => {
      const r = run("import { real } from './alias.js';\nexport default () => real;\n");
      expect(r.diagnostics).toEqual([]);
      expect(r.modules.map((m) => m.relPath)).toEqual(['alias.js']);
      expect(r.files).toEqual([path.join(root, 'alias.js'), path.join(root, 'lib/real.js')]);
    });
  });
});

describe('CODE-5 host globals by scope analysis', () => {
  const refused = (body: string) => analyze(`${body}\nexport default () => 1;\n`).diagnostics.filter((d) => d.rule === 'CODE-5');
  it('refuses a free fetch() at the identifier; accepts a local const fetch', () => {
    expect(summary(refused('fetch("https://x");'))).toEqual([`BP3040 CODE-5 ${FENCE + 1}:1`]);
    expect(refused('const fetch = () => 1; fetch();')).toEqual([]);
  });
  it.each([
    ['a parameter named process', 'function f(process) { return process.env; }'],
    ['a destructured parameter with a default', 'function f({ a: [setTimeout] = [] }, b = setTimeout) { return b; }'],
    ['var hoisting', 'function f() { g = fetch; var fetch = 1; var g; return g; }'],
    ['a function declaration used before it', 'Buffer(); function Buffer() {}'],
    ['a class name', 'class Worker {} new Worker();'],
    ['a named function expression', 'const g = function require() { return require; };'],
    ['a catch parameter', 'try {} catch (setTimeout) { setTimeout(); }'],
    ['an import', "import { fetch } from './net.js'; fetch();"],
    ['a label', 'process: for (;;) { break process; }'],
    ['property keys and member names', 'const o = { fetch: 1, process() {}, [1]: 2 }; o.fetch; o.require; class C { fetch() {} static process = 1; }'],
    ['a for-of binding', 'for (const global of [1]) global;'],
    ['globalThis with a computed name (left alone)', 'const k = "fetch"; globalThis[k];'],
  ])('accepts %s', (_, body) => {
    expect(refused(body).filter((d) => d.code === 'BP3040')).toEqual([]);
  });
  it.each([
    ['a free reference in a nested function', 'function f() { return () => require("x"); }', 'require'],
    ['a shorthand property', 'const o = { process };', 'process'],
    ['a parameter default', 'function f(a = setTimeout) { return a; }', 'setTimeout'],
    ['a reference outside the block that declares it', '{ const fetch = 1; } fetch();', 'fetch'],
    ['typeof guards (still touches the host)', 'typeof process !== "undefined";', 'process'],
    ['an assignment', 'exports = 1;', 'exports'],
    ['a computed key', 'const o = { [__dirname]: 1 };', '__dirname'],
    ['globalThis.fetch', 'globalThis.fetch("x");', 'globalThis.fetch'],
    ["globalThis['process']", "globalThis['process'].exit();", "globalThis['process']"],
    ['self.WebSocket', 'new self.WebSocket("x");', 'self.WebSocket'],
  ])('refuses %s', (_, body, written) => {
    const d = refused(body);
    expect(d.map((x) => x.code)).toEqual(['BP3040']);
    expect(d[0]!.message).toBe(`Unexpected host global \`${written}\`, expected only the language's own globals`);
  });
  it('refuses every listed global', () => {
    const names = [
      'process',
      'require',
      'module',
      'exports',
      '__dirname',
      '__filename',
      'global',
      'fetch',
      'XMLHttpRequest',
      'WebSocket',
      'EventSource',
      'setTimeout',
      'setInterval',
      'setImmediate',
      'clearTimeout',
      'clearInterval',
      'clearImmediate',
      'queueMicrotask',
      'Buffer',
      'Deno',
      'Bun',
      'importScripts',
      'Worker',
      'SharedArrayBuffer',
      'Atomics',
      'WeakRef',
      'FinalizationRegistry',
    ];
    expect(refused(names.map((n) => `${n};`).join('\n'))).toHaveLength(names.length);
    expect(refused('Object; JSON; Promise; Array; structuredClone; console; Intl; Map;')).toEqual([]);
  });
  it('warns (not refuses) on the clock and randomness, when not shadowed', () => {
    const d = refused(
      'Date.now(); new Date(); Math.random(); crypto.getRandomValues(new Uint8Array(4)); crypto.randomUUID(); performance.now(); globalThis.Date.now();',
    );
    expect(d.map((x) => `${x.code} ${x.severity} ${x.column}`)).toEqual([
      'BP3041 warning 1',
      'BP3041 warning 13',
      'BP3041 warning 25',
      'BP3041 warning 40',
      'BP3041 warning 83',
      'BP3041 warning 104',
      'BP3041 warning 123',
    ]);
    expect(d[0]!.message).toBe('Unexpected `Date.now()` in replayable code, expected time and randomness from the input or a tool');
    expect(refused('const s = Date();').map((x) => x.code)).toEqual(['BP3041']);
    expect(refused('new Date(0); Date.parse("2020"); Math.max(1, 2); const Math = { random: () => 4 }; Math.random();')).toEqual([]);
  });
  it('applies to captured modules: a free process and globalThis.fetch in a module', () => {
    const r = fixture('module-errors', 'count.md');
    expect(summary(r.diagnostics.filter((d) => d.file.endsWith('io.js') && d.rule === 'CODE-5'))).toEqual(['BP3040 CODE-5 3:3', 'BP3040 CODE-5 4:10']);
  });
});

describe('CODE-6 at most 1 MiB of packaged code', () => {
  it('accepts exactly 1 MiB and refuses 1 MiB + 1 byte', () => {
    const exact = accountCodeSize([
      { path: 'a.md', size: 1_000_000 },
      { path: 'lib/b.js', size: 48_576 },
    ]);
    expect(exact.total).toBe(1_048_576);
    expect(exact.total <= exact.limit).toBe(true);
    const over = accountCodeSize([
      { path: 'a.md', size: 1_000_000 },
      { path: 'lib/b.js', size: 48_577 },
    ]);
    expect(over.total > over.limit).toBe(true);
  });
  it('sorts the largest first and names them in the message', () => {
    const account = accountCodeSize([
      { path: 'notes/count.md', size: 150_000 },
      { path: 'lib/big.js', size: 900_000 },
      { path: 'lib/a.js', size: 25_000 },
      { path: 'lib/b.js', size: 25_000 },
    ]);
    expect(account.entries.map((e) => e.path)).toEqual(['lib/big.js', 'notes/count.md', 'lib/a.js', 'lib/b.js']);
    expect(sizeExcessMessage(account, 2)).toBe(
      'Unexpected 1,100,000 bytes of packaged code, expected at most 1,048,576: largest are lib/big.js (900,000), notes/count.md (150,000) and 2 more',
    );
    expect(sizeExcessMessage(accountCodeSize([{ path: 'x.js', size: 2_000_000 }]))).toBe(
      'Unexpected 2,000,000 bytes of packaged code, expected at most 1,048,576: largest is x.js (2,000,000)',
    );
  });
  it('reports the body and module sizes in UTF-8 bytes', () => {
    const r = analyze('export default () => "é";\n');
    expect(r.bodySize).toBe(27);
    expect(fixture('chain', 'notes/count.md').modules.map((m) => m.size)).toEqual([62, 40, 44]);
  });
});

describe('CODE-7 tools keys are the declared literal names', () => {
  const tools = ['notes.compose', 'helper'];
  const warnings = (body: string, options: RoutineOptions = { tools }) => summary(analyze(body, options).diagnostics.filter((d) => d.rule === 'CODE-7'));
  it('accepts declared keys and warns on an undeclared one with a did-you-mean hint', () => {
    expect(warnings("export default async (input, tools) => [await tools.helper(input), await tools['notes.compose'](input)];\n")).toEqual([]);
    const r = analyze('export default async function (input, tools) {\n  return tools.helpr(input);\n}\n', { tools });
    expect(summary(r.diagnostics)).toEqual([`BP3060 CODE-7 ${FENCE + 2}:10`]);
    expect(r.diagnostics[0]!.severity).toBe('warning');
    expect(r.diagnostics[0]!.message).toBe('Unexpected tool `helpr`, expected a declared tool: `helper` or `notes.compose`');
    expect(r.diagnostics[0]!.hint).toBe('did you mean `helper`?');
  });
  it("warns on tools.notes.compose with the hint to write tools['notes.compose']", () => {
    const r = analyze('export default (input, tools) => tools.notes.compose(input);\n', { tools });
    expect(summary(r.diagnostics)).toEqual([`BP3060 CODE-7 ${FENCE + 1}:34`]);
    expect(r.diagnostics[0]!.hint).toBe("write tools['notes.compose']");
    expect(r.diagnostics[0]!.endColumn).toBe(53);
  });
  it('follows the second parameter whatever its name, and destructuring of it', () => {
    expect(warnings('export default (input, t) => t.nope;\n')).toEqual([`BP3060 CODE-7 ${FENCE + 1}:30`]);
    expect(warnings('export default (input, t = {}) => t.nope;\n')).toEqual([`BP3060 CODE-7 ${FENCE + 1}:35`]);
    expect(warnings("export default (input, { helper, 'notes.compose': compose, nope }) => helper;\n")).toEqual([`BP3060 CODE-7 ${FENCE + 1}:60`]);
    expect(warnings('export default (input, { notes: { compose } }) => compose;\n')).toEqual([`BP3060 CODE-7 ${FENCE + 1}:26`]);
    expect(warnings('export default function (input, tools) {\n  const { helper, nope } = tools;\n  return helper;\n}\n')).toEqual([
      `BP3060 CODE-7 ${FENCE + 2}:19`,
    ]);
    expect(warnings('function run(input, tools) { return tools.nope; }\nexport { run as default };\n')).toEqual([`BP3060 CODE-7 ${FENCE + 1}:37`]);
  });
  it('ignores shadowed names, other parameters, dynamic keys and routines with catalog: true', () => {
    expect(warnings('export default (input, tools) => [input.nope, ((tools) => tools.nope)({}), tools[input.name]];\n')).toEqual([]);
    expect(warnings('export default (input) => input.tools.nope;\n')).toEqual([]);
    expect(warnings('export default (input, tools) => tools.nope;\n', { tools, catalog: true })).toEqual([]);
  });
  it('says when the routine declares no tools', () => {
    const r = analyze('export default (input, tools) => tools.helper(input);\n', { tools: [] });
    expect(r.diagnostics[0]!.message).toBe('Unexpected tool `helper`: the routine declares no tools');
  });
});

describe('source map of the body back to the .md file', () => {
  it('maps body line 1 column 0 to the first body line of the .md, and body line 3 to fence + 3', () => {
    const md = HEAD + 'export default function (input) {\n  // note\n  return input.x;\n}\n';
    const r = analyzeMd(md);
    expect(r.map.version).toBe(3);
    expect(r.map.sources).toEqual(['count.md']);
    // Lean: the .md text is in the bundle's files already, and one segment a line is enough.
    expect(r.map).not.toHaveProperty('sourcesContent');
    const lines = decodeMappings(r.map.mappings);
    expect(lines[0]).toEqual([[0, 0, FENCE, 0]]);
    // 0-based in the map: body line 3 (index 2) starts at .md line FENCE + 3 (index FENCE + 2), column 0.
    expect(lines[2]).toEqual([[0, 0, FENCE + 2, 0]]);
    expect(lines).toHaveLength(5);
  });
});

describe('CodeCache: modules analysed once per content', () => {
  it('serves unchanged modules from the cache and re-analyses only a changed one', () => {
    const cache = new CodeCache();
    const first = fixture('chain', 'notes/count.md', { cache });
    expect([cache.hits, cache.misses]).toEqual([0, 3]);
    const second = fixture('chain', 'notes/count.md', { cache });
    expect([cache.hits, cache.misses]).toEqual([3, 3]);
    expect(second.modules).toEqual(first.modules);
    const root = realpathSync(path.join(FIXTURES, 'chain'));
    const edited: CompilerHost = {
      ...nodeHost,
      readFile: (p) =>
        p === path.join(root, 'lib/b.js') ? new TextEncoder().encode("export { c as b } from '../util/c.mjs';\nexport const d = 1;\n") : nodeHost.readFile(p),
    };
    fixture('chain', 'notes/count.md', { cache, host: edited });
    expect([cache.hits, cache.misses]).toEqual([5, 4]);
  });
  it('keeps cached diagnostics intact when a caller edits the ones it got', () => {
    const cache = new CodeCache();
    const first = fixture('module-errors', 'count.md', { cache });
    for (const d of first.diagnostics) d.file = 'changed';
    const second = fixture('module-errors', 'count.md', { cache });
    expect(second.diagnostics.every((d) => d.file !== 'changed')).toBe(true);
    expect(cache.hits).toBe(2);
  });
});

describe('every CODE diagnostic code has an example that reports it', () => {
  it.each(Object.entries(codeCodes).map(([code, info]) => [code, info] as const))('%s', (code, info) => {
    if (!('example' in info)) {
      expect(info.needs.length).toBeGreaterThan(10);
      return;
    }
    const r = analyzeMd(info.example, { root: '/docs', file: '/docs/example.md' });
    expect(r.diagnostics.map((d) => d.code)).toContain(code);
    expect(r.diagnostics.find((d) => d.code === code)!.rule).toBe(info.rule);
  });
});

describe('positions use the LineIndex of the .md file', () => {
  it('reports UTF-16 columns after non-ASCII text on the same line', () => {
    const r = analyze('const s = "😀é"; fetch(s);\nexport default () => s;\n');
    const lines = new LineIndex(HEAD + 'const s = "😀é"; fetch(s);\n');
    expect(summary(r.diagnostics)).toEqual([`BP3040 CODE-5 ${FENCE + 1}:${lines.position(HEAD.length + 17).column}`]);
    expect(r.diagnostics[0]!.column).toBe(18);
  });
});

/** Minimal VLQ decoder: each line's segments as absolute [genColumn, source, line, column]. */
function decodeMappings(mappings: string): number[][][] {
  const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const state = [0, 0, 0, 0];
  return mappings.split(';').map((line) => {
    state[0] = 0;
    return line
      .split(',')
      .filter((s) => s !== '')
      .map((segment) => {
        const values: number[] = [];
        let value = 0;
        let shift = 0;
        for (const ch of segment) {
          const digit = chars.indexOf(ch);
          value += (digit & 31) << shift;
          if (digit & 32) shift += 5;
          else {
            values.push(value & 1 ? -(value >>> 1) : value >>> 1);
            value = 0;
            shift = 0;
          }
        }
        return values.map((v, i) => (state[i] = state[i]! + v));
      });
  });
}

describe('CODE-3 nodes come from the scope walk', () => {
  // The reference: every node depth-first in source order through acorn's fields, as the
  // check walked before the scope analysis collected them in its own walk.
  function walked(program: Node): { type: string; start: number; insideFunction: boolean }[] {
    const found: { type: string; start: number; insideFunction: boolean }[] = [];
    const stack: { node: Node; inside: boolean }[] = [{ node: program, inside: false }];
    for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
      const { node, inside } = item;
      if (
        node.type === 'AwaitExpression' ||
        node.type === 'ImportExpression' ||
        node.type === 'MetaProperty' ||
        (node.type === 'ForOfStatement' && node.await)
      ) {
        found.push({ type: node.type, start: node.start, insideFunction: inside });
      }
      const children = childNodes(node);
      for (let i = children.length - 1; i >= 0; i--) stack.push({ node: children[i]!, inside: inside || isFunction(node) });
    }
    return found;
  }
  const programs = [
    'await x;\nfor await (const a of b) await a;\nexport default async function (i) { await i; for await (const c of d) {} }',
    'const f = async (a = 1) => { await a; const g = async function h() { await import("x"); }; };\nawait import(import.meta.url);',
    'class A { static { this.x = import.meta; } m = import("y"); async n() { await this; } static async *o() { for await (const p of q) yield await p; } }',
    'label: { const { a = await y, ...rest } = await z; [x = await w] = v; }\nswitch (await s) { case await t: break; default: import.meta; }',
    'try { await a; } catch ({ e = await b }) { await c; } finally { (async () => await d)(); }\nexport const k = await Promise.all([import("m")]);',
    'const o = { async [await key]() { await 1; }, [import.meta.x]: await 2, get g() { return import("n"); } };\ntag`${await x}${import.meta}`;',
    'for (let i = await a; i < await b; i += await c) { if (await d) while (await e) do { await f; } while (await g); }\nexport { };',
    'export default { async run(input) { return (await input)?.[await import.meta.resolve("x")]; } };',
  ];
  it.each(programs.map((code, i) => [i, code] as const))('program %i: the same nodes, order and function flags as a full walk', (_, code) => {
    const program = parse(code, PARSE_OPTIONS);
    const expected = walked(program);
    expect(expected.length).toBeGreaterThan(2);
    expect(analyzeScopes(program).syntax.map(({ node, insideFunction }) => ({ type: node.type, start: node.start, insideFunction }))).toEqual(expected);
  });
});
