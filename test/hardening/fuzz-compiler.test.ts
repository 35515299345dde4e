import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { createCompiler, readBundle, type Diagnostic } from '@berrypack/compiler';
import { berrypack, ROOT } from '../support/cli.js';
import {
  ceilingMs,
  checkProperty,
  corpus,
  describeInput,
  diagnosticProblems,
  expectBuildContract,
  expectMethodContract,
  expectSourceContract,
  FUZZ_SEED,
  mutatedArb,
  packageOf,
  PACKAGES,
  progress,
  recordFigure,
  runs,
  saveRegression,
  scaledTimeout,
  type CorpusFile,
  type Mutated,
} from '../support/fuzz.js';
import { cleanup, tempDir } from '../support/temp.js';

/**
 * Hostile input at build time (docs/security.md): real fixtures, mutated (bytes, lines,
 * YAML and JSON structure, unicode, huge scalars, deep nesting, alias bombs, long lines,
 * CRLF and BOM, invalid UTF-8), through checkSource, checkMethod, the whole build and the
 * CLI. Every input ends in a result whose diagnostics have the contract's shape, within a
 * generous ceiling, and never in an exception. Seeded: a failure names its seed and is
 * saved by the long run (scripts/fuzz.mjs) into fixtures/regressions/.
 */

const SOURCES = corpus(['notebook', 'runtime', 'imports', 'broken', 'monorepo/packages'], (n) => n.endsWith('.md'));
const METHODS = corpus(['methods'], (n) => /\.method\.(ya?ml|json)$/.test(n));
const PACKAGE_FILES = corpus([...PACKAGES], (n) => /\.(md|js|json|txt)$/.test(n));

const root = tempDir('berrypack-fuzz-');
afterAll(() => cleanup(root));

function timed<T>(what: string, input: Mutated, run: () => T): T {
  const started = performance.now();
  const result = run();
  const ms = performance.now() - started;
  const ceiling = ceilingMs(input.bytes.length);
  if (ms > ceiling) throw new Error(`${what} took ${Math.round(ms)} ms (ceiling ${ceiling} ms) for ${describeInput(input)}`);
  return result;
}

/** Most of a test's timeout, so an interrupted property still reports before vitest gives up. */
function budget(baseMs: number): number {
  return Math.round(scaledTimeout(baseMs) * 0.8);
}

function fileName(input: Mutated): string {
  return input.base === 'random' ? 'random.md' : path.posix.basename(input.base);
}

function methodName(input: Mutated): string {
  return input.base === 'random' ? 'random.method.yaml' : path.posix.basename(input.base);
}

describe('fuzz: checkSource', () => {
  it(
    'answers every mutated source with well-formed diagnostics, never an exception',
    () => {
      expect(SOURCES.length).toBeGreaterThan(40);
      const property = fc.property(mutatedArb(SOURCES), (input) => {
        progress('source', input, { file: fileName(input) });
        timed('checkSource', input, () => expectSourceContract(fileName(input), input.bytes));
      });
      checkProperty('checkSource', property, runs(1_500), budget(25_000), (input, problem) =>
        saveRegression({ target: 'source', file: fileName(input), base: input.base, mutations: input.mutations, problem }, input.bytes),
      );
    },
    scaledTimeout(25_000),
  );
});

describe('fuzz: checkMethod', () => {
  it(
    'answers every mutated method document with well-formed diagnostics and no internal error',
    () => {
      expect(METHODS.length).toBeGreaterThan(5);
      const property = fc.property(mutatedArb(METHODS), (input) => {
        progress('method', input, { file: methodName(input) });
        timed('checkMethod', input, () => expectMethodContract(methodName(input), input.bytes));
      });
      checkProperty('checkMethod', property, runs(500), budget(15_000), (input, problem) =>
        saveRegression({ target: 'method', file: methodName(input), base: input.base, mutations: input.mutations, problem }, input.bytes),
      );
    },
    scaledTimeout(15_000),
  );
});

