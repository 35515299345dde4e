// What the bin does to its own process for `berrypack build` (issue #21, round eight, wt-sys):
// a one-shot build keeps V8's young generation at its initial size, and once a build has printed
// its outcome the bin calls process.exit instead of letting Node free V8's heap page by page, but
// only when stdout and stderr hold nothing unwritten. These run the real bin in child processes.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePackage } from '../bench/generate.mjs';
import { BIN } from './support/cli.js';
import { cleanup, tempDir } from './support/temp.js';

let dir: string;
let pkg: string;
let broken: string;
let preload: string;
let newSpace: string;
beforeAll(() => {
  dir = tempDir('berrypack-exit-');
  pkg = path.join(dir, 'pkg');
  generatePackage(pkg, 30);
  // Every routine with an error of its own: enough diagnostics to fill a pipe several times over.
  broken = path.join(dir, 'broken');
  const files = generatePackage(broken, 300).filter((f) => f.endsWith('.md'));
  for (const f of files) {
    const file = path.join(broken, f);
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^ {2}- ns\d+\.code\d+$/m, '  - missing.tool'));
  }
  // 'beforeExit' is emitted only when the event loop empties by itself, never under process.exit.
  preload = path.join(dir, 'natural-exit.mjs');
  writeFileSync(preload, `process.on('beforeExit', () => process.stderr.write('NATURAL-EXIT\\n'));\n`);
  // The main thread's young generation (both semi-spaces) as the process ends.
  newSpace = path.join(dir, 'new-space.mjs');
  writeFileSync(
    newSpace,
    [
      `import v8 from 'node:v8';`,
      `import { isMainThread } from 'node:worker_threads';`,
      `const young = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;`,
      `if (isMainThread) process.on('exit', () => process.stderr.write('NEW-SPACE ' + young() + '\\n'));`,
      '',
    ].join('\n'),
  );
});
afterAll(() => cleanup(dir));

function cli(args: string[], imported = preload) {
  const r = spawnSync(process.execPath, ['--import', imported, BIN, ...args], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
    timeout: 120_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('berrypack build ends through process.exit', () => {
  it('after a successful build, a failed one and a usage error, with the same exit codes and output', () => {
    const out = path.join(dir, 'out');
    const ok = cli(['build', path.join(pkg, 'plugin.json'), '--out-dir', out, '--no-cache']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/^built .*\.berry\.json\n {2}id sha256-[0-9a-f]{64}\n$/);
    expect(ok.stderr).not.toContain('NATURAL-EXIT');
    expect(readdirSync(out).filter((f) => f.endsWith('.berry.json'))).toHaveLength(1);

    const failed = cli(['build', path.join(broken, 'plugin.json'), '--out-dir', path.join(dir, 'out-broken'), '--no-cache']);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toMatch(/✖ \d+ errors?/);
    expect(failed.stderr).not.toContain('NATURAL-EXIT');

    const usage = cli(['build']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('expected exactly one MANIFEST');
    expect(usage.stderr).not.toContain('NATURAL-EXIT');
  });

  it('leaves every other command to end by itself', () => {
    const version = cli(['--version']);
    expect(version.code).toBe(0);
    expect(version.stderr).toContain('NATURAL-EXIT');
  });

  // A reader that starts late: the pipe's buffer (64 KiB on Linux) fills and the rest of the
  // report waits in the child's stdout. Exiting then would cut it at 65,536 bytes (checked
  // against a bin that exits unconditionally), so the bin leaves such a process to end by itself.
  // The reader starts half a second after the child's first write to stdout has returned (a
  // preload marks it), however long the build took on a loaded machine.
  it.skipIf(process.platform === 'win32')('delivers all of a long report to a pipe that is read late', () => {
    const manifest = path.join(broken, 'plugin.json');
    const expected = cli(['build', manifest, '--out-dir', path.join(dir, 'out-expected'), '--no-cache', '--json']);
    expect(expected.code).toBe(1);
    expect(expected.stdout.length).toBeGreaterThan(96 * 1024);
    expect((JSON.parse(expected.stdout) as { diagnostics: unknown[] }).diagnostics.length).toBeGreaterThanOrEqual(250);
    const report = path.join(dir, 'late-report.json');
    const code = path.join(dir, 'late-code');
    const q = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
    const written = path.join(dir, 'late-written');
    const marker = path.join(dir, 'mark-written.mjs');
    writeFileSync(
      marker,
      [
        `import { writeFileSync } from 'node:fs';`,
        `const write = process.stdout.write.bind(process.stdout);`,
        `process.stdout.write = (...args) => { const queued = write(...args); writeFileSync(${JSON.stringify(written)}, ''); return queued; };`,
        '',
      ].join('\n'),
    );
    const wait = `n=0; while [ ! -e ${q(written)} ] && [ $n -lt 1200 ]; do sleep 0.05; n=$((n+1)); done; sleep 0.5`;
    const build = [
      process.execPath,
      '--import',
      preload,
      '--import',
      marker,
      BIN,
      'build',
      manifest,
      '--out-dir',
      path.join(dir, 'out-late'),
      '--no-cache',
      '--json',
    ]
      .map(q)
      .join(' ');
    const r = spawnSync('sh', ['-c', `{ ${build}; echo $? > ${q(code)}; } | { ${wait}; cat > ${q(report)}; }`], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
      timeout: 120_000,
    });
    expect(r.status, r.stderr).toBe(0);
    expect(readFileSync(code, 'utf8').trim()).toBe('1');
    const got = readFileSync(report, 'utf8');
    // The length first: a cut report fails with two numbers rather than two long texts.
    expect(got.length).toBe(expected.stdout.length);
    expect(got).toBe(expected.stdout);
    // The output was still waiting when the build finished, so this process ended by itself.
    expect(r.stderr).toContain('NATURAL-EXIT');
  });
});

// Measured on Node 20's V8 only, so the bin leaves other versions alone (and so does this test).
describe.runIf(process.versions.node.startsWith('20.'))('a one-shot build keeps the young generation small', () => {
  const youngBytes = (stderr: string) => Number(/NEW-SPACE (\d+)/.exec(stderr)?.[1]);

  it('at its initial 1 MiB semi-spaces, where the same work without the flag grows them', () => {
    const one = cli(['build', path.join(broken, 'plugin.json'), '--out-dir', path.join(dir, 'out-young'), '--no-cache'], newSpace);
    expect(one.code).toBe(1);
    expect(youngBytes(one.stderr)).toBeLessThanOrEqual(2 * 1024 * 1024);
    // `check` reads and checks the same 300 routines without the flag: V8 grows its semi-spaces.
    const check = cli(['check', path.join(broken, 'plugin.json')], newSpace);
    expect(check.code).toBe(1);
    expect(youngBytes(check.stderr)).toBeGreaterThan(2 * 1024 * 1024);
  });

  it('but not with --parallel, whose worker thread resets it when it starts', () => {
    const parallel = cli(['build', path.join(broken, 'plugin.json'), '--out-dir', path.join(dir, 'out-parallel'), '--no-cache', '--parallel'], newSpace);
    expect(parallel.code).toBe(1);
    expect(youngBytes(parallel.stderr)).toBeGreaterThan(2 * 1024 * 1024);
  });
});
