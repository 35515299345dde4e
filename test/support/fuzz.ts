import { createHash } from 'node:crypto';
import { appendFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { checkMethod, checkSource, CODES, hasErrors, readBundle, type BuildResult, type Diagnostic } from '@berrypack/compiler';
import { ROOT } from './cli.js';

/**
 * Shared pieces of the hardening fuzzers (test/hardening/fuzz-*.test.ts): the seed and
 * scale, the corpus of real fixtures, mutations as data (so fast-check shrinks them and a
 * counterexample can be saved as a short recipe), and the invariants every result must
 * satisfy. `npm test` runs a few thousand inputs; `scripts/fuzz.mjs` runs the same
 * properties with BERRYPACK_FUZZ_SCALE, a fresh seed and BERRYPACK_FUZZ_REGRESSIONS set.
 */

function numberEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new TypeError(`Unexpected ${name}=${raw}, expected a positive number`);
  return value;
}

export const FUZZ_SEED = numberEnv('BERRYPACK_FUZZ_SEED', 20_260_801);
export const FUZZ_SCALE = numberEnv('BERRYPACK_FUZZ_SCALE', 1);
/** Where counterexamples go (the long run sets it to fixtures/regressions); unset in `npm test`. */
export const REGRESSIONS_OUT = process.env['BERRYPACK_FUZZ_REGRESSIONS'] || undefined;
/** The long run's watchdog reads the input in progress from here, so a hang can be saved too. */
const PROGRESS_FILE = process.env['BERRYPACK_FUZZ_PROGRESS'] || undefined;
export const REGRESSIONS_DIR = path.join(ROOT, 'fixtures/regressions');

/**
 * A ceiling per input, never a speed target (CONTRACTS.md: generous ceilings only): 5 s, plus
 * 20 s per MiB. The yaml library is linear but slow on error-dense text (a 1 MiB line of `"`
 * is 500,000 errors, about 5 s on the 2-core machine under load), so a flat 5 s would flake
 * on the largest inputs while still missing nothing worse than linear.
 */
export function ceilingMs(bytes: number): number {
  return (5_000 + Math.ceil((bytes / (1 << 20)) * 20_000)) * (COVERAGE ? 3 : 1);
}

/**
 * `npm test` measures coverage (BERRYPACK_COVERAGE=1): V8's block coverage makes the compiler
 * two to three times slower, and a 473 KB line of quotes then took 23 s against 14 s.
 */
const COVERAGE = process.env['BERRYPACK_COVERAGE'] === '1';

/** `scripts/soak.mjs` sets it: the load, kill and size tests then run at soak scale. */
export const SOAK = process.env['BERRYPACK_SOAK'] === '1';

/** Where the hardening tests append their figures (JSON lines) for the scripts' reports and docs/security.md. */
const FIGURES_FILE = process.env['BERRYPACK_HARDENING_FIGURES'] || undefined;

export function recordFigure(name: string, figures: Record<string, unknown>): void {
  if (FIGURES_FILE) appendFileSync(FIGURES_FILE, `${JSON.stringify({ name, ...figures })}\n`);
}

export function runs(base: number): number {
  return Math.max(1, Math.round(base * FUZZ_SCALE));
}

/** A vitest timeout for a test whose work grows with the scale. */
export function scaledTimeout(baseMs: number): number {
  return Math.max(30_000, Math.round(baseMs * FUZZ_SCALE * 1.5));
}

// ---------------------------------------------------------------------------------------
// Corpus

export interface CorpusFile {
  /** Path below fixtures/, POSIX. */
  name: string;
  bytes: Uint8Array;
}

