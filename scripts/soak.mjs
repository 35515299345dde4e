#!/usr/bin/env node
// The soak (docs/security.md): the hardening tests at soak scale, then the long fuzz.
//   - 1,000 concurrent executions of the load agent, with RSS and heap before and after
//     (the vitest worker runs with --expose-gc, so both are measured after a collection);
//   - 300 kills of `berrypack build` and 40 of `berrypack run --journal`;
//   - a package of 10,000 sources;
//   - the fuzz regressions of fixtures/regressions/, with the half-GiB inputs;
//   - scripts/fuzz.mjs (about 130,000 inputs at its default scale).
//
// Usage: node scripts/soak.mjs [--no-fuzz] [--fuzz-scale N] [--seed N] [--figures FILE]
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    'no-fuzz': { type: 'boolean', default: false },
    'fuzz-scale': { type: 'string', default: '60' },
    seed: { type: 'string' },
    figures: { type: 'string' },
  },
});
const work = mkdtempSync(path.join(os.tmpdir(), 'berrypack-soak-'));
const figuresFile = values.figures ? path.resolve(values.figures) : path.join(work, 'figures.jsonl');

function run(args, env) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: 'inherit', env: { ...process.env, BERRYPACK_HARDENING_FIGURES: figuresFile, ...env } });
    child.once('exit', (code) => resolve(code ?? 1));
  });
}

const started = Date.now();
const host = `${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${os.platform()} ${os.release()}`;
console.log(`soak: ${new Date().toISOString()} on ${host}`);

const tests = await run(
  [
    path.join(root, 'node_modules/vitest/vitest.mjs'),
    'run',
    'test/hardening/load.test.ts',
    'test/hardening/crash-safety.test.ts',
    'test/hardening/paths.test.ts',
    // With BERRYPACK_SOAK set, vitest.config.ts includes it, half-GiB inputs and all.
    'test/hardening/regressions.test.ts',
  ],
  {
    BERRYPACK_SOAK: '1',
    ...(values.seed ? { BERRYPACK_FUZZ_SEED: values.seed } : {}),
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --expose-gc`.trim(),
  },
);
const fuzz = values['no-fuzz']
  ? 0
  : await run(
      [path.join(root, 'scripts/fuzz.mjs'), '--scale', values['fuzz-scale'], '--figures', figuresFile, ...(values.seed ? ['--seed', values.seed] : [])],
      {},
    );

const figures = existsSync(figuresFile)
  ? readFileSync(figuresFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line))
  : [];
const of = (name) => figures.filter((f) => f.name === name);
console.log(`\nsoak: figures (${host})`);
for (const f of of('load')) {
  console.log(
    `  load: ${f.executions} concurrent executions, ${f.failures} failed, ${f.ms} ms; RSS ${f.rssMbBefore} → ${f.rssMbAfter} MB, heap ${f.heapMbBefore} → ${f.heapMbAfter} MB${f.gc ? ' (after gc)' : ''}`,
  );
}
for (const f of of('build-kills'))
  console.log(`  build kills: ${f.kills} (${f.interrupted} mid-build), leftover temporary files ${f.leftoverTemporaries}, states ${JSON.stringify(f.states)}`);
for (const f of of('run-kills')) console.log(`  run kills: ${f.kills}, torn last lines ${f.tornLastLines}, replays ${JSON.stringify(f.replays)}`);
for (const f of of('enormous-package')) console.log(`  enormous package: ${f.sources} sources built in ${f.buildMs} ms (ok: ${f.ok})`);
const fuzzed = of('fuzz').reduce((n, f) => n + f.inputs, 0);
if (fuzzed > 0)
  console.log(
    `  fuzz: ${fuzzed} inputs (${of('fuzz')
      .map((f) => `${f.target} ${f.inputs}`)
      .join(', ')})`,
  );
console.log(`soak: ${tests === 0 && fuzz === 0 ? 'passed' : 'FAILED'} in ${Math.round((Date.now() - started) / 60_000)} min`);
rmSync(work, { recursive: true, force: true });
process.exitCode = tests === 0 && fuzz === 0 ? 0 : 1;
