import { cpSync, mkdirSync, readFileSync, realpathSync, rmSync, statSync, utimesSync, writeFileSync, type Stats } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCompiler, nodeHost, type BuildResult, type Compiler, type CompilerHost, type CompilerStats } from '@berrypack/compiler';
import { ROOT } from './support/cli.js';
import { FUZZ_SEED, runs, scaledTimeout } from './support/fuzz.js';
import { cleanup, listFiles, tempDir } from './support/temp.js';

/**
 * Incremental rebuilds are exactly fresh builds. One long-lived compiler (read cache, source
 * cache, code-routine cache, resolution memo, fragment cache) builds a real package while
 * random edits land on disk; after every edit its result must be the one a brand-new
 * compiler gives: the same `ok`, diagnostics, bundle bytes, summary, files and directories.
 * Edits are data ({kind, a, b}) interpreted against the package's current state, so any
 * sequence applies (an edit that cannot apply is a no-op) and fast-check shrinks a failure
 * to a short recipe. Seeded (the hardening fuzzers' seed and scale: BERRYPACK_FUZZ_SEED,
 * BERRYPACK_FUZZ_SCALE), so a failure reproduces.
 */

const SEED = FUZZ_SEED;
const NOTEBOOK_RUNS = runs(40);
const GENERATED_RUNS = runs(6);
const COARSE_RUNS = runs(20);

const root = tempDir('berrypack-incremental-');
const store = path.join(root, 'store');
afterAll(() => cleanup(root));

// ---------------------------------------------------------------------------------------
// Workspaces: copies of a real package, prepared ahead and aged past the read cache's racy
// window (100 ms), so the long-lived compiler serves unchanged files from memory from its
// first rebuild on. A copy made later (while shrinking) is simply racy for a while.

type Template = 'notebook' | 'generated';

interface Workspace {
  dir: string;
  manifest: string;
  /** The package as it was first, by relative path, to restore files from. */
  pristine: ReadonlyMap<string, Buffer>;
  /** For unique names and texts; restarts with each workspace, so a sequence replays identically. */
  serial: number;
}

const templates = new Map<Template, { dir: string; pristine: Map<string, Buffer> }>();
/** Aged copies by pool: one per property, one for the spelled-out cases (whose read counts need aged files). */
const pools = new Map<string, string[]>();
let copies = 0;

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function copyOf(template: Template): string {
  const t = templates.get(template)!;
  const dir = path.join(root, `${template}-${++copies}`);
  cpSync(t.dir, dir, { recursive: true });
  return dir;
}

function prepare(template: Template, pool: string, count: number): void {
  pools.set(
    pool,
    Array.from({ length: count }, () => copyOf(template)),
  );
}

function takeWorkspace(template: Template, pool: string = template): Workspace {
  const dir = pools.get(pool)?.pop() ?? copyOf(template);
  return { dir, manifest: path.join(dir, 'plugin.json'), pristine: templates.get(template)!.pristine, serial: 0 };
}

beforeAll(async () => {
  const generate = (await import(pathToFileURL(path.join(ROOT, 'bench/generate.mjs')).href)) as { generatePackage(dir: string, n: number): string[] };
  const notebook = path.join(root, 'template-notebook');
  cpSync(path.join(ROOT, 'fixtures/notebook'), notebook, { recursive: true });
  const generated = path.join(root, 'template-generated');
  generate.generatePackage(generated, 100);
  for (const [name, dir] of [
    ['notebook', notebook],
    ['generated', generated],
  ] as const) {
    templates.set(name, { dir, pristine: new Map(listFiles(dir).map((rel) => [rel, readFileSync(path.join(dir, rel))])) });
  }
  // Capped for long runs (BERRYPACK_FUZZ_SCALE): later sequences start on a fresh, racy copy.
  prepare('notebook', 'notebook', Math.min(NOTEBOOK_RUNS, 100));
  prepare('generated', 'generated', Math.min(GENERATED_RUNS, 12));
  prepare('notebook', 'notebook-coarse', Math.min(COARSE_RUNS, 50));
  prepare('notebook', 'notebook-cases', 10);
  prepare('generated', 'generated-cases', 3);
  sleep(150);
});

// ---------------------------------------------------------------------------------------
// The package's current state, read from disk

type Kind = 'model' | 'code' | 'instructions';

interface Source {
  rel: string;
  text: string;
  kind: Kind;
  name: string | undefined;
  /** Frontmatter text between the fences, ending with a newline. */
  fm: string;
  body: string;
}

function parseSource(rel: string, text: string): Source | undefined {
  if (!text.startsWith('---\n')) return undefined;
  const close = text.indexOf('\n---\n', 3);
  if (close < 0) return undefined;
  const fm = text.slice(4, close + 1);
  const kind: Kind = /^language:/m.test(fm) ? 'code' : /^model:/m.test(fm) ? 'model' : 'instructions';
  return { rel, text, kind, name: /^name:[ \t]*(\S+)[ \t]*$/m.exec(fm)?.[1], fm, body: text.slice(close + 5) };
}

function compose(fm: string, body: string): string {
  return `---\n${fm}---\n${body}`;
}

function filesOf(ws: Workspace): string[] {
  return listFiles(ws.dir);
}

function sourcesOf(ws: Workspace, kind?: Kind): Source[] {
  const out: Source[] = [];
  for (const rel of filesOf(ws)) {
    if (!rel.startsWith('routines/') || !rel.endsWith('.md')) continue;
    const s = parseSource(rel, readText(ws, rel));
    if (s && (kind === undefined || s.kind === kind)) out.push(s);
  }
  return out;
}

function modulesOf(ws: Workspace): string[] {
  return filesOf(ws).filter((rel) => rel.startsWith('routines/') && rel.endsWith('.js'));
}

function namesOf(ws: Workspace, kind?: Kind): string[] {
  return [...new Set(sourcesOf(ws, kind).flatMap((s) => (s.name === undefined ? [] : [s.name])))].sort();
}

function readText(ws: Workspace, rel: string): string {
  return readFileSync(path.join(ws.dir, rel), 'utf8');
}

