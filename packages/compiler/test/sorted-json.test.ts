import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { cleanup, tempDir, writeFiles } from '../../../test/support/temp.js';
import { prng } from '../../../test/support/prng.js';
import { canonicalJson, trustedJson } from '../src/bundle/canonical-json.js';
import { createCompiler } from '../src/index.js';
import { NOT_SORTABLE, sortedJson } from '../src/json/sorted-json.js';
import { toJson, type YNode } from '../src/source/yaml-tree.js';

const FIXTURES = fileURLToPath(new URL('../../../fixtures/', import.meta.url));

const span = { start: 0, end: 0 };
const scalar = (value: string | number | boolean | null, ref = false): YNode => ({ kind: 'scalar', span, value, style: 'plain', ref, empty: false });
const map = (entries: [string, YNode][]): YNode => ({
  kind: 'map',
  span,
  flow: false,
  entries: entries.map(([key, value]) => ({ key, keySpan: span, value, span })),
});
const seq = (items: YNode[]): YNode => ({ kind: 'seq', span, flow: false, items });

// Keys whose canonical order differs from insertion order, from numeric order and from code point order (U+1F600 is two code units starting 0xD83D, before U+FF5E).
const KEYS = [
  'type',
  'properties',
  'required',
  'description',
  'a',
  'B',
  'b',
  'aa',
  'a b',
  '',
  'é',
  'ｚ',
  '😀',
  '$ref',
  '!ref',
  '_',
  'Z9',
  '9',
  '10',
  '0',
  '01',
  '__proto__',
];
const STRINGS = [
  '',
  'What to achieve.',
  'quote " and \\ backslash',
  'tab\tnewline\n',
  '\u0000\u001f\u007f',
  'é😀',
  '\\ud800 as text',
  'lone \ud800',
  'lone \udc00 low',
  '\u2028\u2029',
];
const NUMBERS = [0, -0, 1, -1, 0.1, 1e21, 1e-7, 5e-324, 333333333.3333333, 2000, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY];

function tree(rand: () => number, depth: number, unusual: boolean): YNode {
  const pick = <T>(items: readonly T[]) => items[Math.floor(rand() * items.length)]!;
  const roll = rand();
  if (depth > 3 || roll < 0.45) {
    const r = rand();
    if (r < 0.45) return scalar(pick(unusual ? STRINGS : STRINGS.filter((s) => s.isWellFormed())));
    if (r < 0.7) return scalar(pick(unusual ? NUMBERS : NUMBERS.filter(Number.isFinite)));
    if (r < 0.8) return scalar(rand() < 0.5);
    if (r < 0.9) return scalar(null);
    return scalar(pick(['ns.other', 'x']), true);
  }
  if (roll < 0.6) return seq(Array.from({ length: Math.floor(rand() * 4) }, () => tree(rand, depth + 1, unusual)));
  const keys = unusual ? KEYS : KEYS.filter((k) => k !== '__proto__' && !/^[0-9]+$/.test(k));
  return map(Array.from({ length: Math.floor(rand() * 6) }, () => [pick(keys), tree(rand, depth + 1, unusual)]));
}

/** What canonicalJson makes of toJson's tree: its text, or its error's message. */
function exact(node: YNode): string {
  try {
    return canonicalJson(toJson(node));
  } catch (error) {
    return `throws ${(error as Error).message}`;
  }
}

