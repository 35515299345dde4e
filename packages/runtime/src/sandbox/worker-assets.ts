import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { QuickJSOptions } from 'quickjs-wasi';

// The project's libs (ES2023, @types/node 20) declare no WebAssembly, though Node has it.
const wasmApi = (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<QuickJSOptions['wasm']> } }).WebAssembly;

export interface WorkerAssets {
  /** The worker script: `worker.js` beside this module, or a `data:` URL made from `worker.ts`. */
  script: URL;
  quickjsUrl: string;
  /** Compiled once per process and cloned into every worker, which then instantiates it per VM. */
  wasm: QuickJSOptions['wasm'];
}

let assets: Promise<WorkerAssets> | undefined;

export function workerAssets(): Promise<WorkerAssets> {
  if (assets === undefined) {
    assets = load();
    // A failure (say, a missing package) is reported to the invocation; the next one retries.
    assets.catch(() => {
      assets = undefined;
    });
  }
  return assets;
}

async function load(): Promise<WorkerAssets> {
  const require = createRequire(import.meta.url);
  const quickjsUrl = pathToFileURL(require.resolve('quickjs-wasi')).href;
  const wasm = await wasmApi.compile(await readFile(require.resolve('quickjs-wasi/quickjs.wasm')));
  return { script: await workerScript(), quickjsUrl, wasm };
}

/**
 * `tsc --build` emits `worker.js` into dist/ beside this module. Under vitest this module is
 * `src/sandbox/worker-assets.ts`, and a worker thread gets no TypeScript loader, so the
 * types of `worker.ts` are stripped here with the project's own compiler (a dev dependency,
 * present wherever the sources run) and the result started from a `data:` URL. A committed
 * `worker.js` in src/ would not help: without `allowJs`, tsc does not copy it to dist/.
 */
async function workerScript(): Promise<URL> {
  const built = new URL('./worker.js', import.meta.url);
  if (built.protocol === 'file:' && existsSync(fileURLToPath(built))) return built;
  const source = new URL('./worker.ts', import.meta.url);
  const ts = (await import('typescript')).default;
  const { outputText } = ts.transpileModule(await readFile(source, 'utf8'), {
    fileName: fileURLToPath(source),
    compilerOptions: {
      module: ts.ModuleKind.ESNext,
      target: ts.ScriptTarget.ES2022,
      verbatimModuleSyntax: true,
      sourceMap: false,
    },
  });
  return new URL(`data:text/javascript;base64,${Buffer.from(outputText, 'utf8').toString('base64')}`);
}
