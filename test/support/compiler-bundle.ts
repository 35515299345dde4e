import { bundleCompiler } from '../../scripts/bundle-compiler.mjs';

/**
 * vitest's global setup: the compiler's dist/*.js is one esbuild build of its sources
 * (scripts/bundle-compiler.mjs), which `npx tsc --build` does not redo. Tests that run the CLI,
 * the bench's generator or a packed tarball in a child process load that bundle, so it is rebuilt
 * here first (well under a second; files are rewritten only when their bytes change).
 */
export default async function setup(): Promise<void> {
  await bundleCompiler();
}