function write(ws: Workspace, rel: string, text: string | Buffer): void {
  const file = path.join(ws.dir, rel);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

function appendBody(s: Source, line: string): string {
  return s.text + (s.text.endsWith('\n') ? '' : '\n') + line + '\n';
}

function pick<T>(items: readonly T[], n: number): T | undefined {
  return items.length === 0 ? undefined : items[n % items.length];
}

/** `./x.js`-style specifier from the directory of `fromRel` to `toRel`. */
function specifier(fromRel: string, toRel: string): string {
  const rel = path.posix.relative(path.posix.dirname(fromRel), toRel);
  return rel.startsWith('.') ? rel : `./${rel}`;
}

// ---------------------------------------------------------------------------------------
// Edits

const KINDS = [
  'model-body',
  'instructions-body',
  'code-body',
  'description',
  'tool',
  'rename',
  'schema',
  'module',
  'add-routine',
  'delete-routine',
  'include-cycle',
  'input-template',
  'same-size',
  'touch',
  'manifest',
  'restore',
  'wait',
] as const;
type EditKind = (typeof KINDS)[number];

/** `a` picks the target, `b` the variant; both are read modulo what the current state offers. */
interface Edit {
  kind: EditKind;
  a: number;
  b: number;
}

const WEIGHTS: Record<EditKind, number> = {
  'model-body': 4,
  'instructions-body': 3,
  'code-body': 3,
  description: 2,
  tool: 2,
  rename: 2,
  schema: 2,
  module: 3,
  'add-routine': 2,
  'delete-routine': 1,
  'include-cycle': 1,
  'input-template': 2,
  'same-size': 3,
  touch: 2,
  manifest: 2,
  restore: 4,
  wait: 1,
};

const editArb: fc.Arbitrary<Edit> = fc.record({
  kind: fc.oneof(...KINDS.map((k) => ({ arbitrary: fc.constant(k), weight: WEIGHTS[k] }))),
  a: fc.nat(1_000),
  b: fc.nat(1_000),
});

/**
 * Applies `edit` to the files of `ws` and says what it did. `rebuild` is the long-lived
 * compiler's build, for the edit that must land right after one (the racy-stamp case).
 */
function apply(ws: Workspace, edit: Edit, rebuild: () => void): string {
  const u = ++ws.serial;
  const { a, b } = edit;
  switch (edit.kind) {
    case 'model-body': {
      const s = pick(sourcesOf(ws, 'model'), a);
      if (!s) return 'no-op (no model routine)';
      const instructions = namesOf(ws, 'instructions');
      const others = namesOf(ws).filter((n) => n !== s.name);
      const variants = [
        `Also mention detail ${u}.`,
        `Consider {{ $.input.extra${u} }} as well.`,
        instructions.length > 0 ? `{{${pick(instructions, u)!}}}` : `Plain text ${u}.`,
        others.length > 0 ? `See [[${pick(others, u)!}]].` : `Plain text ${u}.`,
        `{{ missing.include${u} }}`,
      ];
      const line = variants[b % variants.length]!;
      write(ws, s.rel, appendBody(s, line));
      return `append ${JSON.stringify(line)} to the body of model ${s.rel}`;
    }
    case 'instructions-body': {
      const s = pick(sourcesOf(ws, 'instructions'), a);
      if (!s) return 'no-op (no instructions routine)';
      const others = namesOf(ws, 'instructions').filter((n) => n !== s.name);
      const variants = [
        `Keep rule ${u} in mind.`,
        others.length > 0 ? `{{${pick(others, u)!}}}` : `Rule ${u}.`,
        `{{ missing.include${u} }}`,
        `Mind the [[${pick(namesOf(ws), u) ?? 'converse'}]] routine.`,
      ];
      const line = variants[b % variants.length]!;
      write(ws, s.rel, appendBody(s, line));
      return `append ${JSON.stringify(line)} to the body of instructions ${s.rel}`;
    }
    case 'input-template': {
      const s = pick(sourcesOf(ws, 'instructions'), a);
      if (!s) return 'no-op (no instructions routine)';
      const field = pick(['text', 'message', 'question', 'goal', `x${u}`], b)!;
      const line = `Context: {{ $.input.${field} }}`;
      write(ws, s.rel, appendBody(s, line));
      return `append ${JSON.stringify(line)} to the body of instructions ${s.rel}`;
    }
    case 'code-body': {
      const s = pick(sourcesOf(ws, 'code'), a);
      if (!s) return 'no-op (no code routine)';
      const module = pick(modulesOf(ws), u);
      const variants = [
        { what: 'valid JavaScript', text: appendBody(s, `export const extra${u} = ${u};`) },
        { what: 'a comment', text: appendBody(s, `// Note ${u}.`) },
        { what: 'a syntax error', text: appendBody(s, `export const = ${u};`) },
        module
          ? { what: `an import of ${module}`, text: compose(s.fm, `import * as m${u} from '${specifier(s.rel, module)}';\n${s.body}`) }
          : { what: 'a missing import', text: compose(s.fm, `import * as m${u} from './gone${u}.js';\n${s.body}`) },
        { what: 'a missing import', text: compose(s.fm, `import { nope } from './nope${u}.js';\n${s.body}`) },
        { what: 'a body without a default export', text: compose(s.fm, `export function helper${u}() {\n  return ${u};\n}\n`) },
      ];
      const v = variants[b % variants.length]!;
      write(ws, s.rel, v.text);
      return `code routine ${s.rel}: ${v.what}`;
    }
    case 'description': {
      const s = pick(sourcesOf(ws), a);
      if (!s) return 'no-op (no routine)';
      if (b % 5 === 4) {
        // Moves every frontmatter line, `name` too, which diagnostics elsewhere may point at.
        write(ws, s.rel, compose(`title: Inserted title ${u}\n${s.fm.replace(/^title:.*\n/m, '')}`, s.body));
        return `insert a title line above the name of ${s.rel}`;
      }
      const value = pick([`Edited description ${u}.`, `"Quoted description ${u}."`, '', `Edited again ${u}: still valid.`], b)!;
      const fm = /^description:.*$/m.test(s.fm) ? s.fm.replace(/^description:.*$/m, `description: ${value}`.trimEnd()) : `${s.fm}description: ${value}\n`;
      write(ws, s.rel, compose(fm, s.body));
      return `description of ${s.rel} → ${JSON.stringify(value)}`;
    }
    case 'tool': {
      const s = pick(sourcesOf(ws, 'model'), a);
      if (!s) return 'no-op (no model routine)';
      const existing = [...namesOf(ws, 'model'), ...namesOf(ws, 'code')].filter((n) => n !== s.name);
      // A short name (`rank`) from another namespace may be ambiguous: its error points at both declarations.
      const tool = b % 3 === 0 || existing.length === 0 ? `missing.tool${u}` : b % 3 === 1 ? pick(existing, u)! : pick(existing, u)!.split('.').pop()!;
      let fm: string;
      if (/^tools:[ \t]*\[\][ \t]*$/m.test(s.fm)) fm = s.fm.replace(/^tools:[ \t]*\[\][ \t]*$/m, `tools:\n  - ${tool}`);
      else if (/^tools:[ \t]*\n {2}- [\w.-]+/m.test(s.fm)) fm = s.fm.replace(/^(tools:[ \t]*\n {2}- )[\w.-]+/m, `$1${tool}`);
      else if (!/^tools:/m.test(s.fm)) fm = `${s.fm}tools:\n  - ${tool}\n`;
      else return `no-op (tools of ${s.rel} not in a known shape)`;
      write(ws, s.rel, compose(fm, s.body));
      return `first tool of ${s.rel} → ${tool}`;
    }
    case 'rename': {
      const s = pick(
        sourcesOf(ws).filter((x) => x.name !== undefined),
        a,
      );
      if (!s) return 'no-op (no named routine)';
      const others = namesOf(ws).filter((n) => n !== s.name);
      const name = pick([`${s.name!}${u}`, `${s.name!}-v${u}`, pick(others, u) ?? `${s.name!}${u}`, `Not A Name ${u}`], b)!;
      write(ws, s.rel, compose(s.fm.replace(/^name:.*$/m, `name: ${name}`), s.body));
      return `rename ${s.name!} (${s.rel}) → ${JSON.stringify(name)}`;
    }
    case 'schema': {
      // What other routines observe of one: `next` mappings and tool options are checked against its schemas.
      const s = pick(
        sourcesOf(ws).filter((x) => x.kind !== 'instructions' && /^(input|output):[ \t]*\n/m.test(x.fm)),
        a,
      );
      if (!s) return 'no-op (no routine with a schema)';
      const key = /^input:/m.test(s.fm) && (b % 4 < 2 || !/^output:/m.test(s.fm)) ? 'input' : 'output';
      const block = new RegExp(`^${key}:[ \\t]*\\n((?: {2}.*\\n)*)`, 'm').exec(s.fm);
      if (!block) return `no-op (no ${key} block in ${s.rel})`;
      let schema = block[1]!;
      let what: string;
      if (b % 2 === 0) {
        schema = /^ {2}required:[ \t]*\n/m.test(schema)
          ? schema.replace(/^ {2}required:[ \t]*\n/m, `  required:\n    - extra${u}\n`)
          : `${schema}  required:\n    - extra${u}\n`;
        what = `require a new ${key} property extra${u}`;
      } else {
        const types = /^( {6}type: )(\w+)$/m.exec(schema);
        if (!types) return `no-op (no property type in the ${key} of ${s.rel})`;
        const next = types[2] === 'string' ? 'integer' : 'string';
        schema = schema.replace(/^( {6}type: )\w+$/m, `$1${next}`);
        what = `change the first ${key} property's type to ${next}`;
      }
      write(ws, s.rel, compose(s.fm.slice(0, block.index) + `${key}:\n${schema}` + s.fm.slice(block.index + block[0].length), s.body));
      return `${s.rel}: ${what}`;
    }
    case 'module': {
      const rel = pick(modulesOf(ws), a);
      if (!rel) return 'no-op (no supporting module)';
      const text = readText(ws, rel);
      switch (b % 6) {
        case 0:
          write(ws, rel, `${text}\nexport const extra${u} = ${u};\n`);
          return `module ${rel}: append a valid export`;
        case 5:
          write(ws, rel, `// Revision ${u}.\n${text}`);
          return `module ${rel}: prepend a comment`;
        case 1:
          write(ws, rel, `import { nope${u} } from './nope${u}.js';\n${text}`);
          return `module ${rel}: add a broken import`;
        case 2:
          rmSync(path.join(ws.dir, rel));
          return `module ${rel}: delete`;
        case 3:
          write(ws, rel, `${text}\nexport function (${u} {\n`);
          return `module ${rel}: add a syntax error`;
        default:
          write(ws, rel, text.replace('return', `return ${u} * 0 +`));
          return `module ${rel}: change a return statement`;
      }
    }
    case 'add-routine': {
      const twinOf = pick(namesOf(ws), a);
      if (b % 5 === 4 && twinOf !== undefined) {
        // The same last segment in another namespace: short references to it become ambiguous.
        const segment = twinOf.split('.').pop()!;
        const rel = `routines/twin${u}/${segment}.md`;
        write(
          ws,
          rel,
          compose(
            `name: twin${u}.${segment}\ndescription: Twin of ${twinOf}.\nlanguage: javascript\n`,
            'export default function run(input) {\n  return input;\n}\n',
          ),
        );
        return `add code routine twin${u}.${segment} at ${rel}, a twin of ${twinOf}`;
      }
      const dirs = [...new Set(sourcesOf(ws).map((s) => path.posix.dirname(s.rel)))].sort();
      const dir = b % 4 === 3 || dirs.length === 0 ? `routines/added${u}` : pick(dirs, a)!;
      const ns = dir === 'routines' ? '' : `${path.posix.basename(dir)}.`;
      const name = `${ns}added${u}`;
      const rel = `${dir}/added${u}.md`;
      const instructions = pick(namesOf(ws, 'instructions'), u);
      const code = pick(namesOf(ws, 'code'), u);
      const module = pick(modulesOf(ws), u);
      const kind = (['model', 'instructions', 'code'] as const)[b % 3]!;
      if (kind === 'model') {
        const tools = code ? `tools:\n  - ${code}\n` : '';
        write(
          ws,
          rel,
          compose(
            `name: ${name}\ndescription: Added model ${u}.\nmodel:\n  select:\n    operation: generation\ninput:\n  type: object\n  required:\n    - goal\n  properties:\n    goal:\n      type: string\n${tools}`,
            `Added ${u}: {{ $.input.goal }}\n${instructions ? `{{${instructions}}}\n` : ''}`,
          ),
        );
      } else if (kind === 'instructions') {
        write(ws, rel, compose(`name: ${name}\ndescription: Added instructions ${u}.\n`, `Keep answers short (${u}).\n`));
      } else {
        const imports = module ? `import * as lib from '${specifier(rel, module)}';\n\n` : '';
        write(
          ws,
          rel,
          compose(
            `name: ${name}\ndescription: Added code ${u}.\nlanguage: javascript\n`,
            `${imports}export default function run(input) {\n  return input;\n}\n`,
          ),
        );
      }
      return `add ${kind} routine ${name} at ${rel}`;
    }
    case 'delete-routine': {
      const s = pick(sourcesOf(ws), a);
      if (!s) return 'no-op (no routine)';
      rmSync(path.join(ws.dir, s.rel));
      return `delete routine ${s.rel}`;
    }
    case 'include-cycle': {
      const all = sourcesOf(ws, 'instructions').filter((s) => s.name !== undefined);
      const first = pick(all, a);
      if (!first) return 'no-op (no named instructions)';
      let second = pick(
        all.filter((s) => s.rel !== first.rel),
        b,
      );
      if (!second) {
        const rel = `routines/cycle${u}/c.md`;
        write(ws, rel, compose(`name: cycle${u}.c\ndescription: Cycle partner ${u}.\n`, 'Partner text.\n'));
        second = parseSource(rel, readText(ws, rel))!;
      }
      write(ws, first.rel, appendBody(first, `{{${second.name!}}}`));
      write(ws, second.rel, appendBody(second, `{{${first.name!}}}`));
      return `include cycle ${first.name!} (${first.rel}) ⇄ ${second.name!} (${second.rel})`;
    }
    case 'same-size': {
      const rel = pick(filesOf(ws), a);
      if (!rel) return 'no-op (no file)';
      const replaceOne = (text: string, n: number, shift: number): string | undefined => {
        const positions: number[] = [];
        for (let i = 0; i < text.length; i++) if (text[i]! >= 'a' && text[i]! <= 'z') positions.push(i);
        const at = pick(positions, n);
        if (at === undefined) return undefined;
        const next = String.fromCharCode(97 + ((text.charCodeAt(at) - 97 + 1 + (shift % 25)) % 26));
        return text.slice(0, at) + next + text.slice(at + 1);
      };
      const once = replaceOne(readText(ws, rel), b, u);
      if (once === undefined) return `no-op (no letter in ${rel})`;
      write(ws, rel, once);
      if (b % 3 === 0) return `same-size edit of ${rel}`;
      // Right after a build: the file changed within the timestamp tick of its read, and
      // changes again without changing size, so only the racy-stamp rule keeps it fresh.
      rebuild();
      const twice = replaceOne(once, a * 7 + b, u + 3) ?? once;
      write(ws, rel, twice);
      return `same-size edit of ${rel}, build, and another same-size edit at once`;
    }
    case 'touch': {
      const rel = pick(filesOf(ws), a);
      if (!rel) return 'no-op (no file)';
      const when = b % 2 === 0 ? new Date() : new Date('2001-01-01T00:00:00Z');
      utimesSync(path.join(ws.dir, rel), when, when);
      return `touch ${rel} (${b % 2 === 0 ? 'now' : '2001'}), content unchanged`;
    }
    case 'manifest': {
      const current = readText(ws, 'plugin.json');
      let json: { extensions?: Record<string, { exports?: string[]; agents?: Record<string, { entry?: string }> }> };
      try {
        json = JSON.parse(current) as typeof json;
      } catch {
        json = JSON.parse(ws.pristine.get('plugin.json')!.toString('utf8')) as typeof json;
      }
      const ext = json.extensions?.['ai.strawberry.berry'];
      if (!ext || typeof ext !== 'object') return 'no-op (no berry extension)';
      const names = namesOf(ws);
      let what: string;
      switch (b % 6) {
        case 0: {
          const name = pick(names, a) ?? 'converse';
          ext.exports = [...new Set([...(ext.exports ?? []), name])];
          what = `add export ${name}`;
          break;
        }
        case 1:
          ext.exports = [...(ext.exports ?? []), `missing.export${u}`];
          what = `add export missing.export${u}`;
          break;
        case 2: {
          const gone = pick(ext.exports ?? [], a);
          if (gone === undefined) {
            delete ext.exports;
            what = 'remove the exports';
          } else {
            ext.exports = ext.exports!.filter((e) => e !== gone);
            what = `remove export ${gone}`;
          }
          break;
        }
        case 3:
          write(ws, 'plugin.json', current.slice(0, Math.max(1, current.length - 3 - (a % 20))));
          return 'plugin.json: truncate (invalid JSON)';
        case 4: {
          const agent = Object.values(ext.agents ?? {})[0];
          const name = pick(names, a);
          if (!agent || !name) return 'no-op (no agent or routine)';
          agent.entry = name;
          what = `agent entry → ${name}`;
          break;
        }
        default:
          write(ws, 'plugin.json', ws.pristine.get('plugin.json')!);
          return 'plugin.json: restore';
      }
      write(ws, 'plugin.json', `${JSON.stringify(json, null, 2)}\n`);
      return `plugin.json: ${what}`;
    }
    case 'restore': {
      // Back towards the pristine package (so later states build again): one changed file, or all.
      const present = new Set(filesOf(ws));
      const changed = [...new Set([...ws.pristine.keys(), ...present])].sort().filter((rel) => {
        const original = ws.pristine.get(rel);
        return original === undefined || !present.has(rel) || !readFileSync(path.join(ws.dir, rel)).equals(original);
      });
      if (changed.length === 0) return 'no-op (the package is pristine)';
      const undo = (rel: string) => {
        const original = ws.pristine.get(rel);
        if (original === undefined) rmSync(path.join(ws.dir, rel));
        else write(ws, rel, original);
      };
      if (b % 4 === 0) {
        changed.forEach(undo);
        return `restore the whole package (${changed.join(', ')})`;
      }
      const rel = pick(changed, a)!;
      undo(rel);
      return ws.pristine.has(rel) ? `restore ${rel}` : `remove added ${rel}`;
    }
    case 'wait':
      // Past the racy window: what is unchanged from here on is served from memory.
      sleep(120);
      return 'wait 120 ms';
  }
}

// ---------------------------------------------------------------------------------------
// Equivalence

function shown(ws: Workspace, value: unknown): string {
  return String(JSON.stringify(value)).split(ws.dir).join('<pkg>');
}

/** The paths (`routines.x.digest`) where two JSON-like values differ, at most `limit`. */
function differingPaths(a: unknown, b: unknown, at = '', out: string[] = [], limit = 8): string[] {
  if (out.length >= limit || isDeepStrictEqual(a, b)) return out;
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    for (const k of keys) differingPaths((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], at === '' ? k : `${at}.${k}`, out, limit);
    return out;
  }
  out.push(`${at || '(root)'}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
  return out;
}

function listDifference(ws: Workspace, what: string, incremental: readonly string[], fresh: readonly string[]): string | undefined {
  const a = [...incremental].sort();
  const b = [...fresh].sort();
  if (isDeepStrictEqual(a, b)) return undefined;
  const onlyA = a.filter((x) => !b.includes(x));
  const onlyB = b.filter((x) => !a.includes(x));
  return `${what} differ: only incremental ${shown(ws, onlyA)}, only fresh ${shown(ws, onlyB)}`;
}

/** Where an incremental result differs from a fresh one, or undefined when it does not. */
function difference(ws: Workspace, incremental: BuildResult, fresh: BuildResult): string | undefined {
  const out: string[] = [];
  if (incremental.ok !== fresh.ok) out.push(`ok: incremental ${incremental.ok}, fresh ${fresh.ok}`);
  if (!isDeepStrictEqual(incremental.diagnostics, fresh.diagnostics)) {
    const a = incremental.diagnostics.map((d) => shown(ws, d));
    const b = fresh.diagnostics.map((d) => shown(ws, d));
    const onlyA = a.filter((x) => !b.includes(x));
    const onlyB = b.filter((x) => !a.includes(x));
    out.push(
      onlyA.length === 0 && onlyB.length === 0
        ? `diagnostics differ in order or shape only:\n    incremental ${a.join('\n      ')}\n    fresh ${b.join('\n      ')}`
        : `diagnostics differ:\n    only incremental:\n      ${onlyA.join('\n      ')}\n    only fresh:\n      ${onlyB.join('\n      ')}`,
    );
  }
  const bytesA = incremental.bundle ? Buffer.from(incremental.bundle.bytes) : undefined;
  const bytesB = fresh.bundle ? Buffer.from(fresh.bundle.bytes) : undefined;
  if (bytesA === undefined || bytesB === undefined) {
    if (bytesA !== bytesB) out.push(`bundle: incremental ${bytesA ? 'written' : 'none'}, fresh ${bytesB ? 'written' : 'none'}`);
  } else if (!bytesA.equals(bytesB)) {
    let at = 0;
    while (at < Math.min(bytesA.length, bytesB.length) && bytesA[at] === bytesB[at]) at++;
    const around = (bytes: Buffer) => JSON.stringify(bytes.subarray(Math.max(0, at - 80), at + 80).toString('utf8'));
    out.push(
      `bundle bytes differ at byte ${at} (${bytesA.length} vs ${bytesB.length} bytes):\n    incremental …${around(bytesA)}…\n    fresh       …${around(bytesB)}…`,
    );
  }
  if (!isDeepStrictEqual(incremental.summary, fresh.summary))
    out.push(
      `summary differs (incremental vs fresh):\n    ${differingPaths(incremental.summary, fresh.summary)
        .map((d) => d.split(ws.dir).join('<pkg>'))
        .join('\n    ')}`,
    );
  const files = listDifference(ws, 'files', incremental.files, fresh.files);
  if (files) out.push(files);
  const directories = listDifference(ws, 'directories', incremental.directories, fresh.directories);
  if (directories) out.push(directories);
  return out.length === 0 ? undefined : out.join('\n  ');
}

function fresh(ws: Workspace): BuildResult {
  return createCompiler({ store }).build(ws.manifest);
}

/**
 * nodeHost as a file system whose timestamps have a `tickMs` granularity would answer: stamps
 * and change times round down to the tick (ext4 and tmpfs keep nanoseconds but follow the
 * kernel's coarse clock, a few ms; ext3, HFS+ and ext4 with 128-byte inodes keep whole
 * seconds; FAT two). On this fine-grained disk two writes never share a stamp, so only such a
 * host makes the read cache's racy-stamp rule matter.
 */
function coarseHost(tickMs: number): CompilerHost {
  const floor = (ms: number) => Math.floor(ms / tickMs) * tickMs;
  const stampOf = (s: Stats) => `${s.dev}:${s.ino}:${s.size}:${floor(s.mtimeMs)}:${floor(s.ctimeMs)}`;
  return {
    ...nodeHost,
    readStamped(p) {
      const s = statSync(p);
      const bytes = readFileSync(p);
      if (!s.isFile() || bytes.length !== s.size) return { bytes, stamp: '', changedAt: Infinity };
      return { bytes, stamp: stampOf(s), changedAt: floor(Math.max(s.mtimeMs, s.ctimeMs)) };
    },
    stamp(p) {
      const s = statSync(p, { throwIfNoEntry: false });
      return s?.isFile() ? stampOf(s) : undefined;
    },
  };
}

/** Waits until `offsetMs` into the next period of `periodMs` (by the wall clock). */
function alignTo(periodMs: number, offsetMs: number): void {
  const now = Date.now();
  const wait = (offsetMs - (now % periodMs) + periodMs) % periodMs;
  sleep(wait === 0 ? periodMs : wait);
}

/** Builds, applies `edits` one by one, and compares the long-lived compiler with a fresh one after each. */
function checkSequence(ws: Workspace, edits: readonly Edit[], host?: CompilerHost): void {
  const longLived = createCompiler({ store, ...(host ? { host } : {}) });
  const log: string[] = [];
  const compare = (when: string) => {
    const problem = difference(ws, longLived.build(ws.manifest), fresh(ws));
    if (problem) throw new Error(`Incremental build differs from a fresh build ${when}:\n  ${log.map((l, i) => `${i + 1}. ${l}`).join('\n  ')}\n  ${problem}`);
  };
  compare('on the first build');
  for (const edit of edits) {
    log.push(apply(ws, edit, () => void longLived.build(ws.manifest)));
    compare(`after edit ${log.length}`);
  }
}

function runSequence(template: Template, edits: readonly Edit[], pool: string = template, host?: CompilerHost): void {
  const ws = takeWorkspace(template, pool);
  try {
    checkSequence(ws, edits, host);
  } finally {
    cleanup(ws.dir);
  }
}

describe('incremental rebuilds equal fresh builds, under random edit sequences', () => {
  it(
    'fixtures/notebook',
    () => {
      fc.assert(
        fc.property(fc.array(editArb, { minLength: 5, maxLength: 15 }), (edits) => runSequence('notebook', edits)),
        { seed: SEED, numRuns: NOTEBOOK_RUNS },
      );
    },
    scaledTimeout(40_000),
  );

  it(
    'a generated package of 100 routines (bench/generate.mjs)',
    () => {
      fc.assert(
        fc.property(fc.array(editArb, { minLength: 5, maxLength: 15 }), (edits) => runSequence('generated', edits)),
        { seed: SEED + 1, numRuns: GENERATED_RUNS },
      );
    },
    scaledTimeout(40_000),
  );

  it(
    'fixtures/notebook on a file system with a 100 ms timestamp tick (racy stamps; the long-lived compiler only)',
    () => {
      const host = coarseHost(100);
      fc.assert(
        fc.property(fc.array(editArb, { minLength: 5, maxLength: 15 }), (edits) => runSequence('notebook', edits, 'notebook-coarse', host)),
        { seed: SEED + 2, numRuns: COARSE_RUNS },
      );
    },
    scaledTimeout(40_000),
  );
});

// ---------------------------------------------------------------------------------------
// The most important sequences, spelled out, with the work each rebuild did

function delta(compiler: Compiler, before: CompilerStats): CompilerStats {
  const after = compiler.stats;
  return Object.fromEntries(Object.entries(after).map(([k, v]) => [k, v - before[k as keyof CompilerStats]])) as unknown as CompilerStats;
}

/** A workspace, its long-lived compiler after a first build, and a rebuild that checks equivalence and returns the work it did. */
function session(template: Template, host?: CompilerHost) {
  const ws = takeWorkspace(template, `${template}-cases`);
  const compiler = createCompiler({ store, ...(host ? { host } : {}) });
  const first = compiler.build(ws.manifest);
  return {
    ws,
    first,
    compiler,
    rebuild(): { result: BuildResult; work: CompilerStats } {
      const before = compiler.stats;
      const result = compiler.build(ws.manifest);
      const work = delta(compiler, before);
      expect(difference(ws, result, fresh(ws))).toBeUndefined();
      return { result, work };
    },
    edit(rel: string, change: (text: string) => string): void {
      write(ws, rel, change(readText(ws, rel)));
    },
  };
}

function withSession(template: Template, check: (s: ReturnType<typeof session>) => void, host?: CompilerHost): void {
  const s = session(template, host);
  try {
    check(s);
  } finally {
    cleanup(s.ws.dir);
  }
}

describe('incremental rebuilds: the work they skip', () => {
  it('a model routine body edit resolves only that routine (notebook)', () => {
    withSession('notebook', (s) => {
      expect(s.first.ok).toBe(true);
      const routines = s.compiler.stats.routinesResolved;
      expect(routines).toBe(7);
      s.edit('routines/notes/compose.md', (t) => `${t}\nKeep the title under eight words.\n`);
      const { result, work } = s.rebuild();
      expect(result.ok).toBe(true);
      expect(work.sourcesParsed).toBe(1);
      expect(work.routinesResolved).toBe(1);
      expect(work.routinesReused).toBe(routines - 1);
      expect(work.codeRoutinesAnalyzed).toBe(0);
      expect(work.codeRoutinesReused).toBe(2);
      // The routine's entry and its file entry; every other fragment is reused.
      expect(work.fragmentsSerialized).toBe(2);
      expect(work.filesRead).toBe(1);
    });
  });

  it('a model routine body edit resolves only that routine (100 generated routines)', () => {
    withSession('generated', (s) => {
      expect(s.first.ok).toBe(true);
      expect(s.compiler.stats.routinesResolved).toBe(100);
      s.edit('routines/ns0/model42.md', (t) => `${t}\nAnswer in one paragraph.\n`);
      const { result, work } = s.rebuild();
      expect(result.ok).toBe(true);
      expect(work.sourcesParsed).toBe(1);
      expect(work.sourcesReused).toBe(99);
      expect(work.routinesResolved).toBe(1);
      expect(work.routinesReused).toBe(99);
      expect(work.codeRoutinesAnalyzed).toBe(0);
      expect(work.codeRoutinesReused).toBe(10);
      expect(work.filesRead).toBe(1);
    });
  });

  it('a rebuild hashes the bundle content only from the first part its edit changed (100 generated routines)', () => {
    withSession('generated', (s) => {
      expect(s.first.ok).toBe(true);
      const text = s.first.bundle!.text;
      const content = (t: string) => Buffer.byteLength(t.slice('{"content":'.length, t.lastIndexOf(',"format":')));
      // Model routines in the order of the content's `files` list (in path order, before `imports`).
      const filesAt = text.indexOf('"files":[');
      const files = text.slice(filesAt, text.indexOf(',"imports":', filesAt));
      const routines = [...files.matchAll(/"path":"(routines\/[^"]+\/model\d+\.md)"/g)].map((m) => m[1]!);
      expect(routines.length).toBeGreaterThan(64);
      const late = routines[routines.length - 1]!;
      s.edit(late, (t) => `${t}\nAnswer in one paragraph.\n`);
      let { result, work } = s.rebuild();
      expect(result.ok).toBe(true);
      expect(work.contentBytesHashed + work.contentBytesReused).toBe(content(result.bundle!.text));
      expect(work.contentBytesReused).toBeGreaterThan(content(result.bundle!.text) / 3);
      // An edit in the first run of fragments hashes (nearly) everything again.
      s.edit(routines[0]!, (t) => `${t}\nAnswer in one paragraph.\n`);
      ({ result, work } = s.rebuild());
      expect(result.ok).toBe(true);
      expect(work.contentBytesHashed + work.contentBytesReused).toBe(content(result.bundle!.text));
      expect(work.contentBytesReused).toBeLessThan(content(result.bundle!.text) / 20);
    });
  });

  it('a supporting module edit re-analyzes only the code routines that import it', () => {
    withSession('notebook', (s) => {
      // search.rank imports lib/score.js; notes.count imports nothing.
      s.edit('routines/lib/score.js', (t) => `${t}\nexport const VERSION = 2;\n`);
      const { result, work } = s.rebuild();
      expect(result.ok).toBe(true);
      expect(work.codeRoutinesAnalyzed).toBe(1);
      expect(work.codeRoutinesReused).toBe(1);
      expect(work.modulesAnalyzed).toBe(1);
      expect(work.sourcesParsed).toBe(0);
      expect(work.routinesResolved).toBe(0);
      expect(work.routinesReused).toBe(7);
      expect(work.filesRead).toBe(1);
      // The bundle carries the new module text.
      expect(result.bundle!.text).toContain('VERSION = 2');
    });
  });

  it('a supporting module edit re-analyzes its importers and resolves nothing (100 generated routines)', () => {
    withSession('generated', (s) => {
      // With 100 routines there is one module, lib/m0.js, imported by all ten code routines.
      s.edit('routines/lib/m0.js', (t) => t.replace('s += 1', 's += 2'));
      const { result, work } = s.rebuild();
      expect(result.ok).toBe(true);
      expect(work.codeRoutinesAnalyzed).toBe(10);
      expect(work.sourcesParsed).toBe(0);
      expect(work.routinesResolved).toBe(0);
      expect(work.routinesReused).toBe(100);
    });
  });

  it('a build checks each file once, however many importers read it (100 generated routines)', () => {
    const stamps = new Map<string, number>();
    const reads = new Map<string, number>();
    const count = (map: Map<string, number>, p: string) => map.set(p, (map.get(p) ?? 0) + 1);
    const host: CompilerHost = {
      ...nodeHost,
      stamp: (p) => (count(stamps, p), nodeHost.stamp!(p)),
      readStamped: (p) => (count(reads, p), nodeHost.readStamped!(p)),
    };
    withSession(
      'generated',
      (s) => {
        // Read again by each of its ten importers' checks before: now once per build, stamp or read.
        s.edit('routines/lib/m0.js', (t) => t.replace('s += 1', 's += 2'));
        stamps.clear();
        reads.clear();
        const { result, work } = s.rebuild();
        expect(result.ok).toBe(true);
        expect(work.codeRoutinesAnalyzed).toBe(10);
        const m0 = [...reads.keys()].filter((p) => p.endsWith('/routines/lib/m0.js'));
        expect(m0).toHaveLength(1);
        expect(reads.get(m0[0]!)).toBe(1);
        expect(Math.max(...stamps.values(), ...reads.values())).toBe(1);
        // Each file was checked: by its stamp, or read again when it is too recent to trust one.
        expect(new Set([...stamps.keys(), ...reads.keys()]).size).toBeGreaterThanOrEqual(100);
      },
      host,
    );
  });

  it('an instructions edit resolves the whole package, to what a fresh build gives', () => {
    withSession('notebook', (s) => {
      s.edit('routines/notes/style.md', (t) => `${t}Prefer lists to long paragraphs.\n`);
      const { result, work } = s.rebuild();
      expect(result.ok).toBe(true);
      expect(work.routinesResolved).toBe(7);
      expect(work.routinesReused).toBe(0);
      // Both includers carry the new text in their templates.
      expect(result.bundle!.text.split('Prefer lists to long paragraphs.').length - 1).toBeGreaterThanOrEqual(3);
      // A runtime template in it reaches the includers' checks: TPL-3 warns in notes.compose, whose input has no `message`.
      s.edit('routines/notes/style.md', (t) => `${t}Reply to: {{ $.input.message }}\n`);
      const second = s.rebuild();
      expect(second.work.routinesResolved).toBe(7);
      expect(second.result.diagnostics.filter((d) => d.code === 'BP2221').map((d) => d.message.match(/in `([\w.]+)`/)?.[1])).toEqual(['notes.compose']);
    });
  });

  it('a touch without a content change re-reads one file and redoes nothing', () => {
    withSession('notebook', (s) => {
      const now = new Date();
      utimesSync(path.join(s.ws.dir, 'routines/search/rank.md'), now, now);
      const { result, work } = s.rebuild();
      expect(Buffer.from(result.bundle!.bytes).equals(Buffer.from(s.first.bundle!.bytes))).toBe(true);
      expect(work.filesRead).toBe(1);
      expect(work.sourcesParsed).toBe(0);
      expect(work.routinesResolved).toBe(0);
      expect(work.codeRoutinesAnalyzed).toBe(0);
      expect(work.fragmentsSerialized).toBe(0);
    });
  });

  it("a watcher's list of changed files: only the listed files are checked, the result equals a fresh build", () => {
    let stamps = 0;
    const host: CompilerHost = { ...nodeHost, stamp: (p) => (stamps++, nodeHost.stamp!(p)) };
    withSession(
      'generated',
      (s) => {
        const rel = 'routines/ns0/model42.md';
        const file = realpathSync(path.join(s.ws.dir, rel));
        // Every file kept in memory: past the racy window (a fresh copy may be younger), built again.
        sleep(250);
        s.compiler.build(s.ws.manifest);
        s.edit(rel, (t) => `${t}\nAnswer in one paragraph.\n`);
        stamps = 0;
        const before = s.compiler.stats;
        const result = s.compiler.build(s.ws.manifest, { changedFiles: [file] });
        const work = delta(s.compiler, before);
        expect(difference(s.ws, result, fresh(s.ws))).toBeUndefined();
        expect(result.bundle!.text).toContain('Answer in one paragraph.');
        // One stat for the listed file instead of one per file of the package.
        expect(stamps).toBe(1);
        expect(work.filesRead).toBe(1);
        expect(work.filesUnchanged).toBeGreaterThanOrEqual(100);
        // The list is trusted: an edit it leaves out (of a file read long enough ago, so cached)
        // is seen by the next build without a list.
        s.edit('routines/ns0/model43.md', (t) => `${t}\nUse bullet points.\n`);
        expect(s.compiler.build(s.ws.manifest, { changedFiles: [] }).bundle!.text).not.toContain('Use bullet points.');
        expect(s.rebuild().result.bundle!.text).toContain('Use bullet points.');
      },
      host,
    );
  });

  it('a same-size edit right after a build of a just-edited file is seen (racy stamps)', () => {
    withSession('notebook', (s) => {
      const rel = 'routines/notes/triage.md';
      s.edit(rel, (t) => t.replace('Urgent means', 'Urgent meant'));
      s.compiler.build(s.ws.manifest);
      // Same size, right after the read of the first edit.
      s.edit(rel, (t) => t.replace('Urgent meant', 'Urgent mean!'));
      const { result } = s.rebuild();
      expect(result.bundle!.text).toContain('Urgent mean!');
      expect(result.bundle!.text).not.toContain('Urgent meant');
    });
  });
});

describe('incremental rebuilds: sequences spelled out', () => {
  it('a frontmatter edit reaches the diagnostics of other routines that point into it', () => {
    // `converse` (no namespace) names the tool `rank`, which `search.rank` and `twin.rank` both
    // match: BP2101 there relates both declarations, by line. Moving `search.rank`'s `name`
    // line down must move that related location, though only search/rank.md changed.
    withSession('notebook', (s) => {
      write(
        s.ws,
        'routines/twin/rank.md',
        compose('name: twin.rank\ndescription: A twin of search.rank.\nlanguage: javascript\n', 'export default function run(input) {\n  return input;\n}\n'),
      );
      s.rebuild();
      s.edit('routines/converse.md', (t) => t.replace('  - notes.triage\n', '  - notes.triage\n  - rank\n'));
      const ambiguous = s.rebuild().result.diagnostics.find((d) => d.code === 'BP2101');
      expect(ambiguous?.related?.map((r) => `${path.relative(s.ws.dir, r.file)}:${r.line}`)).toEqual(['routines/search/rank.md:2', 'routines/twin/rank.md:2']);
      s.edit('routines/search/rank.md', (t) => t.replace('---\nname:', '---\ntitle: Rank notes\nname:'));
      const { result, work } = s.rebuild();
      expect(result.diagnostics.find((d) => d.code === 'BP2101')?.related?.map((r) => r.line)).toEqual([3, 2]);
      expect(work.routinesReused).toBe(0);
    });
  });

  it('racy stamps, 100 ms tick: a same-size edit in the tick of the read is seen', () => {
    // Both edits and the build between them fall in one tick, so the file's stamp does not
    // change: only the rule that a file changed within 100 ms of its read is not trusted
    // keeps the second edit from being served the first's bytes.
    withSession(
      'notebook',
      (s) => {
        const rel = 'routines/notes/triage.md';
        alignTo(100, 15);
        s.edit(rel, (t) => t.replace('Urgent means', 'Urgent meant'));
        s.compiler.build(s.ws.manifest);
        s.edit(rel, (t) => t.replace('Urgent meant', 'Urgent mean!'));
        const { result } = s.rebuild();
        expect(result.bundle!.text).toContain('Urgent mean!');
      },
      coarseHost(100),
    );
  });

  it('racy stamps, 1 s tick: a same-size edit in the second of the read is seen', () => {
    // Whole-second timestamps (ext3, HFS+, ext4 with 128-byte inodes): an edit 200 ms into a
    // second, a build 150 ms later (a watcher's debounce), another same-size edit in the same
    // second. The first edit is older than 100 ms when read, so the read cache trusts its
    // stamp, yet the second edit leaves that stamp as it was (same inode, size and second).
    // A fixed 100 ms racy window failed this: the long-lived compiler kept serving the first
    // edit's bytes until the file changed again (seen with nodeHost on a real ext4 made with
    // 128-byte inodes, as well as with this host).
    withSession(
      'notebook',
      (s) => {
        const rel = 'routines/notes/triage.md';
        alignTo(1_000, 200);
        s.edit(rel, (t) => t.replace('Urgent means', 'Urgent meant'));
        sleep(150);
        s.compiler.build(s.ws.manifest);
        s.edit(rel, (t) => t.replace('Urgent meant', 'Urgent mean!'));
        const { result } = s.rebuild();
        expect(result.bundle!.text).toContain('Urgent mean!');
      },
      coarseHost(1_000),
    );
  });
});
