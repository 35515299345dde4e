// @berrypack/compiler's dist/*.js is one esbuild build of its `exports` subpaths
// (scripts/bundle-compiler.mjs; docs/performance.md, round four, wt-load). vitest's global setup
// built it from the sources; these check what that build is, as the workspace loads it.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundleCompiler, compilerEntries, missingRelativeUrls } from '../scripts/bundle-compiler.mjs';
import { ROOT } from './support/cli.js';

const DIST = path.join(ROOT, 'packages/compiler/dist');
const js = (dir: string, prefix = ''): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? js(path.join(dir, e.name), `${prefix}${e.name}/`) : e.name.endsWith('.js') ? [`${prefix}${e.name}`] : [],
  );

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
    expect(files.filter((f) => !entries.includes(f) && !/^package\/[\w-]+-[A-Z0-9]{8}\.js$/.test(f))).toEqual([]);
  });

  it('starts the check worker from beside the module that looks for it, imports only files of the build, and has no top-level await', () => {
    const names = js(DIST);
    const files = names.map((f) => ({ f, code: readFileSync(path.join(DIST, f), 'utf8') }));
    // package/check-worker-start.ts finds the worker as `./check-worker.js` next to its own module.
    const starter = files.filter(({ code }) => code.includes('function workerScript('));
    expect(starter.map(({ f }) => path.posix.dirname(f))).toEqual(['package']);
    let relative = 0;
    for (const { f, code } of files) {
      // esbuild writes `import … from "…"` (or its `} from "…"` line), `import "…"` and `import("…")`.
      for (const m of code.matchAll(/(?:^\} from |^(?:import|export)\b[^\n"]*?\bfrom |^import |\bimport\()"(\.[^"]+)"/gm)) {
        relative++;
        expect(names, `${f} imports ${m[1]}`).toContain(path.posix.join(path.posix.dirname(f), m[1]!));
      }
      expect(code, f).not.toMatch(/^await\b|^(?:const|let|var) [^=]+= await\b/m);
    }
    expect(relative).toBeGreaterThan(names.length);
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
