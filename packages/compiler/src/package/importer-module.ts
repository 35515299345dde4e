import path from 'node:path';
import { decodeSourceText } from '../source/normalize-text.js';
import type { CompilerHost } from '../host.js';
import type { BuildResult, Compiler, CompilerOptions, PackageSummary } from './types.js';

const BERRY_EXTENSION = 'ai.strawberry.berry';

/** Options every adapter passes when it turns a build into the importer's JS module. */
export interface ModuleOptions {
  /** A JS expression for where the emitted bundle is (a URL or file name), e.g. `import.meta.ROLLUP_FILE_URL_x`. */
  fileExpression: string;
  /** Also export each field by name (off by default: one default export keeps hot reload simple). */
  namedExports?: boolean;
}

/** `import app from './plugin.json'`: `{id, name, file, agents, exports, requirements}`. */
export function renderPackageModule(summary: PackageSummary, options: ModuleOptions): string {
  const fields: [string, string][] = [
    ['id', JSON.stringify(summary.id)],
    ['name', JSON.stringify(summary.name)],
    ['fileName', JSON.stringify(summary.fileName)],
    ['file', options.fileExpression],
    ['agents', jsonValue(summary.agents)],
    ['exports', jsonValue(summary.exports)],
    ['requirements', jsonValue(summary.requirements)],
  ];
  return render(fields, options);
}

/** `import route from './triage/route.md'`: the routine's descriptor in the context of its package. */
export function renderRoutineModule(summary: PackageSummary, routineName: string, options: ModuleOptions): string {
  const routine = summary.routines[routineName];
  if (!routine) throw new Error(`routine ${routineName} is not in package ${summary.name}`);
  const fields: [string, string][] = [
    ['name', JSON.stringify(routineName)],
    ['kind', JSON.stringify(routine.kind)],
    ['digest', JSON.stringify(routine.digest)],
    ['visibility', JSON.stringify(routine.visibility)],
    ['input', jsonValue(routine.input ?? null)],
    ['output', jsonValue(routine.output ?? null)],
    [
      'bundle',
      `{ id: ${JSON.stringify(summary.id)}, name: ${JSON.stringify(summary.name)}, fileName: ${JSON.stringify(summary.fileName)}, file: ${options.fileExpression} }`,
    ],
  ];
  return render(fields, options);
}

/**
 * The module for an import of `file`, the package's `manifest` itself or a `.md` of it;
 * undefined when the `.md` is not one of the package's routine sources.
 */
export function renderImportModule(summary: PackageSummary, manifest: string, file: string, options: ModuleOptions): string | undefined {
  if (file === manifest) return renderPackageModule(summary, options);
  const routine = routineForFile(summary, path.dirname(manifest), file);
  return routine === undefined ? undefined : renderRoutineModule(summary, routine, options);
}

/** Above this many characters a value is written as `JSON.parse('…')` (see jsonValue). */
const LITERAL_LIMIT = 1024;

/**
 * A JSON value as a JS expression. A large one is one string literal given to `JSON.parse`:
 * a bundler's parser reads a string in one token where it walks an object literal property by
 * property (webpack spent about 100 ms on the 57 KB requirements of a 1,000-routine package),
 * and engines parse JSON faster than the same object literal. Same value, same bytes each build.
 */
function jsonValue(value: unknown): string {
  const known = typeof value === 'object' && value !== null ? rendered.get(value) : undefined;
  if (known !== undefined) return known;
  const json = JSON.stringify(value);
  if (json.length <= LITERAL_LIMIT) return json;
  const literal = `JSON.parse(${singleQuoted(json)})`;
  rendered.set(value as object, literal);
  return literal;
}

/**
 * Large values rendered before, by object: a rebuild hands adapters the same `requirements`
 * object while no routine's requirements changed (the compiler keeps it), and writing its 57 KB
 * again (N = 1,000) cost about 1 ms of every rebuild. A build's summary is never changed after.
 */
const rendered = new WeakMap<object, string>();