/** Every fixture file below `fixtures/<dirs>` whose name passes `keep`, sorted (stable across machines). */
export function corpus(dirs: readonly string[], keep: (name: string) => boolean): CorpusFile[] {
  const out: CorpusFile[] = [];
  const walk = (rel: string) => {
    for (const e of readdirSync(path.join(ROOT, 'fixtures', rel), { withFileTypes: true })) {
      const child = `${rel}/${e.name}`;
      if (e.isDirectory()) {
        if (e.name !== 'node_modules' && !e.name.startsWith('.')) walk(child);
      } else if (e.isFile() && keep(e.name)) out.push({ name: child, bytes: new Uint8Array(readFileSync(path.join(ROOT, 'fixtures', child))) });
    }
  };
  for (const d of dirs) walk(d);
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Packages whose files the build fuzzer mutates (fixtures/<name>). */
export const PACKAGES = ['notebook', 'imports/app', 'imports/lib', 'runtime/flow', 'runtime/models'] as const;

/** The package a fixture file belongs to, and the one to build when it changes (lib is built through its importer). */
export function packageOf(name: string): { pkg: string; build: string; rel: string } {
  const pkg = [...PACKAGES].sort((a, b) => b.length - a.length).find((p) => name.startsWith(`${p}/`));
  if (!pkg) throw new Error(`no package holds ${name}`);
  return { pkg, build: pkg === 'imports/lib' ? 'imports/app' : pkg, rel: name.slice(pkg.length + 1) };
}

// ---------------------------------------------------------------------------------------
// Mutations

export type LineAction = 'duplicate' | 'delete' | 'swap' | 'indent' | 'dedent' | 'tab' | 'blank';
export type DeepStyle = 'flow-seq' | 'flow-map' | 'block-map' | 'block-seq' | 'json';

/** One edit of a file. Positions are naturals taken modulo the length, so they shrink toward the start. */
export type Mutation =
  | { op: 'flip'; at: number; mask: number }
  | { op: 'truncate'; at: number }
  | { op: 'delete'; at: number; length: number }
  | { op: 'insert'; at: number; text: string }
  | { op: 'bytes'; at: number; bytes: number[] }
  | { op: 'line'; action: LineAction; line: number }
  | { op: 'snippet'; line: number; snippet: string }
  | { op: 'scalar'; line: number; value: string }
  | { op: 'huge'; line: number; size: number; unit: string }
  | { op: 'deep'; line: number; depth: number; style: DeepStyle }
  | { op: 'bomb'; line: number; levels: number; width: number }
  | { op: 'longLine'; line: number; length: number }
  | { op: 'newlines'; style: 'crlf' | 'cr' | 'mixed' }
  | { op: 'bom'; count: number }
  | { op: 'json'; path: number[]; value: unknown };

/** Fragments that exercise the YAML and JSON parsers' refusals (SRC-2, SRC-4, SRC-6) and the fence (SRC-1). */
export const SNIPPETS: readonly string[] = [
  '---',
  '...',
  '--- x',
  '%YAML 1.1',
  '%TAG ! tag:example.com,2000:',
  'a: &x 1',
  'b: *x',
  'c: *missing',
  '<<: *x',
  '<<: {a: 1}',
  '? complex key',
  ': value',
  'k: !ref notes.style',
  'k: !!binary aGk=',
  'k: !custom v',
  'name: again',
  'name:',
  'description: Note: trap',
  '- Note: trap',
  'tools:',
  'tools: []',
  'tools: {}',
  'model: {select: {operation: generation}}',
  'language: javascript',
  'input: {type: null}',
  'input:\n  type: object\n  properties:\n    a: {type: string, pattern: x}',
  'next: {to: self, input: "$.input[*]"}',
  '\t- tab',
  'k: |',
  'k: >-\n  folded',
  'k: "unterminated',
  "k: 'unterminated",
  'k: [unterminated',
  'k: {a: 1, a: 2}',
  '"quoted key": 1',
  'true: 1',
  '1: 1',
  'null: x',
  '~: x',
  '{{notes.style}}',
  '{{ $.input.text }}',
  '{{ $.output }}',
  '{{ env.SECRET }}',
  '[[notes.style]]',
  '\\{{ escaped }}',
  '{{',
  '}}',
  '{{ $[*] }}',
  'export default () => { for (;;) {} }',
  "import fs from 'node:fs';",
  "import x from '../../../../etc/passwd.js';",
  'export default class {}',
  'await 1;',
  'import.meta.url',
  "import('x')",
  'process.exit(1)',
  '{"a":',
  '{"a": 1, "a": 2}',
  '"\\ud800"',
  '[1, 2,]',
  '{"sources": "../.."}',
  '{"extensions": {"ai.strawberry.berry": {"imports": [{"name": "self", "manifest": "."}]}}}',
  '\u0000',
  '\u202e',
  '\ufeff',
  '\u2028',
];

/** Scalars that YAML 1.2 core and the checkers treat in interesting ways. */
export const SCALARS: readonly string[] = [
  '',
  '~',
  'null',
  'Null',
  'true',
  'yes',
  'on',
  '0x1F',
  '0o17',
  '017',
  '1e400',
  '-1e400',
  '.inf',
  '-.nan',
  '-0',
  '9007199254740993',
  '"\\ud800"',
  '"\\u0000"',
  "''",
  '""',
  '"a\\tb"',
  '[]',
  '{}',
  '[a, b]',
  '{a: b}',
  '|',
  '>',
  '!ref x',
  '&a x',
  '*a',
  '- x',
  'a: b',
  '#c',
  '$.input',
  '$',
  '$[*]',
  '$..a',
  "$['a']['b']",
  'env.X',
  '../x.js',
  '/etc/passwd',
  'C:\\x',
  '\\\\server\\share',
];

/** JSON values for structural edits of plugin.json and JSON method documents: paths that leave, odd names, wrong types. */
export const JSON_VALUES: readonly unknown[] = [
  '..',
  '../..',
  '.',
  '',
  '/',
  '/etc',
  '/etc/passwd',
  'C:\\Windows',
  '..\\..',
  'routines/../..',
  'routines/../../x',
  'file:///etc/passwd',
  'https://example.com/x',
  'plugin.json',
  './plugin.json',
  '../lib',
  '../lib/plugin.json',
  '../lib/text/shout.md',
  'node_modules',
  '.git',
  'a\u0000b',
  'x'.repeat(300),
  'ENV.x',
  'env.x',
  'sha256-' + '0'.repeat(64),
  0,
  -1,
  1.5,
  1e308,
  true,
  null,
  [],
  {},
  [null],
  { '': 1 },
  { __proto__: null, constructor: 1 },
  { name: 'self', manifest: '.' },
  { name: 'self', manifest: 'plugin.json' },
  { name: 'x', bundle: '/dev/zero' },
  { uri: 'ui://x', mimeType: 'text/plain', path: '../../../etc/passwd' },
  { uri: 'ui://x', mimeType: 'text/plain', path: 'routines' },
];

const nat = fc.nat({ max: 0x7fff_ffff });

/** Sizes spread evenly over powers of two, so most large inputs are moderate and a few are huge. */
function logSize(minBits: number, maxBits: number): fc.Arbitrary<number> {
  return fc.tuple(fc.integer({ min: minBits, max: maxBits }), fc.nat({ max: 1023 })).map(([bits, spread]) => (1 << bits) + ((spread << bits) >> 10));
}

export const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant('flip' as const), at: nat, mask: fc.integer({ min: 1, max: 255 }) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('truncate' as const), at: nat }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('delete' as const), at: nat, length: fc.integer({ min: 1, max: 64 }) }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('insert' as const), at: nat, text: fc.string({ unit: 'binary', maxLength: 16 }) }) },
  {
    weight: 2,
    arbitrary: fc.record({ op: fc.constant('bytes' as const), at: nat, bytes: fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 1, maxLength: 6 }) }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant('line' as const),
      action: fc.constantFrom<LineAction>('duplicate', 'delete', 'swap', 'indent', 'dedent', 'tab', 'blank'),
      line: nat,
    }),
  },
  { weight: 4, arbitrary: fc.record({ op: fc.constant('snippet' as const), line: nat, snippet: fc.constantFrom(...SNIPPETS) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('scalar' as const),
      line: nat,
      value: fc.oneof(fc.constantFrom(...SCALARS), fc.string({ unit: 'grapheme', maxLength: 12 })),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant('huge' as const), line: nat, size: logSize(10, 19), unit: fc.constantFrom('x', 'é', '😀', ' ', '\\', '"') }),
  },
  {
    weight: 1,
    // Block nesting costs its depth squared in indentation: stop a little past the depth the
    // frontmatter reader accepts (1000) instead of writing megabytes of spaces.
    arbitrary: fc.constantFrom<DeepStyle>('flow-seq', 'flow-map', 'block-map', 'block-seq', 'json').chain((style) =>
      fc.record({
        op: fc.constant('deep' as const),
        line: nat,
        depth: style.startsWith('block') ? fc.integer({ min: 10, max: 1_100 }) : logSize(3, 14),
        style: fc.constant(style),
      }),
    ),
  },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant('bomb' as const), line: nat, levels: fc.integer({ min: 1, max: 12 }), width: fc.integer({ min: 2, max: 10 }) }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('longLine' as const), line: nat, length: logSize(10, 19) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('newlines' as const), style: fc.constantFrom('crlf' as const, 'cr' as const, 'mixed' as const) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('bom' as const), count: fc.integer({ min: 1, max: 2 }) }) },
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant('json' as const),
      path: fc.array(fc.nat({ max: 64 }), { minLength: 1, maxLength: 5 }),
      value: fc.oneof(fc.constantFrom(...JSON_VALUES), fc.jsonValue({ maxDepth: 3 })),
    }),
  },
);

