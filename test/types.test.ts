import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../packages/cli/src/index.js';
import { ROOT } from './support/cli.js';
import { copyFixtures, writeFiles } from './support/temp.js';
import { memoryIo } from './support/memory-io.js';

/** `tsc --noEmit` over `files` in `dir`, strict, the generated .d.ts checked as well; returns `file(line): TSxxxx` per error. */
function typeCheck(dir: string, files: string[]): { code: number | null; errors: string[]; output: string } {
  const compilerOptions = { strict: true, noEmit: true, target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', types: [], skipLibCheck: false };
  writeFiles(dir, { 'tsconfig.check.json': JSON.stringify({ compilerOptions, files }) });
  const result = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.check.json', '--pretty', 'false'], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 60_000,
  });
  const errors = [...result.stdout.matchAll(/^(\S+)\((\d+),\d+\): error (TS\d+)/gm)].map((m) => `${m[1]}(${m[2]}): ${m[3]}`);
  return { code: result.status, errors, output: result.stdout + result.stderr };
}

const USAGE_OK = `import type { BerryAgents, BerryRoutines, NotesComposeOutput, NotesComposeResult, NotesCountOutput } from './notebook/berrypack-env.js';

declare function call<K extends keyof BerryRoutines>(name: K, input: BerryRoutines[K]['input']): Promise<BerryRoutines[K]['output']>;

export async function demo(): Promise<string> {
  // notes.compose continues with \`next: notes.count\`: a caller receives the count.
  const composed: NotesCountOutput = await call('notes.compose', { text: 'buy milk' });
  const result: NotesComposeResult = composed;
  const note: NotesComposeOutput = { title: 'Milk', body: 'buy milk', tags: [] };
  const triage = await call('notes.triage', { text: note.body });
  const category: 'idea' | 'task' | 'reference' = triage.category;
  const counted = await call('notes.count', { note, source: 'compose' });
  const ranked = await call('search.rank', { query: 'milk', notes: [note.body] });
  const reply: string = await call('converse', { message: 'hello', extra: true });
  const agent: BerryAgents['notebook']['input'] = { message: 'hello' };
  return [category, counted.words + result.words, ranked[0]?.score, reply, agent.message, note.tags.join(',')].join(' ');
}
`;

const USAGE_BAD = `import type { BerryAgents, BerryRoutines, NotesComposeOutput } from './notebook/berrypack-env.js';

export const closed: NotesComposeOutput = { title: 't', body: 'b', tags: [], colour: 'red' };
export const notInEnum: BerryRoutines['notes.triage']['output'] = { category: 'urgent', urgent: true };
export const missing: BerryRoutines['notes.compose']['input'] = { txt: 'x' };
export const integer: BerryRoutines['notes.count']['output'] = { words: '3', tags: 0 };
export const agent: BerryAgents['notebook']['input'] = { message: 42 };
export const unknownRoutine: keyof BerryRoutines = 'notes.style';
export const ownOutput: BerryRoutines['notes.compose']['output'] = { title: 't', body: 'b', tags: [] };
`;