const ESCAPES: Record<string, string> = { '\\': '\\\\', "'": "\\'", '\n': '\\n', '\r': '\\r', '\u2028': '\\u2028', '\u2029': '\\u2029' };

/**
 * `text` as a single-quoted JS string. JSON text is full of `"` and rarely holds `'`, so this
 * literal has next to no escapes (`JSON.stringify(json)` put one before every quote: 66 KB
 * instead of 57 KB for the N = 1,000 package), and a bundler's lexer takes it as it stands
 * instead of decoding escapes, on every build and rebuild.
 */
function singleQuoted(text: string): string {
  return `'${text.replace(/[\\'\n\r\u2028\u2029]/g, (c) => ESCAPES[c]!)}'`;
}

function render(fields: [string, string][], options: ModuleOptions): string {
  const body = fields.map(([k, v]) => `  ${k}: ${v},`).join('\n');
  let code = `const descriptor = {\n${body}\n};\nexport default descriptor;\n`;
  if (options.namedExports) code += fields.map(([k]) => `export const ${k} = descriptor.${k};`).join('\n') + '\n';
  return code;
}

/** The routine of a package built from `file` (an absolute .md path), if it is one of its sources. */
export function routineForFile(summary: PackageSummary, manifestDir: string, file: string): string | undefined {
  const rel = path.relative(manifestDir, file).split(path.sep).join('/');
  return Object.keys(summary.routines).find((name) => summary.routines[name]!.path === rel);
}

/** Whether a plugin.json carries the Berry extension; other plugin.json files belong to other plugins. */
export function isBerryManifest(file: string, host: CompilerHost): boolean {
  try {
    const decoded = decodeSourceText(host.readFile(file));
    if (!decoded.ok) return false;
    const json = JSON.parse(decoded.text) as { extensions?: Record<string, unknown> };
    return typeof json === 'object' && json !== null && typeof json.extensions === 'object' && json.extensions !== null && BERRY_EXTENSION in json.extensions;
  } catch {
    return false;
  }
}

