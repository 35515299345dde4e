import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { generatePackage } from '../../../bench/generate.mjs';
import { LineIndex } from '../src/diagnostics/line-index.js';
import { Reporter } from '../src/diagnostics/reporter.js';
import { fastFrontmatter } from '../src/source/fast-frontmatter.js';
import { composedFrontmatter } from '../src/source/parse-frontmatter.js';
import { splitFrontmatter } from '../src/source/split-frontmatter.js';
import { conformanceDir } from '../../../test/support/conformance.js';
import { cleanup, tempDir } from '../../../test/support/temp.js';
import { BIN, ROOT } from '../../../test/support/cli.js';

// The fast path must never change a result: wherever it answers, yaml's Composer path gives the
// same tree (spans included) and reports nothing; wherever that path would report, it declines.

interface Sample {
  name: string;
  /** The whole text, for the reporter's line index (spans are offsets into it). */
  text: string;
  yaml: string;
  offset: number;
}

function compare(sample: Sample, refuseLoneSurrogates = true): 'fast' | 'declined' {
  const fast = fastFrontmatter(sample.yaml, sample.offset, refuseLoneSurrogates);
  if (fast === undefined) return 'declined';
  const reporter = new Reporter(sample.name, new LineIndex(sample.text));
  const slow = composedFrontmatter(sample.yaml, sample.offset, reporter, refuseLoneSurrogates);
  const label = `${sample.name}: ${JSON.stringify(sample.yaml)}`;
  expect(reporter.diagnostics, label).toEqual([]);
  expect(fast, label).toStrictEqual(slow);
  return 'fast';
}

function frontmatterOf(name: string, text: string): Sample | undefined {
  const split = splitFrontmatter(text);
  return split.kind === 'source' ? { name, text, yaml: split.yaml, offset: split.yamlStart } : undefined;
}

function filesUnder(dir: string, keep: (file: string) => boolean): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== 'dist') out.push(...filesUnder(file, keep));
    } else if (keep(file)) out.push(file);
  }
  return out;
}

function fixtureSamples(): Sample[] {
  const dirs = ['fixtures', 'packages/compiler/test/fixtures', 'docs'].map((d) => path.join(ROOT, d));
  const samples: Sample[] = [];
  for (const file of dirs.flatMap((d) => filesUnder(d, (f) => /\.(md|ya?ml)$/.test(f)))) {
    const text = readFileSync(file, 'utf8').replace(/\r\n?/g, '\n');
    const sample = file.endsWith('.md') ? frontmatterOf(file, text) : { name: file, text, yaml: text, offset: 0 };
    if (sample) samples.push(sample);
  }
  return samples;
}

/** Edits that move a frontmatter across the fast path's edges: indentation, indicators, quotes, comments, number-like and keyword-like values. */
const piece = fc.constantFrom(
  ' ',
  '  ',
  '\n',
  '\n\n',
  '- ',
  '-',
  ': ',
  ':',
  '#',
  ' # c',
  '"',
  "'",
  "''",
  '\\',
  '\\n',
  '\\u00e9',
  '\\ud800',
  '\\x41',
  '[',
  ']',
  '{}',
  '[]',
  '&a ',
  '*a',
  '!ref ',
  '|',
  '>',
  '?',
  '0',
  '1e3',
  '0x1F',
  '0o17',
  '.inf',
  '-.5',
  '+12',
  '~',
  'null',
  'True',
  'FALSE',
  'NaN',
  '.NaN',
  'x',
  'key',
  'name',
  '<<',
  '\t',
  '\u00e9',
  '%',
  '---',
  '...',
);

const edit = fc.record({ at: fc.nat(), cut: fc.nat({ max: 4 }), insert: fc.array(piece, { maxLength: 3 }).map((p) => p.join('')) });

function applyEdits(yaml: string, edits: readonly { at: number; cut: number; insert: string }[]): string {
  let out = yaml;
  for (const e of edits) {
    const at = e.at % (out.length + 1);
    out = out.slice(0, at) + e.insert + out.slice(at + e.cut);
  }
  return out;
}