describe('sortedJson: frontmatter trees written canonical without sorted copies', () => {
  it('gives canonicalJson(toJson(node))’s text whenever it does not leave the tree to the exact path', () => {
    const rand = prng(21);
    let fast = 0;
    for (let i = 0; i < 3000; i++) {
      const node = tree(rand, 0, i % 3 === 0);
      const sorted = sortedJson(node);
      const text = sorted === NOT_SORTABLE ? undefined : trustedJson(sorted);
      if (text === undefined) {
        // Left to the exact path: only for what JSON.stringify would write differently.
        continue;
      }
      fast++;
      expect(text, JSON.stringify(toJson(node))).toBe(exact(node));
    }
    // Ordinary trees (two of every three here) take the fast path.
    expect(fast).toBeGreaterThan(2000);
  });

  it('leaves to the exact path exactly what JSON.stringify cannot write canonically', () => {
    const cases: [YNode, string][] = [
      [map([['b', scalar(Number.NaN)]]), 'a number that is not finite'],
      [seq([scalar(Number.POSITIVE_INFINITY)]), 'an infinity in a list'],
      [
        map([
          ['b', scalar(1)],
          ['10', scalar(2)],
          ['9', scalar(3)],
        ]),
        'array-index keys, which objects enumerate first',
      ],
      [map([['__proto__', map([['a', scalar(1)]])]]), 'a `__proto__` key'],
      [
        map([
          ['b', scalar(1)],
          ['a', scalar(2)],
          ['__proto__', map([])],
        ]),
        'a `__proto__` key after keys out of order',
      ],
      [
        map([
          ['b', scalar(1)],
          ['a', scalar(2)],
          ['7', scalar(3)],
        ]),
        'an array-index key after keys out of order',
      ],
    ];
    for (const [node, what] of cases) expect(sortedJson(node), what).toBe(NOT_SORTABLE);
    const lone = sortedJson(map([['a', scalar('\ud800')]]));
    expect(lone).not.toBe(NOT_SORTABLE);
    expect(trustedJson(lone)).toBeUndefined();
    expect(exact(map([['a', scalar('\ud800')]]))).toMatch(/^throws Unexpected lone surrogate U\+D800 in a string at \$\.a/);
  });

  it('keeps a repeated key’s first place and last value, as toJson does', () => {
    const node = map([
      ['b', scalar(1)],
      ['a', scalar(2)],
      ['b', scalar(3)],
    ]);
    expect(trustedJson(sortedJson(node))).toBe('{"a":2,"b":3}');
    expect(exact(node)).toBe('{"a":2,"b":3}');
  });
});

describe('routine entries written through sortedJson: canonical bundles with the frontmatter’s values', () => {
  const dirs: string[] = [];
  afterAll(() => cleanup(...dirs));

  /** Builds `manifest`, checks the bundle is canonical JSON and each entry holds its frontmatter's fields; answers the routines checked. */
  function check(manifest: string): number {
    const result = createCompiler().build(manifest);
    expect(result.ok, JSON.stringify(result.diagnostics.slice(0, 2))).toBe(true);
    const text = new TextDecoder().decode(result.bundle!.bytes);
    // Re-canonicalizing the parsed file gives the same text only when every key is in canonical order.
    expect(canonicalJson(JSON.parse(text))).toBe(text);
    const sources = (JSON.parse(text) as { content: { sources: Record<string, Record<string, unknown>> } }).content.sources;
    const root = path.dirname(manifest);
    let checked = 0;
    for (const entry of Object.values(sources)) {
      const md = readFileSync(path.join(root, entry.path as string), 'utf8');
      const fm = parseYaml(md.slice(4, md.indexOf('\n---', 4))) as Record<string, unknown>;
      for (const key of ['catalog', 'description', 'input', 'model', 'output', 'permissions', 'port', 'title']) {
        if (key in fm) expect(entry[key], `${entry.path as string} ${key}`).toEqual(fm[key]);
      }
      checked++;
    }
    return checked;
  }

  it('for the fixtures', () => {
    let checked = 0;
    for (const fixture of ['notebook', 'conversation', 'runtime/flow', 'runtime/models']) {
      const manifest = path.join(FIXTURES, fixture, 'plugin.json');
      if (existsSync(manifest)) checked += check(manifest);
    }
    expect(checked).toBeGreaterThan(10);
  });

  it('for schemas with keys out of order, array-index keys, non-ASCII keys and a lone surrogate escape as text', () => {
    const dir = tempDir('berrypack-sorted-json-');
    dirs.push(dir);
    const routine = (name: string, input: string) =>
      `---\nname: ${name}\ndescription: Tricky keys.\nmodel:\n  select:\n    operation: generation\n  max_output_tokens: 100\ninput:\n${input}---\nSay {{ $.input }}.\n`;
    writeFiles(dir, {
      'plugin.json': JSON.stringify({
        $schema: 'https://agent-plugins.org/schemas/1.0.0/plugin.schema.json',
        name: 'test.sorted',
        version: '1',
        extensions: { 'ai.strawberry.berry': { sources: 'routines', exports: ['a.digits', 'a.unicode'] } },
      }),
      'routines/a/digits.md': routine(
        'a.digits',
        '  type: object\n  properties:\n    "10":\n      type: string\n    "9":\n      type: string\n    b:\n      type: string\n',
      ),
      'routines/a/unicode.md': routine(
        'a.unicode',
        '  type: object\n  properties:\n    "ｚ":\n      type: string\n      description: "\\\\ud800 is text here"\n    "😀":\n      type: string\n    é:\n      type: number\n      minimum: -0.5\n',
      ),
    });
    expect(check(path.join(dir, 'plugin.json'))).toBe(2);
  });
});