/** The nearest Berry plugin.json in `from` or a directory above it. */
export function findPackageManifest(from: string, host: CompilerHost): string | undefined {
  let dir = from;
  for (;;) {
    const candidate = path.join(dir, 'plugin.json');
    if (host.stat(candidate)?.kind === 'file' && isBerryManifest(candidate, host)) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** Whether an adapter claims `file` by itself: a Berry plugin.json, or a `.md` inside a Berry package. */
export function isBerryImport(file: string, host: CompilerHost): boolean {
  if (path.basename(file) === 'plugin.json') return isBerryManifest(file, host);
  return findPackageManifest(path.dirname(file), host) !== undefined;
}

/**
 * The manifest an imported file is built from: a plugin.json is its own (Berry or not, so the
 * compiler reports what is missing), a `.md` the nearest Berry plugin.json above it.
 */
export function manifestForImport(file: string, host: CompilerHost): string | undefined {
  return path.basename(file) === 'plugin.json' ? file : findPackageManifest(path.dirname(file), host);
}

/** One build per manifest per bundler build; cleared when the bundler starts the next one. */
export interface BuildMemo {
  /** The build of `manifest`, compiled on the first call since `clear`, which alone gets `first: true`. */
  build(manifest: string): { result: BuildResult; first: boolean };
  /**
   * Compiles `manifest` ahead of its first `build` since `clear`, which then takes this result
   * (and still gets `first: true`): an adapter starts a rebuild's compile while the host does
   * other work. A failure is dropped here; the `build` that follows compiles again and throws.
   */
  warm(manifest: string): void;
  /** `compiler.prepare` before the first `build` of `manifest` since `clear` (a no-op after it). */
  prepare(manifest: string): Promise<void>;
  /**
   * Starts the next bundler build. `changed`: what the host's watcher reported changed since the
   * previous one, when it reports every change to the files and directories the builds returned
   * (Rollup's `watchChange`, webpack's `modifiedFiles`); then the compiler stats only those.
   * Omitted when the host cannot say (a first build, a build outside watch mode).
   */
  clear(changed?: Iterable<string>): void;
}

/**
 * A package imported through its manifest and several routines is compiled, and reported, once per build.
 * `reported`: asked right before each compile, what changed since the previous call (as `clear`'s
 * `changed`, undefined when it cannot say), for an adapter that watches the files itself and
 * whose events for an edit made before the build may arrive after the build has started.
 */
export function createBuildMemo(compiler: Compiler, reported?: () => Iterable<string> | undefined): BuildMemo {
  const builds = new Map<string, BuildResult>();
  // Compiled by `warm` and not yet taken by a `build`.
  const warmed = new Set<string>();
  // Per manifest built before: the changes reported since its latest build (a bundler build
  // that did not import it carries them over), or undefined when some may have gone unreported.
  const unseen = new Map<string, Set<string> | undefined>();
  const report = (changed: Iterable<string> | undefined) => {
    const list = changed === undefined ? undefined : [...changed];
    for (const [manifest, carried] of unseen) unseen.set(manifest, list === undefined || carried === undefined ? undefined : new Set([...carried, ...list]));
  };
  const compile = (manifest: string) => {
    if (reported !== undefined) report(reported());
    const changed = unseen.get(manifest);
    const result = compiler.build(manifest, changed === undefined ? {} : { changedFiles: changed });
    unseen.set(manifest, new Set());
    builds.set(manifest, result);
    return result;
  };
  return {
    build(manifest) {
      const known = builds.get(manifest);
      if (known) return { result: known, first: warmed.delete(manifest) };
      return { result: compile(manifest), first: true };
    },
    warm(manifest) {
      if (builds.has(manifest)) return;
      try {
        compile(manifest);
        warmed.add(manifest);
      } catch {
        // The build that asks for it compiles again and reports the error there.
      }
    },
    prepare: (manifest) => (builds.has(manifest) ? Promise.resolve() : compiler.prepare(manifest)),
    clear(changed) {
      builds.clear();
      warmed.clear();
      report(changed);
    },
  };
}

/**
 * An adapter's compilers, one for builds the host watches and one for builds it does not, each
 * made on first use and kept for the plugin object's life. The watching builds' compiler keeps
 * what a rebuild compares with, so a rebuild redoes only what changed. The other is one-shot
 * (`CompilerOptions.oneShot`, as the CLI's `build` without `--watch`): it keeps nothing for a
 * rebuild, and a later build of it (a second `rollup()`, Vite's next environment, another
 * webpack configuration with the same plugin object) is still correct, reusing only the results
 * of files whose bytes it finds unchanged.
 */
export type Compilers = (create: (options: CompilerOptions) => Compiler, watching: boolean) => Compiler;

export function createCompilers(options: CompilerOptions): Compilers {
  let kept: Compiler | undefined;
  let once: Compiler | undefined;
  return (create, watching) => (watching ? (kept ??= create(options)) : (once ??= create({ ...options, oneShot: true })));
}

/** The memo of an adapter's current host build, on the compiler for whether the host watches. */
export interface BuildSlot {
  /** A host build starts; `changed` as `BuildMemo.clear`'s, for a watching host's rebuild. */
  start(watching: boolean, changed?: Iterable<string>): void;
  /** The current build's memo, made on first use (before any `start`: a watching one, the safe default). */
  memo(create: (options: CompilerOptions) => Compiler): BuildMemo;
}

/** `compilers`: shared by the slots of one plugin object (webpack applies it to each compiler of a multi-compiler). */
export function createBuildSlot(compilers: Compilers, reported?: () => Iterable<string> | undefined): BuildSlot {
  let watching = true;
  const memos = new Map<boolean, BuildMemo>();
  return {
    start(watchingNow, changed) {
      watching = watchingNow;
      // The watching memo forgets what it was told changed when a build it does not see came between.
      memos.get(true)?.clear(watching ? changed : undefined);
      if (!watching) memos.get(false)?.clear();
    },
    memo(create) {
      let memo = memos.get(watching);
      if (memo === undefined) memos.set(watching, (memo = createBuildMemo(compilers(create, watching), reported)));
      return memo;
    },
  };
}
