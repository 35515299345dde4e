import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkMethod, checkSource, createCompiler, nodeHost, readBundle, type CompilerHost } from '@berrypack/compiler';
import { ROOT } from '../support/cli.js';
import {
  ceilingMs,
  diagnosticProblems,
  expectBuildContract,
  expectMethodContract,
  expectSourceContract,
  packageOf,
  REGRESSIONS_DIR,
  regressionBytes,
  type Regression,
} from '../support/fuzz.js';
import { cleanup, tempDir } from '../support/temp.js';

/**
 * Counterexamples the fuzzers found (fixtures/regressions/*.json, written by scripts/fuzz.mjs
 * or by hand from a failing `npm test`), each replayed against the same contract it broke,
 * and inputs too large to keep as fixtures, made on the fly.
 */

const root = tempDir('berrypack-regressions-');
afterAll(() => cleanup(root));

const files = readdirSync(REGRESSIONS_DIR)
  .filter((f) => f.endsWith('.json'))
  .sort();
const regressions = files.map((file) => ({ file, r: JSON.parse(readFileSync(path.join(REGRESSIONS_DIR, file), 'utf8')) as Regression }));

describe('fixtures/regressions', () => {
  it('holds the counterexamples found so far', () => {
    expect(regressions.length).toBeGreaterThanOrEqual(3);
    for (const { r } of regressions) expect(['source', 'method', 'build']).toContain(r.target);
  });

  it.each(regressions.filter(({ r }) => r.open !== true))('$file keeps its contract', ({ file, r }) => {
    const bytes = regressionBytes(r);
    const started = performance.now();
    if (r.target === 'source') expectSourceContract(r.file, bytes);
    else if (r.target === 'method') expectMethodContract(r.file, bytes);
    else {
      const work = path.join(root, file);
      const { pkg, build } = packageOf(`${r.package}/${r.file}`);
      for (const p of new Set([pkg, build])) cpSync(path.join(ROOT, 'fixtures', p), path.join(work, p), { recursive: true });
      const onDisk = path.join(work, pkg, r.file);
      writeFileSync(onDisk, bytes);
      expectBuildContract(createCompiler({ store: path.join(root, 'store') }).build(path.join(work, build, 'plugin.json')), onDisk, bytes, work);
    }
    expect(performance.now() - started).toBeLessThan(ceilingMs(bytes.length));
  });
});

describe('deep frontmatter', () => {
  // Node 20's V8 dies outright ("RegExpCompiler Allocation failed - process out of memory")
  // when a regexp is first compiled with almost no stack left, and the yaml parser recursing
  // into deep input is one way to get there: what killed this file's worker in CI. So depth is
  // measured from the lexer's tokens and refused before the parser runs, whatever the caller.
  const source = (frontmatter: string) => `---\nname: a\ndescription: d\n${frontmatter}\n---\nbody\n`;
  const nested: Record<string, (depth: number) => string> = {
    'block mappings': (d) => Array.from({ length: d }, (_, i) => `${'  '.repeat(i)}k${i}:`).join('\n') + ' x',
    'block sequences': (d) => Array.from({ length: d }, (_, i) => `${'  '.repeat(i)}-`).join('\n') + ' x',
    'compact sequences': (d) => `k: \n  ${'- '.repeat(d)}x`,
    'flow sequences': (d) => `k: ${'['.repeat(d)}${']'.repeat(d)}`,
    'flow mappings': (d) => `k: ${'{a: '.repeat(d)}1${'}'.repeat(d)}`,
    'mappings in sequences': (d) => Array.from({ length: d }, (_, i) => `${' '.repeat(2 * i)}- k${i}:`).join('\n') + ' x',
  };

  it.each(Object.keys(nested))('refuses %s nested past 256 levels before parsing them, and reads them below', (style) => {
    for (const depth of [300, 2_000, 20_000]) {
      const result = checkSource('deep.md', source(nested[style]!(depth)));
      expect(result.diagnostics.filter((d) => d.code === 'BP1010').map((d) => d.message)).toEqual([
        'Unexpected nesting deeper than 256 levels, expected a shallower frontmatter',
      ]);
    }
    const shallow = checkSource('deep.md', source(nested[style]!(200)));
    expect(shallow.diagnostics.filter((d) => d.code === 'BP1010')).toEqual([]);
  });

  it('does not count brackets, dashes or indentation inside quoted and block scalars', () => {
    const quoted = `description: "${'['.repeat(400)}"\ntitle: '${'{'.repeat(400)}'\ntools:\n  - |\n${Array.from({ length: 400 }, (_, i) => `    ${' '.repeat(i)}- [`).join('\n')}\n  - >-\n    ${'[{'.repeat(300)}`;
    const result = checkSource('scalars.md', `---\nname: a\n${quoted}\n---\nbody\n`);
    expect(result.diagnostics.filter((d) => d.code === 'BP1010')).toEqual([]);
  });
});

// Half-GiB inputs run in `npm run soak` (BERRYPACK_SOAK=1), not in `npm test`: three of them
// in one vitest worker beside the others once exhausted that worker's memory in CI.
describe.runIf(process.env.BERRYPACK_SOAK)('inputs too large to be text', () => {
  // 512 MiB of zeros: calloc'ed and never written, so it costs address space, not memory.
  const huge = () => {
    const bytes = new Uint8Array(0x2000_0000);
    bytes.set(new TextEncoder().encode('---\nname: a\ndescription: d\n---\n'));
    return bytes;
  };

  it('refuses a 512 MiB source with BP1004 instead of throwing', () => {
    const result = checkSource('huge.md', huge());
    expect(result.status).toBe('invalid');
    expect(result.diagnostics).toEqual([
      expect.objectContaining({ code: 'BP1004', line: 1, column: 1, message: 'Unexpected file of 536870912 bytes, expected at most 536870888 bytes of text' }),
    ]);
    const method = checkMethod('huge.method.yaml', huge()).diagnostics;
    expect(diagnosticProblems(method)).toEqual([]);
    expect(method).toEqual([
      expect.objectContaining({ code: 'BP1004', line: 1, column: 1, message: 'Unexpected file of 536870912 bytes, expected at most 536870888 bytes of text' }),
    ]);
  });

  it('refuses a 512 MiB plugin.json, source and module in a build, never throwing', () => {
    const dir = path.join(root, 'huge');
    cpSync(path.join(ROOT, 'fixtures/notebook'), dir, { recursive: true });
    for (const victim of ['plugin.json', 'routines/notes/compose.md', 'routines/lib/score.js']) {
      const target = path.join(dir, victim);
      const host: CompilerHost = { ...nodeHost, readFile: (file) => (file === target ? huge() : nodeHost.readFile(file)) };
      const result = createCompiler({ host, store: path.join(root, 'store') }).build(path.join(dir, 'plugin.json'));
      expect(result.ok, victim).toBe(false);
      expect(diagnosticProblems(result.diagnostics)).toEqual([]);
      expect(result.diagnostics.find((d) => d.file === target)?.code, victim).toMatch(/^BP(1004|2002)$/);
    }
  });

  it('refuses a 512 MiB bundle naming its size', () => {
    const bytes = new Uint8Array(0x2000_0000);
    bytes[0] = 0x7b;
    const result = readBundle(bytes);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toMatchObject({ code: 'BP4002', message: 'Unexpected bundle file of 536870912 bytes, expected at most 536870888' });
  });
});
