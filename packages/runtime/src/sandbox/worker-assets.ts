import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { QuickJSOptions } from 'quickjs-wasi';
import { importMemory, type MemoryLimits } from './imported-memory.js';

// The project's libs (ES2023, @types/node 20) declare no WebAssembly, though Node has it.
const wasmApi = (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<QuickJSOptions['wasm']> } }).WebAssembly;

export interface WorkerAssets {
  /** The worker script: `worker.js` beside this module, or the installed package's. */
  script: URL;
  quickjsUrl: string;
  /** Compiled once per process and cloned into every worker, which then instantiates it per VM. */
  wasm: QuickJSOptions['wasm'];
  /** Set when `wasm` imports its memory (imported-memory.ts). */
  memoryLimits: MemoryLimits | undefined;
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
  const bytes = new Uint8Array(await readFile(require.resolve('quickjs-wasi/quickjs.wasm')));
  const imported = importMemory(bytes);
  const wasm = await wasmApi.compile(imported?.bytes ?? bytes);
  return { script: await workerScript(require), quickjsUrl, wasm, memoryLimits: imported?.limits };
}

/**
 * `tsc --build` emits `worker.js` into dist/ beside this module. Where this module is not in
 * dist/ (bundled into an application by esbuild or Rollup, or run from src/ by the tests), the
 * installed package's copy is used, found the way `quickjs-wasi` is: the worker is a file of
 * its own because a worker thread starts from one.
 */
async function workerScript(require: NodeJS.Require): Promise<URL> {
  const beside = new URL('./worker.js', import.meta.url);
  if (beside.protocol === 'file:' && existsSync(fileURLToPath(beside))) return beside;
  return pathToFileURL(require.resolve('@berrypack/runtime/internal-sandbox-worker'));
}