describe('fuzz: the whole build (readManifest, discovery, references, code, resources, imports)', () => {
  const work = path.join(root, 'build');
  for (const p of PACKAGES) cpSync(path.join(ROOT, 'fixtures', p), path.join(work, p), { recursive: true });
  const original = new Map(PACKAGE_FILES.map((f) => [f.name, f.bytes]));
  // One long-lived compiler, as in watch mode: its caches must not be poisoned by bad input.
  const compiler = createCompiler({ store: path.join(root, 'store') });

  function buildMutated(input: Mutated, file: CorpusFile | undefined) {
    const target = file ?? PACKAGE_FILES[0]!;
    const { build, pkg, rel } = packageOf(target.name);
    const onDisk = path.join(work, pkg, rel);
    writeFileSync(onDisk, input.bytes);
    try {
      return { result: timed('build', input, () => compiler.build(path.join(work, build, 'plugin.json'))), onDisk };
    } finally {
      writeFileSync(onDisk, original.get(target.name)!);
    }
  }

  it(
    'answers every mutated package with diagnostics or a bundle that verifies, never an exception',
    () => {
      const byName = new Map(PACKAGE_FILES.map((f) => [f.name, f]));
      const property = fc.property(mutatedArb(PACKAGE_FILES), (input) => {
        // Random bytes replace the manifest: the file a user is most likely to get wrong.
        const file = byName.get(input.base) ?? byName.get('notebook/plugin.json')!;
        const { pkg, rel } = packageOf(file.name);
        progress('build', input, { package: pkg, file: rel });
        const { result, onDisk } = buildMutated(input, file);
        expectBuildContract(result, onDisk, input.bytes, work);
      });
      checkProperty('build', property, runs(200), budget(25_000), (input, problem) => {
        const file = byName.get(input.base) ?? byName.get('notebook/plugin.json')!;
        const { pkg, rel } = packageOf(file.name);
        return saveRegression({ target: 'build', package: pkg, file: rel, base: input.base, mutations: input.mutations, problem }, input.bytes);
      });
      // The same compiler still builds every pristine package to the bytes a fresh one writes.
      for (const p of ['notebook', 'imports/app', 'runtime/flow', 'runtime/models']) {
        const manifest = path.join(work, p, 'plugin.json');
        expect(compiler.build(manifest).bundle?.id, p).toBe(createCompiler({ store: path.join(root, 'store') }).build(manifest).bundle?.id);
      }
    },
    scaledTimeout(25_000),
  );
});

describe('fuzz: the CLI, on a sample', () => {
  interface Reported {
    ok: boolean;
    diagnostics: Diagnostic[];
  }

  function expectCleanExit(r: { code: number | null; stdout: string; stderr: string }, what: string): Reported {
    expect([0, 1], `${what}: exit ${r.code}, stderr ${r.stderr.slice(0, 300)}`).toContain(r.code);
    expect(r.stderr, what).not.toMatch(/\n\s+at |internal error/);
    const report = JSON.parse(r.stdout) as Reported;
    expect(report.ok, what).toBe(r.code === 0);
    expect(diagnosticProblems(report.diagnostics), what).toEqual([]);
    return report;
  }

  it(
    'exits 0 or 1 with exactly one JSON object and no stack trace, for mutated packages and sources',
    () => {
      const samples = fc.sample(mutatedArb(PACKAGE_FILES.filter((f) => f.name.startsWith('notebook/'))), { seed: FUZZ_SEED, numRuns: runs(4) });
      samples.forEach((input, i) => {
        const dir = path.join(root, 'cli', String(i));
        cpSync(path.join(ROOT, 'fixtures/notebook'), dir, { recursive: true });
        const rel = input.base === 'random' ? 'plugin.json' : input.base.slice('notebook/'.length);
        writeFileSync(path.join(dir, rel), input.bytes);
        progress('cli', input);
        const build = berrypack(['build', 'plugin.json', '--json', '--out-dir', 'out'], { cwd: dir });
        const report = expectCleanExit(build, `build ${describeInput(input)}`);
        if (report.ok) {
          const file = (report as Reported & { file: string }).file;
          expect(readBundle(new Uint8Array(readFileSync(path.join(dir, file)))).ok).toBe(true);
        }
        if (rel.endsWith('.md')) expectCleanExit(berrypack(['check', rel, '--json'], { cwd: dir }), `check ${describeInput(input)}`);
      });
      recordFigure('fuzz', { target: 'cli', seed: FUZZ_SEED, inputs: samples.length + 1, failed: false, interrupted: false });
      // A routine file that is pure noise, checked on its own.
      mkdirSync(path.join(root, 'cli', 'noise'), { recursive: true });
      writeFileSync(
        path.join(root, 'cli', 'noise', 'noise.md'),
        Uint8Array.from({ length: 256 }, (_v, k) => (k * 131 + 7) % 256),
      );
      expectCleanExit(berrypack(['check', 'noise.md', '--json'], { cwd: path.join(root, 'cli', 'noise') }), 'check noise.md');
    },
    scaledTimeout(30_000),
  );
});