export interface Mutated {
  /** The corpus file the mutations apply to (below fixtures/), or `random` for generated bytes. */
  base: string;
  mutations: Mutation[];
  bytes: Uint8Array;
}

/** A corpus file with one to five mutations, or (rarely) bytes or text with no base at all. */
export function mutatedArb(files: readonly CorpusFile[]): fc.Arbitrary<Mutated> {
  const mutated = fc
    .record({ file: fc.constantFrom(...files), mutations: fc.array(mutationArb, { minLength: 1, maxLength: 5 }) })
    .map(({ file, mutations }): Mutated => ({ base: file.name, mutations, bytes: applyMutations(file.bytes, mutations) }));
  const random = fc.oneof(
    fc.uint8Array({ maxLength: 512 }),
    fc.string({ unit: 'binary', maxLength: 512 }).map((s) => encoder.encode(s)),
  );
  return fc.oneof({ weight: 19, arbitrary: mutated }, { weight: 1, arbitrary: random.map((bytes): Mutated => ({ base: 'random', mutations: [], bytes })) });
}

const encoder = new TextEncoder();
const LF = 0x0a;

function splitLines(bytes: Uint8Array): Uint8Array[] {
  const lines: Uint8Array[] = [];
  let start = 0;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === LF) {
      lines.push(bytes.subarray(start, i));
      start = i + 1;
    }
  }
  lines.push(bytes.subarray(start));
  return lines;
}

