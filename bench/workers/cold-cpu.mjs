#!/usr/bin/env node
// CPU of one cold build through the compiler API, for before/after comparisons on a loaded
// machine (wall time means little there): main-thread CPU from /proc (after loading the
// compiler and after the build), process CPU (every thread: the collector's helpers too) and
// peak RSS, as one JSON line. Give it a compiler entry (a copy of packages/compiler/dist kept
// from before a change, or the current one) so fresh processes of both can be interleaved.
//
//   node bench/workers/cold-cpu.mjs packages/compiler/dist/index.js PKG_DIR [OUT_DIR]
//
// With OUT_DIR it also writes the bundle (as `berrypack build` does). Linux only (/proc).
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [, , compilerPath, pkg, outDir] = process.argv;
if (!compilerPath || !pkg) {
  console.error('usage: cold-cpu.mjs COMPILER_INDEX_JS PKG_DIR [OUT_DIR]');
  process.exit(2);
}
const mainThreadMs = () => {
  const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * (1000 / 100);
};
const { createCompiler, writeBundle } = await import(pathToFileURL(path.resolve(compilerPath)).href);
const loadMs = mainThreadMs();
const compiler = createCompiler({});
const manifest = path.join(path.resolve(pkg), 'plugin.json');
await compiler.prepare(manifest);
const result = compiler.build(manifest);
if (!result.ok) {
  console.error(JSON.stringify(result.diagnostics.slice(0, 3)));
  process.exit(1);
}
if (outDir) writeBundle(outDir, result.bundle);
const mainMs = mainThreadMs();
const cpu = process.cpuUsage();
console.log(
  JSON.stringify({
    id: result.bundle.id,
    loadMs,
    mainMs,
    processMs: Math.round((cpu.user + cpu.system) / 1000),
    peakRssMB: Math.round(process.resourceUsage().maxRSS / 1024),
    load: os.loadavg()[0].toFixed(1),
  }),
);