/** Generated frontmatters in the block style, each line drawn from the shapes real ones use. */
/** Values and keys the fast path reads, and (about one in thirty) ones it must leave to yaml. */
const scalarText = fc.oneof(
  {
    weight: 30,
    arbitrary: fc.constantFrom(
      'plain words',
      'x #not a comment? # comment',
      '"double \\"q\\" \\t \\u00e9"',
      "'single ''q'''",
      '12',
      '-3.5',
      '1e-3',
      '0o7',
      '0xff',
      'null',
      '~',
      'true',
      'False',
      '"\\ud83d\\ude00"',
      'http://example.com/a#b',
      '-x',
      '$.output.n',
      '!ref notes.compose',
      "!ref 'quoted.name'",
      '!ref 12',
      '[]',
      '{} # empty',
      '|',
      '>-',
    ),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'a: b',
      '.inf',
      '"\\ud800"',
      '? q',
      '[a, b]',
      '[a]',
      '',
      '   ',
      '# only a comment',
      '!ref [x]',
      '!str x',
      '&a v',
      '|+',
      '|2',
      '> # c',
    ),
  },
);
const keyText = fc.oneof(
  { weight: 30, arbitrary: fc.constantFrom('name', 'description', 'type', 'a', 'b', 'x-y', '$schema', 'ai.strawberry.berry', 'null_ok') },
  { weight: 1, arbitrary: fc.constantFrom('true', 'Null', '"quoted"', '1', '<<', 'a b') },
);

type Tree = { map: [string, Tree][] } | { seq: Tree[] } | { scalar: string | null };
const { tree } = fc.letrec<{ tree: Tree }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record({ scalar: fc.option(scalarText, { freq: 12 }) }),
    fc.record({ map: fc.uniqueArray(fc.tuple(keyText, tie('tree')), { selector: ([key]) => key, minLength: 1, maxLength: 4 }) }),
    fc.record({ seq: fc.array(tie('tree'), { minLength: 1, maxLength: 3 }) }),
  ),
}));
const rootMap = fc.uniqueArray(fc.tuple(keyText, tree), { selector: ([key]) => key, minLength: 1, maxLength: 6 }).map((map): Tree => ({ map }));

/** Block YAML as people write it: two spaces per level, `- key: value` and `- - item` compact. */
function render(node: Tree, column: number, inline: boolean): string {
  const pad = ' '.repeat(column);
  if ('scalar' in node) {
    if (node.scalar === null) return '\n';
    // A block scalar header: its lines go one level deeper than the key or dash that owns it.
    if (/^[|>]/.test(node.scalar)) return ` ${node.scalar}\n${pad}one\n${pad}  more\n\n${pad}two\n\n`;
    return ` ${node.scalar}\n`;
  }
  if ('map' in node)
    return node.map
      .map(
        ([key, value], i) =>
          `${inline && i === 0 ? '' : pad}${key}:${'scalar' in value ? render(value, column + 2, false) : `\n${render(value, column + 2, false)}`}`,
      )
      .join('');
  return node.seq
    .map((item, i) => {
      const head = `${inline && i === 0 ? '' : pad}-`;
      if ('scalar' in item) return `${head}${render(item, column + 2, false)}`;
      return `${head} ${render(item, column + 2, true)}`;
    })
    .join('');
}

/** Lines of the rendered text changed: a comment or blank line put in, or the indentation moved by one. */
const lineEdit = fc.record({ line: fc.nat(), kind: fc.constantFrom('comment', 'blank', 'deeper', 'shallower', 'none', 'none') });
function editLines(yaml: string, edits: readonly { line: number; kind: string }[]): string {
  const lines = yaml.split('\n');
  for (const { line, kind } of edits) {
    const i = line % lines.length;
    const indent = /^ */.exec(lines[i]!)![0];
    if (kind === 'comment') lines.splice(i, 0, `${indent}# note`);
    else if (kind === 'blank') lines.splice(i, 0, '');
    else if (kind === 'deeper') lines[i] = ` ${lines[i]}`;
    else if (kind === 'shallower') lines[i] = lines[i]!.replace(/^ /, '');
  }
  return lines.join('\n');
}