function joinLines(lines: readonly Uint8Array[]): Uint8Array {
  const total = lines.reduce((n, l) => n + l.length, 0) + Math.max(0, lines.length - 1);
  const out = new Uint8Array(total);
  let at = 0;
  lines.forEach((l, i) => {
    out.set(l, at);
    at += l.length;
    if (i < lines.length - 1) out[at++] = LF;
  });
  return out;
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function insertAt(bytes: Uint8Array, at: number, extra: Uint8Array): Uint8Array {
  const i = bytes.length === 0 ? 0 : at % (bytes.length + 1);
  return concat(bytes.subarray(0, i), extra, bytes.subarray(i));
}

function withLine(bytes: Uint8Array, line: number, edit: (lines: Uint8Array[], i: number) => void): Uint8Array {
  const lines = splitLines(bytes);
  edit(lines, line % lines.length);
  return joinLines(lines);
}

/** The YAML (or JSON) text of a structure nested `depth` levels deep. */
export function deepText(depth: number, style: DeepStyle): string {
  switch (style) {
    case 'flow-seq':
      return `deep: ${'['.repeat(depth)}${']'.repeat(depth)}`;
    case 'flow-map':
      return `deep: ${'{a: '.repeat(depth)}1${'}'.repeat(depth)}`;
    case 'json':
      return `"deep": ${'{"a":'.repeat(depth)}1${'}'.repeat(depth)},`;
    case 'block-seq':
      return `deep:\n${Array.from({ length: depth }, (_, i) => `${'  '.repeat(i + 1)}-`).join('\n')} x`;
    case 'block-map':
      return `deep:\n${Array.from({ length: depth }, (_, i) => `${'  '.repeat(i + 1)}k${i}:`).join('\n')} x`;
  }
}

/** Billion laughs: each level's anchor is a list of `width` aliases of the previous one. */
export function bombText(levels: number, width: number): string {
  const lines = [`l0: &l0 [${Array.from({ length: width }, () => '"lol"').join(', ')}]`];
  for (let i = 1; i <= levels; i++) lines.push(`l${i}: &l${i} [${Array.from({ length: width }, () => `*l${i - 1}`).join(', ')}]`);
  return lines.join('\n');
}

export function applyMutation(bytes: Uint8Array, m: Mutation): Uint8Array {
  switch (m.op) {
    case 'flip': {
      if (bytes.length === 0) return bytes;
      const out = bytes.slice();
      out[m.at % out.length]! ^= m.mask;
      return out;
    }
    case 'truncate':
      return bytes.subarray(0, bytes.length === 0 ? 0 : m.at % bytes.length);
    case 'delete': {
      if (bytes.length === 0) return bytes;
      const i = m.at % bytes.length;
      return concat(bytes.subarray(0, i), bytes.subarray(i + m.length));
    }
    case 'insert':
      return insertAt(bytes, m.at, encoder.encode(m.text));
    case 'bytes':
      return insertAt(bytes, m.at, Uint8Array.from(m.bytes));
    case 'line':
      return withLine(bytes, m.line, (lines, i) => {
        const line = lines[i]!;
        if (m.action === 'duplicate') lines.splice(i, 0, line);
        else if (m.action === 'delete') lines.splice(i, 1);
        else if (m.action === 'swap' && i + 1 < lines.length) [lines[i], lines[i + 1]] = [lines[i + 1]!, line];
        else if (m.action === 'indent') lines[i] = concat(encoder.encode('  '), line);
        else if (m.action === 'dedent')
          lines[i] = line.subarray(Math.min(2, line.findIndex((b) => b !== 0x20) === -1 ? line.length : line.findIndex((b) => b !== 0x20)));
        else if (m.action === 'tab') lines[i] = concat(encoder.encode('\t'), line);
        else if (m.action === 'blank') lines.splice(i, 0, new Uint8Array());
      });
    case 'snippet':
      return withLine(bytes, m.line, (lines, i) => lines.splice(i, 0, ...splitLines(encoder.encode(m.snippet))));
    case 'scalar':
      return withLine(bytes, m.line, (lines, i) => {
        const line = lines[i]!;
        const colon = line.findIndex((b, k) => b === 0x3a && (line[k + 1] === 0x20 || k === line.length - 1));
        lines[i] = colon === -1 ? concat(line, encoder.encode(`: ${m.value}`)) : concat(line.subarray(0, colon + 1), encoder.encode(` ${m.value}`));
      });
    case 'huge':
      return withLine(bytes, m.line, (lines, i) => lines.splice(i, 0, encoder.encode(`huge: ${m.unit.repeat(Math.ceil(m.size / m.unit.length))}`)));
    case 'deep':
      return withLine(bytes, m.line, (lines, i) => lines.splice(i, 0, ...splitLines(encoder.encode(deepText(m.depth, m.style)))));
    case 'bomb':
      return withLine(bytes, m.line, (lines, i) => lines.splice(i, 0, ...splitLines(encoder.encode(bombText(m.levels, m.width)))));
    case 'longLine':
      return withLine(bytes, m.line, (lines, i) => {
        lines[i] = concat(lines[i]!, encoder.encode(' y'.repeat(m.length >> 1)));
      });
    case 'newlines': {
      const out: number[] = [];
      let k = 0;
      for (const b of bytes) {
        if (b !== LF) out.push(b);
        else if (m.style === 'crlf' || (m.style === 'mixed' && k++ % 2 === 0)) out.push(0x0d, LF);
        else out.push(0x0d);
      }
      return Uint8Array.from(out);
    }
    case 'bom':
      return concat(...Array.from({ length: m.count }, () => Uint8Array.of(0xef, 0xbb, 0xbf)), bytes);
    case 'json':
      return editJson(bytes, m.path, m.value);
  }
}

/**
 * Sets one member of a JSON document to `value`, choosing each step of the path among the
 * existing members (modulo their count; one past the end adds a member), so the result is
 * still JSON but no longer the shape the checker expects. Not JSON: unchanged.
 */
function editJson(bytes: Uint8Array, steps: readonly number[], value: unknown): Uint8Array {
  let root: unknown;
  try {
    root = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return bytes;
  }
  const copy = JSON.parse(JSON.stringify(value ?? null)) as unknown;
  if (typeof root !== 'object' || root === null) return encoder.encode(JSON.stringify(copy, null, 2));
  let node = root as Record<string, unknown> | unknown[];
  for (let k = 0; k < steps.length; k++) {
    const keys = Array.isArray(node) ? node.map((_v, i) => String(i)) : Object.keys(node);
    const pick = steps[k]! % (keys.length + 1);
    const key = pick === keys.length ? (Array.isArray(node) ? String(keys.length) : `fuzz${k}`) : keys[pick]!;
    const child = (node as Record<string, unknown>)[key];
    if (k === steps.length - 1 || typeof child !== 'object' || child === null) {
      (node as Record<string, unknown>)[key] = copy;
      break;
    }
    node = child as Record<string, unknown> | unknown[];
  }
  return encoder.encode(JSON.stringify(root, null, 2));
}

export function applyMutations(bytes: Uint8Array, mutations: readonly Mutation[]): Uint8Array {
  return mutations.reduce(applyMutation, bytes);
}

/** A short description of an input for failure messages (never the whole input: some are megabytes). */
export function describeInput(input: { base: string; mutations: readonly Mutation[]; bytes: Uint8Array }): string {
  const mutations = JSON.stringify(input.mutations, (_k, v: unknown) => (typeof v === 'string' && v.length > 80 ? `${v.slice(0, 80)}…` : v));
  return `${input.base} + ${mutations} (${input.bytes.length} bytes)`;
}

// ---------------------------------------------------------------------------------------
// Invariants

const RULE = /^[A-Z]+-\d+$/;
const SEVERITIES = new Set(['error', 'warning', 'info']);

/** Line lengths (UTF-16) of a file's normalized text, when it is UTF-8 (positions are checked only then). */
export function lineLengths(bytes: Uint8Array): number[] | undefined {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return undefined;
  }
  return text
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((l) => l.length);
}

