// @berrypack/compiler's dist/*.js is one esbuild build of its `exports` subpaths, its chunks
// regrouped by Rollup (scripts/bundle-compiler.mjs; docs/performance.md, rounds four and five, wt-load). vitest's global setup
// built it from the sources; these check what that build is, as the workspace loads it.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'acorn';
import { describe, expect, it } from 'vitest';
import { bundleCompiler, compilerEntries, missingRelativeUrls } from '../scripts/bundle-compiler.mjs';
import { ROOT } from './support/cli.js';

const DIST = path.join(ROOT, 'packages/compiler/dist');
const js = (dir: string, prefix = ''): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? js(path.join(dir, e.name), `${prefix}${e.name}/`) : e.name.endsWith('.js') ? [`${prefix}${e.name}`] : [],
  );

/** The string specifier of every import, re-export and `import()` of a module (parsed, so code in strings does not count). */
function moduleSpecifiers(code: string, only?: 'static'): string[] {
  const found: string[] = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    const n = node as { type?: string; source?: { type?: string; value?: unknown } };
    if (/^(ImportDeclaration|ExportNamedDeclaration|ExportAllDeclaration|ImportExpression)$/.test(n.type ?? '') && typeof n.source?.value === 'string')
      if (!(only === 'static' && n.type === 'ImportExpression')) found.push(n.source.value);
    for (const value of Object.values(node)) if (value && typeof value === 'object') visit(value);
  };
  visit(parse(code, { ecmaVersion: 'latest', sourceType: 'module' }));
  return found;
}

describe("the compiler's bundle", () => {
  it('is byte-identical when built again from the same sources, and is every .js file of dist/', async () => {
    const again = await bundleCompiler();
    expect(again.written).toEqual([]);
    expect(js(DIST).sort()).toEqual(again.files);
  });

  it('has an entry at every path `exports` names, and shared chunks only in dist/package/', () => {
    const manifest = JSON.parse(readFileSync(path.join(ROOT, 'packages/compiler/package.json'), 'utf8')) as { exports: Record<string, unknown> };
    const entries = compilerEntries(manifest).map((e) => `${e.out}.js`);
    expect(entries).toEqual(expect.arrayContaining(['index.js', 'internal-cli.js', 'internal-adapter.js', 'bundle/index.js', 'package/check-worker.js']));
    const files = js(DIST);
    expect(files).toEqual(expect.arrayContaining(entries));
    expect(files.filter((f) => !entries.includes(f) && !/^package\/[\w-]+-[\w-]{8}\.js$/.test(f))).toEqual([]);
  });

  it('starts the check worker from beside the module that looks for it, imports only files of the build, and has no top-level await', () => {
    const names = js(DIST);
    const files = names.map((f) => ({ f, code: readFileSync(path.join(DIST, f), 'utf8') }));
    // package/check-worker-start.ts finds the worker as `./check-worker.js` next to its own module.
    const starter = files.filter(({ code }) => code.includes('function workerScript('));
    expect(starter.map(({ f }) => path.posix.dirname(f))).toEqual(['package']);
    let relative = 0;
    for (const { f, code } of files) {
      for (const specifier of moduleSpecifiers(code).filter((s) => s.startsWith('.'))) {
        relative++;
        expect(names, `${f} imports ${specifier}`).toContain(path.posix.join(path.posix.dirname(f), specifier));
      }
      expect(code, f).not.toMatch(/^await\b|^(?:const|let|var) [^=]+= await\b/m);
    }
    expect(relative).toBeGreaterThan(names.length);
  });

  it('loads a few files for a build, and no more code than before for the runtime and the adapters', () => {
    const names = new Set(js(DIST));
    const code = new Map([...names].map((f) => [f, readFileSync(path.join(DIST, f), 'utf8')]));
    // What a process loads when it imports `entries`: their static imports, followed to the end.
    const loads = (...entries: string[]): string[] => {
      const seen = new Set<string>();
      const pending = [...entries];
      while (pending.length > 0) {
        const f = pending.pop()!;
        if (seen.has(f) || !names.has(f)) continue;
        seen.add(f);
        for (const s of moduleSpecifiers(code.get(f)!, 'static')) if (s.startsWith('.')) pending.push(path.posix.join(path.posix.dirname(f), s));
      }
      return [...seen].sort();
    };
    // esbuild alone split the main entry's modules over 32 chunks (one per set of entries reaching them).
    expect(loads('index.js', 'internal-cli.js').length).toBeLessThanOrEqual(6);
    expect(loads('index.js', 'internal-adapter.js').length).toBeLessThanOrEqual(6);
    // The runtime's entries and the adapters' light entry do not load the compiler's main code.
    const main = loads('index.js').filter((f) => !loads('internal-adapter.js', 'bundle/index.js').includes(f));
    expect(main.length).toBeGreaterThan(1);
    for (const light of ['bundle/index.js', 'reference/jsonpath.js', 'method/types.js', 'internal-adapter.js'])
      expect(
        loads(light).filter((f) => main.includes(f)),
        light,
      ).toEqual([]);
  });

  it('is refused when code loads a file relative to its own module that the build did not write beside it', () => {
    const files = [
      {
        rel: 'package/chunk-AAAAAAAA.js',
        text: 'const w = new URL("./check-worker.js", import.meta.url);\nconst s = new URL("./other-worker.js", import.meta.url);',
      },
      { rel: 'index.js', text: "const x = new URL('./package/check-worker.js', import.meta.url); const y = new URL('../schemas/a.json', import.meta.url);" },
    ];
    const exists = (target: string) => ['package/check-worker.js', '../schemas/a.json'].includes(target);
    expect(missingRelativeUrls(files, exists)).toEqual([
      'dist/package/chunk-AAAAAAAA.js loads ./other-worker.js relative to itself, but there is no dist/package/other-worker.js: make it an `exports` entry built beside the shared chunks (dist/package/)',
    ]);
    expect(missingRelativeUrls(files.slice(1), exists)).toEqual([]);
  });
});
