// The benchmark harness runs end to end in its reduced mode and reports every section. No timing
// is asserted: the figures depend on the machine (docs/performance.md has the real ones).
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RUN = path.join(ROOT, 'bench/run.mjs');
const REPORT = path.join(ROOT, 'bench/report.mjs');
const SECTIONS = ['cold', 'memory', 'bundlers', 'watch', 'runtime'] as const;

interface Comparison {
  against: string;
  ratio?: { median: number; min: number; max: number };
  status?: string;
}
interface Figure {
  section: string;
  id: string;
  label: string;
  n?: number;
  unit: string;
  median: number | undefined;
  min: number | undefined;
  max: number | undefined;
  comparisons: Comparison[];
}
interface Report {
  meta: { node: string; cpus: number; ns: number[]; mode: string };
  sections: Record<string, Figure[]>;
  targets: { id: string; status: string; target: string }[];
  errors: string[];
}

function bench(args: string[], timeoutMs = 170_000, script = RUN): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [script, ...args],
      { cwd: ROOT, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, NO_COLOR: '1' } },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
      },
    );
  });
}

let work: string;
beforeAll(() => {
  work = mkdtempSync(path.join(os.tmpdir(), 'berrypack-bench-test-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('bench/run.mjs (reduced mode, N = 100)', () => {
  it('prints a table with every section and writes the same figures as JSON', async () => {
    const jsonFile = path.join(work, 'report.json');
    const { code, stdout, stderr } = await bench(['--n', '100', '--runs', '1', '--quick-smoke', '--json-out', jsonFile]);
    expect(stderr).not.toMatch(/^error/m);
    expect(code, stderr + stdout).toBe(0);

    // The table: its header, a row of each section, the targets line.
    expect(stdout).toMatch(/^section\s+figure\s+N\s+median\s+min–max\s+ratio \(min–max\)\s+vs\s+target\s+status$/m);
    for (const section of SECTIONS) expect(stdout).toMatch(new RegExp(`^${section}\\s`, 'm'));
    expect(stdout).toMatch(/^targets: \d+ met, \d+ missed, \d+ not measured$/m);
    expect(stdout).toContain('`berrypack build` cold');

    const report = JSON.parse(readFileSync(jsonFile, 'utf8')) as Report;
    expect(report.errors).toEqual([]);
    expect(report.meta).toMatchObject({ node: process.version, ns: [100], mode: 'quick-smoke' });
    expect(Object.keys(report.sections)).toEqual([...SECTIONS]);
    for (const section of SECTIONS) {
      expect(report.sections[section]!.length, section).toBeGreaterThan(0);
      for (const f of report.sections[section]!) {
        expect(typeof f.median, `${section} ${f.id}`).toBe('number');
        expect(f.min! <= f.median! && f.median! <= f.max!, `${section} ${f.id}`).toBe(true);
      }
    }
    const ids = (section: string) => report.sections[section]!.map((f) => f.id);
    expect(ids('cold')).toEqual(expect.arrayContaining(['startup', 'floor', 'cli']));
    expect(ids('bundlers')).toEqual(
      expect.arrayContaining([
        'rollup-plugin',
        'vite-plugin',
        'esbuild-plugin',
        'esbuild-js',
        'rollup-js',
        'webpack-plugin',
        'rspack-plugin',
        // The hosts alone (a do-nothing plugin), beside each host with the plugin.
        'rollup-floor',
        'vite-floor',
        'esbuild-floor',
        'webpack-floor',
        'rspack-floor',
      ]),
    );
    expect(ids('watch')).toEqual(
      expect.arrayContaining([
        'esbuild-js-incremental',
        'compiler-routine',
        'compiler-code',
        'cli-watch-routine',
        'cli-watch-code',
        'esbuild-plugin-routine',
        'esbuild-plugin-code',
        'rollup-watch-routine',
        'rollup-watch-code',
        // Each host's floor beside its watcher with the plugin.
        'esbuild-floor-routine',
        'rollup-floor-code',
        'vite-watch-routine',
        'vite-floor-routine',
        'webpack-watch-code',
        'webpack-floor-code',
        'rspack-watch-routine',
        'rspack-floor-routine',
        // webpack's and Rspack's rebuild split in the same process: the compiler's share and the rest.
        'webpack-watch-adapter-routine',
        'webpack-watch-compiler-code',
        'rspack-watch-hooks-routine',
        'rspack-watch-adapter-code',
      ]),
    );
    const viteWatch = report.sections.watch!.find((f) => f.id === 'vite-watch-routine')!;
    expect(viteWatch.comparisons[0]).toMatchObject({ against: 'Vite build watch floor (same run)', ratio: { median: expect.any(Number) } });
    expect(ids('runtime')).toEqual(
      expect.arrayContaining([
        'sandbox-invocation',
        'tool-call',
        'first-tool-call',
        'tool-call-k50',
        'next-model',
        'scripted-model',
        'chat-turn',
        'plain-chat-turn',
      ]),
    );
    expect(ids('memory')).toContain('cli-rss');
    // Every comparison is a ratio of figures measured in the same run.
    const cli = report.sections.cold!.find((f) => f.id === 'cli')!;
    expect(cli.comparisons[0]).toMatchObject({ against: 'floor', ratio: { median: expect.any(Number) } });
    // Every target is listed, measured or not: the N = 1,000 and 10,000 ones are not at N = 100.
    for (const t of report.targets) expect(t.status).toMatch(/^(met|missed|not measured)/);
    expect(report.targets.map((t) => t.id)).toEqual(
      expect.arrayContaining(['cli@1000', 'cli@10000', 'cli-rss-median@10000', 'sandbox-invocation-median', 'tool-call-overhead']),
    );
  }, 180_000);

  it('prints one JSON object with --json, and refuses unknown arguments', async () => {
    const { code, stdout } = await bench(['--json', '--only', 'runtime', '--runs', '1', '--quick-smoke', '--iterations', '2']);
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as Report;
    expect(report.sections.runtime!.length).toBeGreaterThan(0);
    expect(Object.keys(report.sections)).toEqual([...SECTIONS]);

    const bad = await bench(['--bogus']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('Unexpected argument --bogus');

    // bench/report.mjs renders the saved JSON again, and answers bad arguments without a trace.
    const saved = path.join(work, 'runtime.json');
    writeFileSync(saved, stdout);
    const targets = await bench([saved, '--targets'], 30_000, REPORT);
    expect(targets.code).toBe(0);
    expect(targets.stdout).toContain('warm tool-call round trip');
    expect((await bench(['--help'], 30_000, REPORT)).stdout).toMatch(/^usage: node bench\/report\.mjs/);
    const missing = await bench([path.join(work, 'absent.json')], 30_000, REPORT);
    expect([missing.code, missing.stderr]).toEqual([1, `cannot read ${path.join(work, 'absent.json')}: no such file\n`]);
    const notResult = await bench([path.join(ROOT, 'package.json')], 30_000, REPORT);
    expect(notResult.code).toBe(1);
    expect(notResult.stderr).toContain('is not a result of');
    expect(notResult.stderr).not.toContain('    at ');
    expect((await bench([saved, '--bogus'], 30_000, REPORT)).stderr).toContain('unknown option --bogus');
  }, 90_000);
});