/**
 * What is wrong with a list of diagnostics (empty when nothing is): the shape of
 * CONTRACTS.md, a known code with its own rule, 1-based positions, and (for files whose
 * text is known) positions inside the file.
 */
export function diagnosticProblems(diagnostics: readonly Diagnostic[], texts: ReadonlyMap<string, number[] | undefined> = new Map()): string[] {
  const problems: string[] = [];
  const positive = (n: unknown) => Number.isInteger(n) && (n as number) >= 1;
  diagnostics.forEach((d, i) => {
    const at = `diagnostics[${i}] ${d.code} ${d.file}:${d.line}:${d.column}`;
    const info = (CODES as Record<string, { rule: string } | undefined>)[d.code];
    if (!info) problems.push(`${at}: unknown code`);
    else if (d.rule !== info.rule) problems.push(`${at}: rule ${d.rule}, expected ${info.rule}`);
    if (typeof d.rule !== 'string' || !RULE.test(d.rule)) problems.push(`${at}: rule ${String(d.rule)}`);
    if (!SEVERITIES.has(d.severity)) problems.push(`${at}: severity ${String(d.severity)}`);
    if (typeof d.message !== 'string' || d.message.trim() === '') problems.push(`${at}: empty message`);
    if (/internal error|\n\s+at /i.test(d.message)) problems.push(`${at}: internal error or stack in the message: ${d.message.slice(0, 200)}`);
    if (typeof d.file !== 'string' || d.file === '') problems.push(`${at}: no file`);
    if (!positive(d.line) || !positive(d.column) || !positive(d.endLine) || !positive(d.endColumn)) problems.push(`${at}: position not 1-based`);
    else if (d.endLine < d.line || (d.endLine === d.line && d.endColumn < d.column))
      problems.push(`${at}: ends at ${d.endLine}:${d.endColumn}, before it starts`);
    const lengths = texts.get(d.file);
    if (lengths && positive(d.line)) {
      // Past the last line by one at most (an "unexpected end of file" points just after it).
      if (d.line > lengths.length + 1) problems.push(`${at}: line past the end (${lengths.length} lines)`);
      else if (d.line <= lengths.length && d.column > lengths[d.line - 1]! + 2)
        problems.push(`${at}: column past the end of the line (${lengths[d.line - 1]} characters)`);
    }
    for (const r of d.related ?? []) {
      if (typeof r.file !== 'string' || !positive(r.line) || !positive(r.column) || typeof r.message !== 'string')
        problems.push(`${at}: malformed related ${JSON.stringify(r)}`);
    }
  });
  return problems;
}

