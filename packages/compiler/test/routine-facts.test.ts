import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { trustedJson } from '../src/bundle/canonical-json.js';
import { NOT_SORTABLE, sortedJson } from '../src/json/sorted-json.js';
import { compactRoutine } from '../src/package/compact-routine.js';
import { SourceCache } from '../src/package/cache/source-cache.js';
import { modelSelection, sessionCalls } from '../src/reference/requirements.js';
import { checkSource, type RoutineSource } from '../src/routine/check-routine.js';
import { inputMayBeMissing, inputMayBeMissingJson } from '../src/body/template-path.js';
import { parseSingularPath } from '../src/reference/jsonpath.js';
import { COPIED_FIELDS, copiedWire, fieldJson, fieldKeySpan } from '../src/routine/routine-facts.js';
import { entry, toJson } from '../src/source/yaml-tree.js';

const FIXTURES = fileURLToPath(new URL('../../../fixtures/', import.meta.url));

/** Every `.md` file under the fixtures that checks without errors. */
function cleanFixtureSources(): RoutineSource[] {
  const out: RoutineSource[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const file = path.join(dir, name);
      if (statSync(file).isDirectory()) walk(file);
      else if (name.endsWith('.md')) {
        const checked = checkSource(file, readFileSync(file));
        if (checked.status === 'source' && checked.routine) out.push(checked.routine);
      }
    }
  };
  walk(FIXTURES);
  return out;
}

const source = (frontmatter: string, body = 'Answer.\n') => checkSource('/pkg/a.md', `---\n${frontmatter}---\n${body}`);

const PATHS = ['$.input', '$.input.goal', '$.input.q', '$.input.to', '$.input.items[0]', '$.input.a.b', '$.input["10"]', '$.input.text', '$.input[1]'].map(
  (text) => {
    const parsed = parseSingularPath(text);
    if (!parsed.ok) throw new Error(text);
    return parsed.path;
  },
);

const TRICKY = [
  'name: a.nested\ndescription: Nested.\nmodel:\n  select:\n    operation: generation\ninput:\n  type: object\n  required: [a, items]\n  properties:\n    a:\n      type: object\n      required: [b]\n      properties:\n        b:\n          type: string\n    items:\n      type: array\n      minItems: 1\n      items:\n        type: string\n',
  'name: a.document\ndescription: Document.\nmodel:\n  select:\n    operation: generation\ninput:\n  type: object\n  document: \'{"type":"object","required":["q"],"properties":{"q":{"type":"string"}}}\'\n',
  // A `!ref` in a schema's enum: resolution reports on it, so `input` keeps its tree.
  'name: a.refs\ndescription: Refs.\nmodel:\n  select:\n    operation: generation\ninput:\n  type: object\n  properties:\n    to:\n      enum:\n        - !ref a.other\n',
  'name: a.pick\ndescription: Pick.\nmodel:\n  select:\n    operation: classification\noutput:\n  type: object\n  additionalProperties: false\n  required: [label]\n  properties:\n    label:\n      enum: [x, y]\n',
  'name: a.fixed\ntitle: Fixed model\ndescription: Fixed.\nmodel:\n  provider: acme\n  id: m1\n',
  'name: a.digits\ndescription: Digits.\nmodel:\n  select:\n    operation: generation\ninput:\n  type: object\n  properties:\n    "10":\n      type: string\n    "9":\n      type: string\n',
];

describe('routine facts: what a build keeps of a checked source instead of its copied fields’ trees', () => {
  const routines = [
    ...cleanFixtureSources(),
    ...TRICKY.map((fm) => {
      const checked = source(fm);
      expect(checked.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      return checked.routine!;
    }),
  ];

  it('answers every field, key position, canonical text, selection and session calls as the whole tree does', () => {
    expect(routines.length).toBeGreaterThan(20);
    let copied = 0;
    let answered = 0;
    for (const routine of routines) {
      const compact = compactRoutine(routine);
      const label = `${routine.file} ${routine.name}`;
      expect(compact.facts, label).toBeDefined();
      for (const e of routine.frontmatter.entries) {
        expect(fieldJson(compact, e.key), `${label} ${e.key}`).toEqual(toJson(e.value));
        expect(fieldKeySpan(compact, e.key), `${label} ${e.key}`).toEqual(e.keySpan);
        if (!COPIED_FIELDS.has(e.key)) continue;
        copied++;
        const sorted = sortedJson(e.value);
        expect(copiedWire(compact, e.key), `${label} ${e.key}`).toEqual({ wire: sorted === NOT_SORTABLE ? undefined : trustedJson(sorted) });
      }
      expect(fieldJson(compact, 'absent')).toBeUndefined();
      expect(modelSelection(compact), label).toEqual(modelSelection(routine));
      expect(sessionCalls(compact), label).toEqual(sessionCalls(routine));
      // TPL-3's input check reads the JSON value as it reads the tree, for every path tried.
      const input = entry(routine.frontmatter, 'input')?.value;
      for (const path of PATHS) {
        const fromTree = inputMayBeMissing(path, input);
        expect(inputMayBeMissingJson(path, fieldJson(compact, 'input')), `${label} ${JSON.stringify(path)}`).toBe(fromTree);
        if (fromTree === undefined) answered++;
      }
    }
    expect(copied).toBeGreaterThan(50);
    // Some paths are safe somewhere: the comparison is not only of refusals.
    expect(answered).toBeGreaterThan(3);
  });

  it('lets the copied fields’ trees go, keeping what resolution reports on', () => {
    const byName = new Map(routines.map((r) => [r.name, compactRoutine(r)]));
    const keys = (name: string) => byName.get(name)!.frontmatter.entries.map((e) => e.key);
    // `name` stays (its own diagnostics were made; nothing reads it again but it is one scalar), the copied fields go.
    expect(keys('a.pick')).toEqual(['name']);
    expect(keys('a.fixed')).toEqual(['name']);
    expect(keys('a.refs')).toEqual(['name', 'input']);
    expect(byName.get('a.pick')!.facts!.classification).toBe(true);
    expect(byName.get('a.fixed')!.facts!.classification).toBe(false);
    // The fixtures' voice and bounded sessions (MDL-7, MDL-8) keep their calls.
    expect(routines.filter((r) => r.facts === undefined && compactRoutine(r).facts!.calls.length > 0).length).toBeGreaterThanOrEqual(2);
    expect(byName.get('a.digits')!.facts!.copied.find((f) => f.key === 'input')!.wire).toBeUndefined();
  });

  it('is what the compiler’s source cache keeps for a clean source, and not for one with errors', () => {
    const cache = new SourceCache(true);
    const clean = cache.check('/pkg/a.md', new TextEncoder().encode(`---\n${TRICKY.find((fm) => fm.startsWith('name: a.pick'))!}---\nHello.\n`));
    expect(clean.routine!.facts).toBeDefined();
    expect(clean.routine!.frontmatter.entries.map((e) => e.key)).toEqual(['name']);
    const broken = cache.check(
      '/pkg/b.md',
      new TextEncoder().encode('---\nname: a.broken\ndescription: 5\nmodel:\n  select:\n    operation: generation\n---\nHello.\n'),
    );
    expect(broken.status).toBe('invalid');
    expect(broken.routine!.facts).toBeUndefined();
    expect(broken.routine!.frontmatter.entries.map((e) => e.key)).toEqual(['name', 'description', 'model']);
  });
});