describe('berrypack types', () => {
  it('writes berrypack-env.d.ts beside the manifest, deterministically', async () => {
    const dir = copyFixtures(['notebook']);
    const first = memoryIo(dir, { NO_COLOR: '1' });
    expect(await run(['types', 'notebook'], first.io)).toBe(0);
    expect(first.output()).toBe('wrote notebook/berrypack-env.d.ts\n');
    const file = path.join(dir, 'notebook/berrypack-env.d.ts');
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('export type NotesComposeOutput = {\n  title: string;\n  body: string;\n  tags: string[];\n};\n');
    expect(text).toContain(
      'export type NotesComposeInput = {\n  /** The rough note as the person wrote it. */\n  text: string;\n  [key: string]: unknown;\n};\n',
    );
    expect(text).toContain('  /** The kind of note. */\n  category: "idea" | "task" | "reference";\n');
    expect(text).toContain('export type NotesCountInput = {\n  note: Record<string, unknown>;\n  source?: string;\n  [key: string]: unknown;\n};\n');
    expect(text).toContain('  words: number;\n');
    expect(text).toContain('export type ConverseOutput = string;\n');
    expect(text).toContain('export type SearchRankOutput = {\n  index: number;\n  score: number;\n  [key: string]: unknown;\n}[];\n');
    // What a caller receives: notes.compose goes on to notes.count (`next`).
    expect(text).toContain('  "notes.compose": { input: NotesComposeInput; output: NotesCountOutput };\n');
    expect(text).toContain(
      '/** What a caller of `notes.compose` receives: the output at the end of its `next` chain. */\nexport type NotesComposeResult = NotesCountOutput;\n',
    );
    expect(text).toContain('export interface BerryAgents {\n  notebook: BerryRoutines["converse"];\n}\n');
    // Instructions are included, not called.
    expect(text).not.toContain('notes.style');

    const mtime = statSync(file).mtimeMs;
    expect(await run(['types', 'notebook/plugin.json', '--out', 'copy/env.d.ts'], memoryIo(dir, { NO_COLOR: '1' }).io)).toBe(0);
    expect(readFileSync(path.join(dir, 'copy/env.d.ts'), 'utf8')).toBe(text);
    expect(await run(['types', 'notebook'], memoryIo(dir, { NO_COLOR: '1' }).io)).toBe(0);
    expect(statSync(file).mtimeMs).toBe(mtime);
  });

  it('gives types that accept right calls and refuse wrong fields', async () => {
    const dir = copyFixtures(['notebook']);
    expect(await run(['types', 'notebook'], memoryIo(dir, { NO_COLOR: '1' }).io)).toBe(0);
    writeFiles(dir, { 'ok.ts': USAGE_OK, 'bad.ts': USAGE_BAD });
    const ok = typeCheck(dir, ['ok.ts']);
    expect(ok.output).toBe('');
    expect(ok.code).toBe(0);
    const bad = typeCheck(dir, ['bad.ts']);
    expect(bad.code).toBe(2);
    expect(bad.errors).toEqual([
      'bad.ts(3): TS2353',
      'bad.ts(4): TS2322',
      'bad.ts(5): TS2741',
      'bad.ts(6): TS2322',
      'bad.ts(7): TS2322',
      'bad.ts(8): TS2322',
      'bad.ts(9): TS2322',
    ]);
  });

  it('translates oneOf, enums, open and closed objects, odd names, !ref and an independent document', async () => {
    const dir = copyFixtures(['imports']);
    writeFiles(dir, {
      'shapes/plugin.json': JSON.stringify({
        $schema: 'https://agent-plugins.org/schemas/1.0.0/plugin.schema.json',
        name: 'example.shapes',
        version: '1',
        extensions: {
          'ai.strawberry.berry': {
            sources: 'src',
            exports: ['shape.pick'],
            agents: { picker: { title: 'Picker', description: 'Picks.', entry: 'shape.pick' } },
          },
        },
      }),
      'shapes/src/pick.md': [
        '---',
        'name: shape.pick',
        'description: Picks a shape.',
        'language: javascript',
        'input:',
        '  type: object',
        `  document: '${JSON.stringify({
          type: 'object',
          $defs: {
            point: { type: 'object', properties: { x: { type: 'number' }, y: { type: 'number' } }, required: ['x', 'y'], additionalProperties: false },
            tree: { type: 'object', properties: { children: { type: 'array', items: { $ref: '#/$defs/tree' } } } },
          },
          properties: {
            from: { $ref: '#/$defs/point' },
            label: { type: ['string', 'null'] },
            kind: { anyOf: [{ const: 'a' }, { const: 'b' }] },
            tree: { $ref: '#/$defs/tree' },
            odd: { not: { type: 'string' } },
          },
          required: ['from'],
        })}'`,
        'output:',
        '  oneOf:',
        '    - type: object',
        '      additionalProperties: false',
        '      required:',
        '        - area',
        '      properties:',
        '        area:',
        '          type: number',
        '        unit-name:',
        '          enum:',
        '            - 1',
        '            - cm',
        '            - null',
        '    - type: object',
        '      additionalProperties:',
        '        type: integer',
        '      properties:',
        '        count:',
        '          type: integer',
        '    - type: array',
        '      items:',
        '        oneOf:',
        '          - type: string',
        '          - type: boolean',
        '    - type: object',
        '      additionalProperties: false',
        '---',
        'export default function pick() {',
        '  return { area: 1 };',
        '}',
        '',
      ].join('\n'),
    });
    const io = memoryIo(dir, { NO_COLOR: '1' });
    expect(await run(['types', 'shapes', '--out', 'shapes.d.ts'], io.io)).toBe(0);
    expect(await run(['types', 'imports/app', '--out', 'app.d.ts'], memoryIo(dir, { NO_COLOR: '1' }).io)).toBe(0);
    const shapes = readFileSync(path.join(dir, 'shapes.d.ts'), 'utf8');
    expect(shapes).toContain(
      [
        '/** Input of `shape.pick` (src/pick.md). Translated from its independent JSON Schema `document`; `unknown` where it does not translate. */',
        'export type ShapePickInput = {',
        '  from: {',
        '    x: number;',
        '    y: number;',
        '  };',
        '  label?: string | null;',
        '  kind?: "a" | "b";',
        '  tree?: {',
        '    children?: unknown[];',
        '    [key: string]: unknown;',
        '  };',
        '  odd?: unknown;',
        '  [key: string]: unknown;',
        '};',
        '/** Output of `shape.pick`. */',
        'export type ShapePickOutput = {',
        '  area: number;',
        '  "unit-name"?: 1 | "cm" | null;',
        '} | {',
        '  count?: number;',
        '  [key: string]: number | undefined;',
        '} | (string | boolean)[] | Record<string, never>;',
      ].join('\n'),
    );
    expect(shapes).toContain('export interface BerryAgents {\n  picker: BerryRoutines["shape.pick"];\n}\n');
    expect(readFileSync(path.join(dir, 'app.d.ts'), 'utf8')).toContain('  library?: unknown /* !ref textlib */;\n');
    writeFiles(dir, {
      'use.ts': [
        "import type { ShapePickInput, ShapePickOutput } from './shapes.js';",
        "import type { GreetInput } from './app.js';",
        "export const input: ShapePickInput = { from: { x: 1, y: 2 }, label: null, kind: 'b', tree: { children: [{}] } };",
        "export const outputs: ShapePickOutput[] = [{ area: 2, 'unit-name': 'cm' }, { count: 3, other: 4 }, ['x', true], {}];",
        "export const greet: GreetInput = { name: 'Ada', library: { anything: 1 } };",
        '',
      ].join('\n'),
    });
    const checked = typeCheck(dir, ['use.ts']);
    expect(checked.output).toBe('');
    expect(checked.code).toBe(0);
  });

  it('writes nothing and exits 1 when the package has errors', async () => {
    const dir = copyFixtures(['notebook']);
    const compose = path.join(dir, 'notebook/routines/notes/compose.md');
    writeFiles(dir, { 'notebook/routines/notes/compose.md': readFileSync(compose, 'utf8').replace('    - tags\n', '    - tags\n    - title\n') });
    const io = memoryIo(dir, { NO_COLOR: '1' });
    expect(await run(['types', 'notebook', '--json'], io.io)).toBe(1);
    const json = JSON.parse(io.output()) as { ok: boolean; diagnostics: { code: string }[] };
    expect(json.ok).toBe(false);
    expect(json.diagnostics.map((d) => d.code)).toContain('BP1271');
    expect(() => statSync(path.join(dir, 'notebook/berrypack-env.d.ts'))).toThrow();
  });
});
