// CPU profile of the compiler API's warm rebuild, for bench/profile.mjs: one compiler, a first
// build and a few warm-up rebuilds unprofiled, then ITER rebuilds each after one edit (alternating
// a routine and a code module, as the harness does) under the inspector's profiler.
//   node bench/workers/profile-rebuild.mjs PKG_DIR OUT.cpuprofile ITER INTERVAL_US [listed]
// With `listed`, each rebuild is given the edited file as `changedFiles` (what the adapters pass).
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const [pkgDir, outFile, iterArg, intervalArg, listedArg] = process.argv.slice(2);
const listed = listedArg === 'listed';
const iter = Number(iterArg ?? 20);
const { createCompiler } = await import(pathToFileURL(path.join(ROOT, 'packages/compiler/dist/index.js')).href);
const manifest = path.join(pkgDir, 'plugin.json');
const compiler = createCompiler();
let counter = 0;
/** Edits a routine or a code module in turn; returns the edited file. */
function edit() {
  counter += 1;
  if (counter % 2) {
    const file = path.join(pkgDir, 'routines/ns0/model0.md');
    appendFileSync(file, `\nEdited ${counter}.\n`);
    return file;
  }
  const file = path.join(pkgDir, 'routines/lib/m0.js');
  writeFileSync(file, readFileSync(file, 'utf8').replace(/(export const LABEL_\d+ = ")(?:e\d+ )?/, `$1e${counter} `));
  return file;
}
const rebuild = (file) => compiler.build(manifest, listed ? { changedFiles: [file] } : {});
if (!compiler.build(manifest).ok) throw new Error('the package does not build');
for (let i = 0; i < 4; i++) rebuild(edit());
const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: Number(intervalArg ?? 200) });
await session.post('Profiler.start');
const t = performance.now();
for (let i = 0; i < iter; i++) {
  if (!rebuild(edit()).ok) throw new Error('a rebuild failed');
}
const ms = performance.now() - t;
const { profile } = await session.post('Profiler.stop');
writeFileSync(outFile, JSON.stringify(profile));
process.stdout.write(JSON.stringify({ rebuilds: iter, msPerRebuild: ms / iter }) + '\n');
