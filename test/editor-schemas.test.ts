import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import { describe, expect, it } from 'vitest';
import { checkSource } from '../packages/compiler/src/index.js';
import { editorSchemaFiles } from '../packages/compiler/src/authoring/json-schemas.js';
import { readManifest } from '../packages/compiler/src/manifest/read-manifest.js';
import { parseSource } from '../packages/compiler/src/source/parse-source.js';
import { toJson } from '../packages/compiler/src/source/yaml-tree.js';
import { ROOT } from './support/cli.js';

const SCHEMAS = path.join(ROOT, 'packages/compiler/schemas');

function filesUnder(dir: string, match: (name: string) => boolean): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && match(e.name) && !e.parentPath.includes('node_modules') && !e.parentPath.includes(`${path.sep}dist`))
    .map((e) => path.join(e.parentPath, e.name))
    .sort();
}

const ajv = new Ajv({ strict: false, allErrors: true });
/** Compiled on first use, after the drift test (which may have just written the files). */
function validator(name: string): ValidateFunction {
  let compiled: ValidateFunction | undefined;
  const validate = ((data: unknown) => {
    compiled ??= ajv.compile(JSON.parse(readFileSync(path.join(SCHEMAS, name), 'utf8')));
    const ok = compiled(data) as boolean;
    validate.errors = compiled.errors ?? null;
    return ok;
  }) as ValidateFunction;
  return validate;
}

/** The frontmatter exactly as the checker reads it (YAML 1.2 core, `!ref` as `{"!ref": name}`), or undefined when it does not parse. */
function frontmatterOf(file: string, text: string): unknown {
  const parsed = parseSource(file, text);
  return parsed.status === 'source' && parsed.source.frontmatter ? toJson(parsed.source.frontmatter) : undefined;
}

const errorsOf = (file: string, text: string) => checkSource(file, text, { requireSource: true }).diagnostics.filter((d) => d.severity === 'error');

