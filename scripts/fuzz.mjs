#!/usr/bin/env node
// The long compiler fuzz (docs/security.md): the properties of
// test/hardening/fuzz-compiler.test.ts at a larger scale and a fresh seed. Counterexamples
// (shrunk) are written to fixtures/regressions/, where `npm test` replays them. A watchdog
// saves the input in progress as a regression when no input finishes for --stall seconds
// (a hang), then stops the run.
//
// Usage: node scripts/fuzz.mjs [--seed N] [--scale N] [--out DIR] [--stall SECONDS] [--figures FILE]
//                              [--only source|method|build|cli]
//   --figures appends the run's figures (JSON lines) to FILE, as scripts/soak.mjs collects them.
//   --scale 60 (default) is about 130,000 inputs: 90,000 sources, 30,000 method documents,
//   12,000 builds, 240 CLI runs; about 15 minutes on 2 cores.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    seed: { type: 'string' },
    scale: { type: 'string', default: '60' },
    out: { type: 'string', default: path.join(root, 'fixtures/regressions') },
    stall: { type: 'string', default: '120' },
    figures: { type: 'string' },
    only: { type: 'string' },
  },
});
// The fuzz tests by target, as vitest's -t patterns (their titles in fuzz-compiler.test.ts).
const TARGETS = {
  source: 'answers every mutated source',
  method: 'answers every mutated method document',
  build: 'answers every mutated package',
  cli: 'exits 0 or 1',
};
if (values.only !== undefined && !(values.only in TARGETS)) {
  console.error(`fuzz: unexpected --only ${values.only}, expected one of ${Object.keys(TARGETS).join(', ')}`);
  process.exit(2);
}
const seed = values.seed ?? String(Date.now() % 2_147_483_647);
const stallMs = Number(values.stall) * 1000;
const out = path.resolve(values.out);
const work = mkdtempSync(path.join(os.tmpdir(), 'berrypack-fuzz-run-'));
const progressFile = path.join(work, 'progress.json');
const figuresFile = values.figures ? path.resolve(values.figures) : path.join(work, 'figures.jsonl');

console.log(`fuzz: seed ${seed}, scale ${values.scale}, counterexamples to ${path.relative(process.cwd(), out) || '.'}`);
const started = Date.now();
// Its own process group, so the watchdog can stop vitest and its worker together.
const filter = values.only === undefined ? [] : ['-t', TARGETS[values.only]];
const child = spawn(process.execPath, [path.join(root, 'node_modules/vitest/vitest.mjs'), 'run', 'test/hardening/fuzz-compiler.test.ts', ...filter], {
  cwd: root,
  stdio: 'inherit',
  detached: true,
  env: {
    ...process.env,
    BERRYPACK_FUZZ_SEED: seed,
    BERRYPACK_FUZZ_SCALE: values.scale,
    BERRYPACK_FUZZ_REGRESSIONS: out,
    BERRYPACK_FUZZ_PROGRESS: progressFile,
    BERRYPACK_HARDENING_FIGURES: figuresFile,
  },
});

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } finally {
      process.exit(130);
    }
  });
}

let stalled;
const watchdog = setInterval(() => {
  if (!existsSync(progressFile)) return;
  if (Date.now() - statSync(progressFile).mtimeMs < stallMs) return;
  stalled = JSON.parse(readFileSync(progressFile, 'utf8'));
  clearInterval(watchdog);
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}, 5_000);

const code = await new Promise((resolve) => child.once('exit', (status) => resolve(status ?? 1)));
clearInterval(watchdog);

if (stalled) {
  const problem = `no answer within ${values.stall} s: a hang or a runaway input`;
  console.error(`fuzz: ${problem} (${stalled.target} ${stalled.base})`);
  if (stalled.target !== 'cli') {
    mkdirSync(out, { recursive: true });
    const file = path.join(out, `${stalled.target}-hang-${Date.now().toString(36)}.json`);
    const record = {
      target: stalled.target,
      file: stalled.file,
      ...(stalled.package ? { package: stalled.package } : {}),
      base: stalled.base,
      mutations: stalled.mutations,
      problem,
      seed: Number(seed),
      found: new Date().toISOString().slice(0, 10),
    };
    writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
    console.error(`fuzz: saved to ${path.relative(process.cwd(), file)}`);
  }
}

const figures = existsSync(figuresFile)
  ? readFileSync(figuresFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line))
      .filter((f) => f.name === 'fuzz')
  : [];
const total = figures.reduce((n, f) => n + f.inputs, 0);
for (const f of figures)
  console.log(
    `fuzz: ${f.target.padEnd(12)} ${String(f.inputs).padStart(7)} inputs${f.failed ? ', FAILED' : ''}${f.interrupted ? ', interrupted' : ''}${f.ms ? ` in ${Math.round(f.ms / 1000)} s` : ''}`,
  );
console.log(
  `fuzz: ${total} inputs in ${Math.round((Date.now() - started) / 1000)} s, seed ${seed}, ${code === 0 && !stalled ? 'no counterexample' : 'FAILED (see above)'}`,
);
rmSync(work, { recursive: true, force: true });
process.exitCode = stalled ? 1 : code;