function fail(problems: readonly string[]): void {
  if (problems.length > 0) throw new Error(problems.slice(0, 5).join('\n'));
}

/** checkSource's contract on any input (with and without `requireSource`); throws what is broken. */
export function expectSourceContract(file: string, bytes: Uint8Array): void {
  const texts = new Map([[file, lineLengths(bytes)]]);
  for (const requireSource of [false, true]) {
    const result = checkSource(file, bytes, { requireSource });
    fail(diagnosticProblems(result.diagnostics, texts));
    const errors = hasErrors(result.diagnostics);
    if (result.diagnostics.some((d) => d.file !== file)) throw new Error(`a diagnostic names another file than ${file}`);
    if (result.status === 'source' && (errors || !result.routine)) throw new Error('status source with errors or without a routine');
    if (result.status === 'invalid' && !errors) throw new Error('status invalid without an error diagnostic');
    if (result.status === 'documentation' && (requireSource || errors)) throw new Error('documentation while a source was required, or with errors');
  }
}

/** checkMethod's contract on any input; BP6009 is its own catch-all, an exception turned into a diagnostic. */
export function expectMethodContract(file: string, bytes: Uint8Array): void {
  const result = checkMethod(file, bytes);
  fail(diagnosticProblems(result.diagnostics, new Map([[file, lineLengths(bytes)]])));
  const internal = result.diagnostics.find((d) => d.code === 'BP6009');
  if (internal) throw new Error(internal.message);
  if ((result.method !== undefined) === hasErrors(result.diagnostics)) throw new Error('a method with errors, or none without');
}

