// What a fresh process loads on the build path (issue #21, start-up): module loading is most of a
// small build, so what a build does not use must stay unloaded. Each case runs the built dist/ in
// a child process with test/support/module-log.mjs preloaded, which lists every module it loads.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePackage } from '../bench/generate.mjs';
import { BIN, ROOT } from './support/cli.js';
import { cleanup, tempDir } from './support/temp.js';

let dir: string;
let pkg: string;
beforeAll(() => {
  dir = tempDir('berrypack-startup-');
  pkg = path.join(dir, 'pkg');
  // The benchmark's package: frontmatter in plain block style, code routines and a lib module.
  generatePackage(pkg, 30);
});
afterAll(() => cleanup(dir));

let runs = 0;
/** Runs node with `args` (in the temporary folder: a cached build writes its cache there) and returns what it loaded and printed. */
function loaded(args: string[]): { modules: string[]; status: number | null; out: string } {
  const log = path.join(dir, `modules-${++runs}.log`);
  writeFileSync(log, '');
  const result = spawnSync(process.execPath, ['--import', path.join(ROOT, 'test/support/module-log.mjs'), ...args], {
    cwd: dir,
    env: { ...process.env, BERRYPACK_MODULE_LOG: log, NO_COLOR: '1' },
    encoding: 'utf8',
    timeout: 120_000,
  });
  const modules = readFileSync(log, 'utf8').split('\n').filter(Boolean);
  return { modules, status: result.status, out: `${result.stdout}${result.stderr}` };
}

const yamlFiles = (modules: string[]) => modules.filter((m) => /[\\/]node_modules[\\/]yaml[\\/]/.test(m));

describe('start-up of a build', () => {
  it('loads no yaml when every frontmatter is in plain block style (CLI build)', () => {
    const run = loaded([BIN, 'build', path.join(pkg, 'plugin.json'), '--out-dir', path.join(dir, 'out-cli'), '--no-cache']);
    expect(run.status, run.out).toBe(0);
    expect(run.modules.some((m) => m.includes('/packages/compiler/dist/'))).toBe(true);
    expect(yamlFiles(run.modules)).toEqual([]);
  });

  it('loads neither the persistent cache, the report, the watcher nor the early worker for a clean --no-cache build', () => {
    const run = loaded([BIN, 'build', path.join(pkg, 'plugin.json'), '--out-dir', path.join(dir, 'out-lean'), '--no-cache']);
    expect(run.status, run.out).toBe(0);
    const cli = run.modules
      .filter((m) => m.includes('/packages/cli/dist/'))
      .map((m) => m.slice(m.indexOf('/packages/cli/dist/') + '/packages/cli/dist/'.length));
    expect(cli).toContain('commands/build.js');
    expect(cli.filter((m) => /^(build-cache|early-build|output\/|watch\/)/.test(m))).toEqual([]);
    // Importing it costs a fresh process about 10 ms of CPU, and a one-thread build starts no thread.
    expect(run.modules.filter((m) => m.includes('worker_threads'))).toEqual([]);
    // Each loads when its run needs it: the cache by default, the report for --json.
    const json = loaded([BIN, 'build', path.join(pkg, 'plugin.json'), '--out-dir', path.join(dir, 'out-json'), '--json']);
    expect(json.status, json.out).toBe(0);
    expect(JSON.parse(json.out.slice(json.out.indexOf('{'))).ok).toBe(true);
    expect(json.modules.filter((m) => /\/packages\/cli\/dist\/(build-cache|output\/report)\.js$/.test(m))).toHaveLength(2);
  });

  it('loads yaml once a frontmatter needs it (a folded block scalar), and builds', () => {
    const routine = path.join(pkg, 'routines/ns0/model0.md');
    const text = readFileSync(routine, 'utf8');
    writeFileSync(routine, text.replace(/^title: (.*)$/m, 'title: >\n  $1'));
    try {
      const run = loaded([BIN, 'build', path.join(pkg, 'plugin.json'), '--out-dir', path.join(dir, 'out-folded'), '--no-cache']);
      expect(run.status, run.out).toBe(0);
      expect(yamlFiles(run.modules).length).toBeGreaterThan(10);
    } finally {
      writeFileSync(routine, text);
    }
  });
});
