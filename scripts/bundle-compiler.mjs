#!/usr/bin/env node
// Builds @berrypack/compiler's JavaScript: every `exports` subpath of packages/compiler/package.json
// is one esbuild entry of one build with code splitting, so the subpaths share one copy of every
// module and class, and Rollup then joins esbuild's chunks into one per group of entries
// (CHUNK_GROUPS), so a process loads a few files instead of ~150 (Node's module loader costs per
// file; docs/performance.md, rounds four and five, wt-load). tsc writes only the declarations
// (`emitDeclarationOnly`); this writes dist/*.js at the paths `exports` names. Dependencies stay
// external (one copy of yaml, acorn and magic-string, resolved from the package as installed).
//
//   node scripts/bundle-compiler.mjs     (run by `npm run build` and `prepare` after `tsc --build`)
//
// Deterministic: the same sources give the same bytes (chunk names are content hashes, paths in
// comments are relative to the package; Rollup's output depends only on its input). A file is rewritten only when its bytes change, and a
// .js file in dist/ this build did not make (an older build's chunk, a tsc output) is removed.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const PACKAGE = fileURLToPath(new URL('../packages/compiler/', import.meta.url));
const DIST = path.join(PACKAGE, 'dist');

/** The entries: `./dist/X.js` of every `exports` target, built from `src/X.ts`. */
export function compilerEntries(manifest = JSON.parse(readFileSync(path.join(PACKAGE, 'package.json'), 'utf8'))) {
  const targets = new Set();
  const visit = (value) => {
    if (typeof value === 'string') {
      if (value.startsWith('./dist/') && value.endsWith('.js')) targets.add(value.slice('./dist/'.length, -'.js'.length));
    } else if (value && typeof value === 'object') for (const [condition, v] of Object.entries(value)) if (condition !== 'types') visit(v);
  };
  visit(manifest.exports);
  return [...targets].sort().map((out) => ({ in: `src/${out}.ts`, out }));
}

/**
 * esbuild leaves `new URL('./x.js', import.meta.url)` as written, relative to whichever output
 * file the code landed in: each such file must exist beside it (the check worker is an entry in
 * dist/package/, where the shared chunks are), or the bundle would look for a file only tsc used
 * to write. Returns one message per reference `exists(target)` denies (paths relative to dist/).
 */
export function missingRelativeUrls(files, exists) {
  const problems = [];
  for (const { rel, text } of files) {
    for (const m of text.matchAll(/new URL\(\s*["'](\.{1,2}\/[^"']+)["']\s*,\s*import\.meta\.url\s*\)/g)) {
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(rel), m[1]));
      if (!exists(target))
        problems.push(
          `dist/${rel} loads ${m[1]} relative to itself, but there is no dist/${target}: make it an \`exports\` entry built beside the shared chunks (dist/package/)`,
        );
    }
  }
  return problems;
}

/**
 * The entries a process loads together to run something (their names as `exports` builds them):
 * the runtime's, the adapters' light entry (a plugin's factory), and the main entry with the
 * CLI's. esbuild gives every set of entries (and of lazily imported modules) that reaches a
 * module its own chunk: 32 files for a build, each a round of Node's module loader. Rollup joins
 * them here by the set of these classes that reaches them instead (docs/performance.md, round
 * five, wt-load), so a build loads a few files and the runtime and a plugin's factory load only
 * code they loaded before.
 */
const ENTRY_CLASSES = [
  ['runtime', ['bundle/index', 'reference/jsonpath', 'method/types']],
  ['adapter', ['internal-adapter']],
  ['compiler', ['index', 'internal-cli']],
];

