/** The esbuild entries of @berrypack/compiler: `src/X.ts` for every `./dist/X.js` its `exports` name. */
export function compilerEntries(manifest?: unknown): { in: string; out: string }[];
/** Builds the compiler's dist/*.js (one build, code splitting); rewrites only files whose bytes change. */
export function bundleCompiler(): Promise<{ written: string[]; files: string[] }>;
/** One message per `new URL('./…', import.meta.url)` in `files` (paths relative to dist/) whose target `exists` denies. */
export function missingRelativeUrls(files: readonly { rel: string; text: string }[], exists: (target: string) => boolean): string[];
