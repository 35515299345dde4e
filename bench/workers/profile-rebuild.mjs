// CPU profile of the compiler API's warm rebuild, for bench/profile.mjs: one compiler, a first
// build and a few warm-up rebuilds unprofiled, then ITER rebuilds each after one edit (alternating
// a routine and a code module, as the harness does) under the inspector's profiler.
//   node bench/workers/profile-rebuild.mjs PKG_DIR OUT.cpuprofile ITER INTERVAL_US
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const [pkgDir, outFile, iterArg, intervalArg] = process.argv.slice(2);
const iter = Number(iterArg ?? 20);
const { createCompiler } = await import(pathToFileURL(path.join(ROOT, 'packages/compiler/dist/index.js')).href);
const manifest = path.join(pkgDir, 'plugin.json');
const compiler = createCompiler();
let counter = 0;
function edit() {
  counter += 1;
  if (counter % 2) appendFileSync(path.join(pkgDir, 'routines/ns0/model0.md'), `\nEdited ${counter}.\n`);
  else {
    const file = path.join(pkgDir, 'routines/lib/m0.js');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/(export const LABEL_\d+ = ")(?:e\d+ )?/, `$1e${counter} `));
  }
}
if (!compiler.build(manifest).ok) throw new Error('the package does not build');
for (let i = 0; i < 4; i++) {
  edit();
  compiler.build(manifest);
}
const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: Number(intervalArg ?? 200) });
await session.post('Profiler.start');
const t = performance.now();
for (let i = 0; i < iter; i++) {
  edit();
  if (!compiler.build(manifest).ok) throw new Error('a rebuild failed');
}
const ms = performance.now() - t;
const { profile } = await session.post('Profiler.stop');
writeFileSync(outFile, JSON.stringify(profile));
process.stdout.write(JSON.stringify({ rebuilds: iter, msPerRebuild: ms / iter }) + '\n');
