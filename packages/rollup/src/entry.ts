import { statSync } from 'node:fs';

// What the package exports: dist/bundle/index.js (this plugin with the compiler inlined, built by
// scripts/bundle.mjs; one file to load instead of about 130) when it is at least as new as
// dist/index.js, else the unbundled modules, so a `tsc --build` alone never runs stale code.
const mtime = (file: string): number => statSync(new URL(file, import.meta.url), { throwIfNoEntry: false })?.mtimeMs ?? -1;
const fresh = mtime('./bundle/index.js') >= mtime('./index.js');
const loaded = (await (fresh ? import(new URL('./bundle/index.js', import.meta.url).href) : import('./index.js'))) as typeof import('./index.js');

export default loaded.default;