/** A build's contract: well-formed diagnostics inside `work`, `ok` exactly when error-free, and a bundle that verifies. */
export function expectBuildContract(result: BuildResult, mutated: string, bytes: Uint8Array, work: string): void {
  fail(diagnosticProblems(result.diagnostics, new Map([[mutated, lineLengths(bytes)]])));
  const outside = result.diagnostics.find((d) => !d.file.startsWith(work + path.sep));
  if (outside) throw new Error(`a diagnostic points outside the packages: ${outside.file}`);
  if (result.ok !== (!hasErrors(result.diagnostics) && result.bundle !== undefined)) throw new Error('ok disagrees with the diagnostics');
  if (result.bundle) {
    const verified = readBundle(result.bundle.bytes, { readBlob: (hex) => result.bundle!.blobs.get(hex) });
    if (!verified.ok) throw new Error(`the bundle does not verify: ${verified.error.message}`);
  }
}

// ---------------------------------------------------------------------------------------
// Progress and counterexamples

/** Tells the long run's watchdog which input is being tried (a no-op in `npm test`). */
export function progress(target: string, input: { base: string; mutations: readonly Mutation[] }, extra: Record<string, unknown> = {}): void {
  if (PROGRESS_FILE) writeFileSync(PROGRESS_FILE, JSON.stringify({ target, base: input.base, mutations: input.mutations, ...extra }));
}