/** Builds the bundle into dist/; returns the files written (relative to dist/) and every file of the build. */
export async function bundleCompiler() {
  const [esbuild, { rollup }] = await Promise.all([import('esbuild'), import('rollup')]);
  const entries = compilerEntries();
  const result = await esbuild.build({
    absWorkingDir: PACKAGE,
    entryPoints: entries,
    outdir: 'dist',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    tsconfig: 'tsconfig.json',
    // Bare specifiers (yaml, acorn, magic-string, node:*) load from node_modules as installed.
    packages: 'external',
    chunkNames: 'package/[name]-[hash]',
    charset: 'utf8',
    legalComments: 'inline',
    logLevel: 'silent',
    metafile: true,
    write: false,
  });
  const code = new Map(result.outputFiles.map((file) => [file.path, file.text]));
  const group = chunkGroups(result.metafile, entries);
  // Rollup joins esbuild's chunks by group; esbuild has no manual chunks, Rollup no TypeScript.
  const build = await rollup({
    input: Object.fromEntries(entries.map((e) => [e.out, path.join(DIST, `${e.out}.js`)])),
    preserveEntrySignatures: 'strict',
    treeshake: false,
    logLevel: 'silent',
    plugins: [
      {
        name: 'esbuild-output',
        resolveId: (source, importer) =>
          importer === undefined ? source : /^\.\.?\//.test(source) ? path.resolve(path.dirname(importer), source) : { id: source, external: true },
        load: (id) => code.get(id) ?? null,
      },
    ],
  });
  const generated = await build.generate({
    format: 'es',
    entryFileNames: '[name].js',
    // Shared chunks sit beside the check worker's entry: the code that starts the worker finds it
    // as `./check-worker.js` next to its own module (package/check-worker-start.ts).
    chunkFileNames: 'package/[name]-[hash].js',
    manualChunks: (id) => group.get(id),
    hoistTransitiveImports: false,
  });
  await build.close();
  const outputs = generated.output.map((chunk) => {
    const contents = Buffer.from(chunk.type === 'chunk' ? chunk.code : chunk.source);
    return { file: { path: path.join(DIST, chunk.fileName), contents }, rel: chunk.fileName, text: contents.toString('utf8') };
  });
  const made = new Set(outputs.map((output) => output.rel));
  const problems = missingRelativeUrls(outputs, (target) => made.has(target) || (!target.endsWith('.js') && existsSync(path.join(DIST, target))));
  if (problems.length > 0) throw new Error(problems.join('\n'));
  const written = [];
  for (const { file, rel } of outputs) {
    let old;
    try {
      old = readFileSync(file.path);
    } catch {
      old = undefined;
    }
    if (old !== undefined && Buffer.compare(old, file.contents) === 0) continue;
    mkdirSync(path.dirname(file.path), { recursive: true });
    // Written aside and renamed, so a process loading the compiler meanwhile sees a whole file.
    const temp = `${file.path}.${process.pid}.tmp`;
    writeFileSync(temp, file.contents);
    renameSync(temp, file.path);
    written.push(rel);
  }
  for (const rel of listJs(DIST)) if (!made.has(rel)) rmSync(path.join(DIST, rel), { force: true });
  return { written, files: [...made].sort() };
}

/**
 * esbuild's output file (absolute path) -> the chunk it joins, named for the entry classes
 * (ENTRY_CLASSES) that reach it through static imports, e.g. `runtime-adapter-compiler`. Files no
 * class reaches (lazily imported modules, the check worker's own) stay as esbuild split them.
 */
export function chunkGroups(metafile, entries) {
  const abs = (rel) => path.join(PACKAGE, rel);
  const imports = new Map(
    Object.entries(metafile.outputs).map(([out, o]) => [
      abs(out),
      o.imports.filter((i) => i.kind === 'import-statement' && !i.external).map((i) => abs(i.path)),
    ]),
  );
  // The entries themselves stay entries; only the chunks they reach are joined.
  const entryFiles = new Set(entries.map((e) => path.join(DIST, `${e.out}.js`)));
  const classes = new Map();
  for (const [name, outs] of ENTRY_CLASSES) {
    const pending = outs.filter((out) => entries.some((e) => e.out === out)).map((out) => path.join(DIST, `${out}.js`));
    const seen = new Set();
    while (pending.length > 0) {
      const file = pending.pop();
      if (seen.has(file)) continue;
      seen.add(file);
      pending.push(...(imports.get(file) ?? []));
    }
    for (const file of seen) if (!entryFiles.has(file)) classes.set(file, [...(classes.get(file) ?? []), name]);
  }
  return new Map([...classes].map(([file, names]) => [file, names.join('-')]));
}

/** Every .js (and .js.map) file under `dir`, relative, `/`-separated. */
function listJs(dir, prefix = '') {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((e) =>
    e.isDirectory() ? listJs(path.join(dir, e.name), `${prefix}${e.name}/`) : /\.js(\.map)?$/.test(e.name) ? [`${prefix}${e.name}`] : [],
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  bundleCompiler().then(
    ({ written, files }) => {
      if (written.length > 0) process.stdout.write(`@berrypack/compiler: ${files.length} files in dist/ (${written.length} written)\n`);
    },
    (error) => {
      process.stderr.write(`bundle-compiler: ${error && error.message ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