describe('the fast frontmatter path', () => {
  const dirs: string[] = [];
  afterAll(() => cleanup(...dirs));

  it('takes the common block shapes and leaves everything else to yaml', () => {
    const taken = [
      'name: a\ndescription: d # note\n',
      'tools:\n  - notes.search\n  - notes.save:\n      limits:\n        timeout: 5\n',
      'next:\n  to: !ref notes.count\ninput: []\noutput: {}\n',
      "a: 'it''s'\nb: \"tab\\there \\u00e9\"\nc: -3.5e2\nd: ~\ne: True\nf: 0x1F\n",
      'list:\n  - - a\n    - b\n  - c\n',
      '# leading comment\n\nempty:\nnext: 1\n',
      'a: |\n  one\n\n    two\nb: >-\n  x\n  y\n\n  z\nc:\n  - |\n    t\n  - x\n',
    ];
    for (const yaml of taken) expect(compare({ name: 'taken', text: yaml, yaml, offset: 0 }), yaml).toBe('fast');
    const declined = [
      'a: &x 1\nb: *x\n', // anchors and aliases: BP1012
      'a: !!str 1\n', // other tags: BP1014
      'a: [1, 2]\n', // a non-empty flow collection: BP1041
      'a: |+\n  text\n\n', // a block scalar keeping its trailing lines
      'a: |2\n   text\n', // an indentation indicator
      'a: one\n  two\n', // a multi-line plain scalar
      'a: 1\na: 2\n', // a duplicate key: BP1011
      'a:\n   b: 1\n', // indentation other than two: BP1040
      'a: .inf\n', // not a JSON number: BP1016
      'a: "\\ud800"\n', // a lone surrogate: BP1016
      'a: b: c\n', // the `: ` trap: BP1050
      'a:\n  b: 1\n  # trailing comment\n', // a comment closing a block moves yaml's range
      '"quoted key": 1\n',
      'true: 1\n', // a key that is not a string: BP1015
    ];
    for (const yaml of declined) expect(fastFrontmatter(yaml, 0, true), yaml).toBeUndefined();
  });

  it('gives the tree of the slow path for every fixture and docs frontmatter, or declines', () => {
    const samples = fixtureSamples();
    const outcomes = samples.map((s) => compare(s));
    const fast = outcomes.filter((o) => o === 'fast').length;
    // Most real frontmatters are plain block style; the fast path must take them.
    expect(samples.length).toBeGreaterThan(80);
    expect(fast / samples.length).toBeGreaterThan(0.5);
    // Method documents read without refusing lone surrogates: the same holds there.
    for (const s of samples) compare(s, false);
  });

  it('answers for every frontmatter of the benchmark package, with the same tree', () => {
    const dir = tempDir();
    dirs.push(dir);
    const files = generatePackage(dir, 60)
      .filter((f) => f.endsWith('.md'))
      .map((f) => path.join(dir, f));
    expect(files.length).toBeGreaterThan(50);
    for (const file of files) {
      const sample = frontmatterOf(file, readFileSync(file, 'utf8'))!;
      expect(compare(sample), file).toBe('fast');
    }
  });

  it('resolves every Core schema scalar of yaml-test-schema as yaml does', () => {
    const dir = conformanceDir();
    if (dir === undefined) return;
    const cases = JSON.parse(readFileSync(path.join(dir, 'yaml/yaml-test-schema/schema-core.json'), 'utf8')) as Record<string, unknown>;
    let fast = 0;
    for (const input of Object.keys(cases)) {
      const value = input.slice(input.indexOf(' ') + 1);
      const text = `value: ${value}\nlist:\n  - ${value}\n`;
      if (compare({ name: input, text, yaml: text, offset: 0 }) === 'fast') fast++;
    }
    expect(fast).toBeGreaterThan(30);
    for (const test of readdirSync(path.join(dir, 'yaml/yaml-test-suite'), { withFileTypes: true })) {
      if (!test.isDirectory()) continue;
      const text = readFileSync(path.join(dir, 'yaml/yaml-test-suite', test.name, 'in.yaml'), 'utf8');
      compare({ name: test.name, text, yaml: text, offset: 0 });
    }
  });

  it('resolves plain numbers, nulls and booleans as yaml does, without yaml for the common ones', () => {
    // resolvePlain answers decimal ints and fractions, `~` and the null/bool words itself; the
    // rarer forms go through yaml's own tags. Either way the tree is the Composer's.
    const common = [
      '2000',
      '0',
      '-0',
      '+12',
      '007',
      '0.50',
      '.5',
      '-.5',
      '1.',
      '~',
      'null',
      'NULL',
      'True',
      'FALSE',
      'nope',
      'ns7.model677',
      'true-ish',
      '12345678901234567890',
      '1.2.3',
      '-x',
      '+',
      '.',
    ];
    const rare = ['1e3', '-3.5e2', '0x1F', '0o17', '0o8'];
    for (const value of [...common, ...rare]) {
      const text = `value: ${value}\nlist:\n  - ${value}\n`;
      expect(compare({ name: value, text, yaml: text, offset: 0 }), value).toBe('fast');
    }
    for (const value of ['.inf', '-.Inf', '.nan', '9'.repeat(400), `${'9'.repeat(400)}.5`])
      expect(fastFrontmatter(`value: ${value}\n`, 0, true), value).toBeUndefined();
    const plain = fc.stringMatching(/^[0-9+\-.eExXoO_~nNuUlLtTrRfFaAsS]{1,12}$/);
    fc.assert(
      fc.property(plain, (value) => {
        const text = `value: ${value}\n`;
        compare({ name: value, text, yaml: text, offset: 0 });
      }),
      { seed: 20261201, numRuns: 3000 },
    );
  });

  it('builds a package of common frontmatters without loading yaml, and loads it for one it declines', () => {
    const dir = tempDir();
    dirs.push(dir);
    // A hook in the child process reports whether any file of the yaml package was loaded.
    const hook = path.join(dir, 'yaml-loaded.cjs');
    writeFileSync(
      hook,
      "process.on('exit', () => process.stderr.write('yaml loaded: ' + Object.keys(require.cache).some((k) => k.includes('/node_modules/yaml/')) + '\\n'));\n",
    );
    const pkg = path.join(dir, 'pkg');
    generatePackage(pkg, 20);
    const build = () =>
      spawnSync(process.execPath, ['-r', hook, BIN, 'build', pkg, '--out-dir', path.join(dir, 'out'), '--no-cache'], { encoding: 'utf8', timeout: 120_000 });
    const common = build();
    expect(common.status, common.stderr).toBe(0);
    expect(common.stderr).toContain('yaml loaded: false');
    mkdirSync(path.join(pkg, 'routines/extra'), { recursive: true });
    writeFileSync(path.join(pkg, 'routines/extra/flow.md'), '---\nname: extra.flow\ndescription: "a flow \\x41 escape"\n---\nBody.\n');
    const declined = build();
    expect(declined.status, declined.stderr).toBe(0);
    expect(declined.stderr).toContain('yaml loaded: true');
  });

  it('gives the slow path tree or declines on generated block frontmatters', () => {
    let fast = 0;
    fc.assert(
      fc.property(rootMap, fc.array(lineEdit, { maxLength: 2 }), (root, edits) => {
        const yaml = editLines(render(root, 0, false), edits);
        const text = `---\n${yaml}---\nbody\n`;
        if (compare({ name: 'generated', text, yaml, offset: 4 }) === 'fast') fast++;
      }),
      { seed: 20261201, numRuns: 3000 },
    );
    expect(fast).toBeGreaterThan(500);
  });

  it('gives the slow path tree or declines on mutated fixture frontmatters', () => {
    const samples = fixtureSamples().filter((s) => s.yaml.length < 4000);
    let fast = 0;
    fc.assert(
      fc.property(fc.nat({ max: samples.length - 1 }), fc.array(edit, { minLength: 1, maxLength: 3 }), (i, edits) => {
        const base = samples[i]!;
        const yaml = applyEdits(base.yaml, edits);
        const text = `---\n${yaml}---\n`;
        if (compare({ name: `${base.name} edited`, text, yaml, offset: 4 }) === 'fast') fast++;
      }),
      { seed: 20261201, numRuns: 4000 },
    );
    expect(fast).toBeGreaterThan(400);
  });
});