export interface Regression {
  target: 'source' | 'method' | 'build';
  /** The file name the input is checked under (build: the package-relative path of the mutated file). */
  file: string;
  /** build: the fixture package (below fixtures/) the file belongs to. */
  package?: string;
  /** The corpus file the mutations apply to (below fixtures/), or `random`. */
  base: string;
  mutations: Mutation[];
  /** The exact bytes, when they are small or cannot be rebuilt from a recipe (`base: random`). */
  base64?: string;
  problem: string;
  /** A bug not fixed yet: replayed only by its own `it.fails` test (a full replay may be slow). */
  open?: boolean;
  seed: number;
  found: string;
}

/** The bytes a regression describes: its recipe applied to the current fixture, or its saved bytes. */
export function regressionBytes(r: Regression): Uint8Array {
  if (r.base64 !== undefined) return new Uint8Array(Buffer.from(r.base64, 'base64'));
  return applyMutations(new Uint8Array(readFileSync(path.join(ROOT, 'fixtures', r.base))), r.mutations);
}

/** Saves a counterexample into BERRYPACK_FUZZ_REGRESSIONS (long run only); returns the file written. */
export function saveRegression(r: Omit<Regression, 'seed' | 'found'>, bytes: Uint8Array): string | undefined {
  if (!REGRESSIONS_OUT) return undefined;
  const record: Regression = { ...r, seed: FUZZ_SEED, found: new Date().toISOString().slice(0, 10) };
  if (r.base === 'random' || bytes.length <= 4_096) record.base64 = Buffer.from(bytes).toString('base64');
  const id = createHash('sha256').update(bytes).digest('hex').slice(0, 12);
  mkdirSync(REGRESSIONS_OUT, { recursive: true });
  const file = path.join(REGRESSIONS_OUT, `${r.target}-${id}.json`);
  writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
  return file;
}

/**
 * Runs a property like `fc.assert`, but saves the shrunk counterexample first (long run),
 * and reports it briefly: a failing input may be megabytes long.
 */
export function checkProperty<T extends { base: string; mutations: readonly Mutation[]; bytes: Uint8Array }>(
  label: string,
  property: fc.IProperty<[T]>,
  numRuns: number,
  /** The longest the property may run, shrinking included (keep it under the test's timeout). */
  budgetMs: number,
  save: (input: T, problem: string) => string | undefined,
): void {
  // Shrinking a slow input can take longer than finding it: cap the whole run, and report an
  // interrupted run that found nothing as a notice rather than silently passing fewer inputs.
  const started = performance.now();
  const details = fc.check(property, { seed: FUZZ_SEED, numRuns, interruptAfterTimeLimit: budgetMs });
  recordFigure('fuzz', {
    target: label,
    seed: FUZZ_SEED,
    inputs: details.numRuns,
    failed: details.failed,
    interrupted: details.interrupted,
    ms: Math.round(performance.now() - started),
  });
  if (!details.failed) {
    if (details.interrupted) console.warn(`fuzz: interrupted after ${details.numRuns} of ${numRuns} runs (seed ${details.seed})`);
    return;
  }
  const input = details.counterexample?.[0];
  const problem = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
  const saved = input ? save(input, problem) : undefined;
  throw new Error(
    `Property failed after ${details.numRuns} runs (seed ${details.seed}, path ${details.counterexamplePath}): ${problem.slice(0, 2_000)}\n` +
      `input: ${input ? describeInput(input) : 'none'}${saved ? `\nsaved to ${saved}` : ''}`,
  );
}