describe('editor JSON Schemas', () => {
  it('are the files generated from the compiler tables (npm run schemas rewrites them)', () => {
    const generated = editorSchemaFiles();
    if (process.env.UPDATE_SCHEMAS) {
      mkdirSync(SCHEMAS, { recursive: true });
      for (const [name, text] of Object.entries(generated)) writeFileSync(path.join(SCHEMAS, name), text);
    }
    // Compared as JSON values, so a formatter's line breaks in the files do not count as drift.
    const shipped = Object.fromEntries(
      readdirSync(SCHEMAS)
        .filter((f) => f.endsWith('.json'))
        .map((f) => [f, JSON.parse(readFileSync(path.join(SCHEMAS, f), 'utf8'))]),
    );
    expect(shipped).toEqual(Object.fromEntries(Object.entries(generated).map(([f, text]) => [f, JSON.parse(text)])));
  });

  const routine = validator('routine.schema.json');
  const byKind = {
    model: validator('routine-model.schema.json'),
    code: validator('routine-code.schema.json'),
    instructions: validator('routine-instructions.schema.json'),
  };
  const sources = filesUnder(path.join(ROOT, 'fixtures'), (n) => n.endsWith('.md')).filter((f) => readFileSync(f, 'utf8').startsWith('---'));

  it('accept the frontmatter of every routine the checker accepts, and refuse every broken one the checker refuses for its shape', () => {
    let accepted = 0;
    let refused = 0;
    for (const file of sources) {
      const text = readFileSync(file, 'utf8');
      const data = frontmatterOf(file, text);
      const errors = errorsOf(file, text);
      const rel = path.relative(ROOT, file);
      if (data === undefined) {
        expect(errors.length, `${rel}: frontmatter that does not parse is an error`).toBeGreaterThan(0);
        continue;
      }
      const ok = routine(data);
      if (errors.length === 0) {
        expect(ok, `${rel}: ${JSON.stringify(routine.errors)}`).toBe(true);
        const kind = checkSource(file, text).routine!.kind;
        expect(byKind[kind](data), `${rel} as ${kind}`).toBe(true);
        accepted++;
      } else {
        expect(ok, `${rel}: the checker reports ${errors.map((e) => e.rule).join(', ')}`).toBe(false);
        refused++;
      }
    }
    expect(accepted).toBeGreaterThan(40);
    expect(refused).toBeGreaterThanOrEqual(2);
  });

  /** Mistakes applied to every valid fixture: the checker and the schema must both refuse each. */
  const MUTATIONS: [string, (fm: string, kind: string) => string | undefined][] = [
    ['an unknown field (SRC-3)', (fm) => `${fm}\ncolour: red`],
    ['a schema keyword at the top level (SRC-3)', (fm) => `${fm}\nadditionalProperties: false`],
    ['a field of another kind (KIND-1)', (fm, kind) => (kind === 'code' ? `${fm}\ncompaction:\n  max_tokens: 10\n  keep_turns: 1` : `${fm}\ncatalog: true`)],
    ['a bad visibility', (fm, kind) => (kind === 'instructions' ? undefined : `${fm.replace(/^visibility:.*\n?/m, '')}\nvisibility: secret`)],
    ['no description (SRC-8)', (fm) => fm.replace(/^description:.*(\n([ \t]+|-).*)*/m, '')],
    ['a name with a space (NAME-1)', (fm) => fm.replace(/^name:.*$/m, 'name: two words')],
    ['an env. name (NAME-2)', (fm) => fm.replace(/^name:.*$/m, 'name: env.secret')],
    ['a string for tools (TOOL-1)', (fm, _kind) => `${fm.replace(/^tools:.*(\n([ \t]+|-).*)*/m, '')}\ntools: notes.compose`],
    [
      'a port with nothing open (PORT-1)',
      (fm, kind) =>
        kind === 'instructions'
          ? undefined
          : `${fm.replace(/^port:.*(\n([ \t]+|-).*)*/m, '')}\nport:\n  input: false\n  output: false\n  limits:\n    bytes: 1\n    messages: 1\n    pending: 1`,
    ],
    [
      'a keyword outside the native profile (SCH-4)',
      (fm, kind) => (kind === 'instructions' ? undefined : `${fm.replace(/^input:.*(\n([ \t]+|-).*)*/m, '')}\ninput:\n  type: object\n  minProperties: 1`),
    ],
    ['both select and provider (MDL-1)', (fm, kind) => (kind === 'model' ? fm.replace(/^model:\n/m, 'model:\n  provider: acme\n') : undefined)],
  ];

  it('refuse the same mistakes as the checker, made in every valid fixture', () => {
    let cases = 0;
    for (const file of sources) {
      const text = readFileSync(file, 'utf8');
      if (errorsOf(file, text).length) continue;
      const kind = checkSource(file, text).routine!.kind;
      const m = /^---\n([\s\S]*?)\n---\n/.exec(text)!;
      for (const [what, mutate] of MUTATIONS) {
        const fm = mutate(m[1]!, kind);
        if (fm === undefined) continue;
        const broken = `---\n${fm}\n---\n${text.slice(m[0].length)}`;
        const rel = `${path.relative(ROOT, file)} with ${what}`;
        expect(errorsOf(file, broken).length, `${rel}: the checker`).toBeGreaterThan(0);
        const data = frontmatterOf(file, broken);
        expect(data, rel).toBeDefined();
        expect(routine(data), `${rel}: the schema`).toBe(false);
        cases++;
      }
    }
    expect(cases).toBeGreaterThan(300);
  });

  const plugin = validator('plugin.schema.json');
  const manifests = filesUnder(path.join(ROOT, 'fixtures'), (n) => n === 'plugin.json');

  it('accept every plugin.json the checker accepts, and refuse the same manifest mistakes', () => {
    const errors = (file: string, text: string) => readManifest(file, Buffer.from(text)).diagnostics.filter((d) => d.severity === 'error');
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each case mutates a different shape of manifest
    const mistakes: [string, (m: any) => void][] = [
      ['version 1 as a number', (m) => (m.version = 1)],
      ['an upper-case name', (m) => (m.name = 'Example.Notes')],
      ['no $schema', (m) => delete m.$schema],
      ['an unknown extension field', (m) => (m.extensions['ai.strawberry.berry'].permissions = ['x'])],
      [
        'an agent without entry',
        (m) => {
          const b = m.extensions['ai.strawberry.berry'];
          b.agents = { a: { title: 'A', description: 'B' } };
        },
      ],
      [
        'an import with two targets',
        (m) => (m.extensions['ai.strawberry.berry'].imports = [{ name: 'x', manifest: '../x/plugin.json', bundle: 'x.berry.json' }]),
      ],
      ['a resource without mimeType', (m) => (m.extensions['ai.strawberry.berry'].resources = [{ uri: 'app://x', path: 'x.txt' }])],
    ];
    expect(manifests.length).toBeGreaterThanOrEqual(10);
    for (const file of manifests) {
      const text = readFileSync(file, 'utf8');
      const rel = path.relative(ROOT, file);
      expect(errors(file, text), rel).toEqual([]);
      expect(plugin(JSON.parse(text)), `${rel}: ${JSON.stringify(plugin.errors)}`).toBe(true);
      for (const [what, mutate] of mistakes) {
        const m = JSON.parse(text);
        mutate(m);
        const broken = JSON.stringify(m, null, 2);
        expect(errors(file, broken).length, `${rel} with ${what}: the checker`).toBeGreaterThan(0);
        expect(plugin(m), `${rel} with ${what}: the schema`).toBe(false);
      }
    }
  });
});
