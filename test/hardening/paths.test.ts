import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createCompiler, nodeHost, type BuildResult, type CompilerHost, type Diagnostic } from '@berrypack/compiler';
import { loadBundle } from '@berrypack/runtime';
import { diagnosticProblems, recordFigure, SOAK } from '../support/fuzz.js';
import { cleanup, tempDir } from '../support/temp.js';

/**
 * Sources, code modules and resources stay inside the package (CONTRACTS.md "Packages and
 * paths"); imports may name other packages only as manifests or bundles. Every escape is
 * refused with a diagnostic, and a spying host proves that nothing outside the package was
 * read or listed on the way. Files that vanish or change during a build, a package that
 * imports itself and an enormous package end in diagnostics too, never in an exception.
 */

const SCHEMA = 'https://agent-plugins.org/schemas/1.0.0/plugin.schema.json';
const SECRET = 'SECRET-7f3a-do-not-capture';
const root = realpathSync(tempDir('berrypack-paths-'));
// 10,000 files take about 5 s to build here: the soak runs them, `npm test` a fifth.
const ENORMOUS = SOAK ? 10_000 : 2_000;
afterAll(() => cleanup(root));

// Outside every package: what an escape would reach.
const outside = path.join(root, 'outside');
mkdirSync(outside, { recursive: true });
writeFileSync(path.join(outside, 'secret.md'), `---\nname: secret\ndescription: ${SECRET}\n---\n${SECRET}\n`);
writeFileSync(path.join(outside, 'secret.js'), `export const s = '${SECRET}';\n`);
writeFileSync(path.join(outside, 'secret.txt'), SECRET);
mkdirSync(path.join(outside, 'routines'), { recursive: true });
writeFileSync(path.join(outside, 'routines', 'stolen.md'), `---\nname: stolen\ndescription: ${SECRET}\n---\n${SECRET}\n`);

function manifest(extension: Record<string, unknown>, name = 'hostile.pkg'): string {
  return JSON.stringify({ $schema: SCHEMA, name, version: '1', extensions: { 'ai.strawberry.berry': extension } }, null, 2);
}

function codeRoutine(name: string, specifier?: string): string {
  const head = `---\nname: ${name}\ndescription: A code routine.\nlanguage: javascript\n---\n`;
  return specifier === undefined ? `${head}export default () => 1;\n` : `${head}import { s } from ${JSON.stringify(specifier)};\nexport default () => s;\n`;
}

let counter = 0;
/** A package directory below root, with files (string content) and symbolic links (`{link: target}`). */
function makePackage(files: Record<string, string | { link: string } | { fifo: true }>): string {
  const dir = path.join(root, `pkg${counter++}`);
  for (const [rel, content] of Object.entries(files)) {
    const file = path.join(dir, rel);
    mkdirSync(path.dirname(file), { recursive: true });
    if (typeof content === 'string') writeFileSync(file, content);
    else if ('link' in content) symlinkSync(content.link, file);
    else execFileSync('mkfifo', [file]);
  }
  return dir;
}

/** A host that records what the compiler reads and lists, and can act between a listing and a read. */
class SpyHost implements CompilerHost {
  readonly reads: string[] = [];
  readonly listings: string[] = [];
  constructor(private readonly hooks: { beforeRead?: (file: string, count: number) => Uint8Array | undefined; afterList?: (dir: string) => void } = {}) {}
  readFile(file: string): Uint8Array {
    const count = this.reads.filter((r) => r === file).length;
    this.reads.push(file);
    return this.hooks.beforeRead?.(file, count) ?? nodeHost.readFile(file);
  }
  readdir(dir: string) {
    this.listings.push(dir);
    const listing = nodeHost.readdir(dir);
    this.hooks.afterList?.(dir);
    return listing;
  }
  stat(file: string) {
    return nodeHost.stat(file);
  }
  realpath(file: string) {
    return nodeHost.realpath(file);
  }
}

function build(dir: string, host = new SpyHost()): { result: BuildResult; host: SpyHost } {
  const result = createCompiler({ host, store: path.join(root, 'store') }).build(path.join(dir, 'plugin.json'));
  return { result, host };
}

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/** Lexically inside `dir` (a diagnostic may name a link that points out: it is still the package's file). */
function within(dir: string, p: string): boolean {
  const rel = path.relative(dir, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** Really inside `dir`, links resolved: what a read or a listing reached. */
function inside(dir: string, p: string): boolean {
  return within(dir, real(p));
}

/** Refused with `code`, well-formed, pointing into the package, with nothing read or listed outside it. */
function expectRefused(dir: string, built: { result: BuildResult; host: SpyHost }, code: string): Diagnostic {
  const { result, host } = built;
  expect(result.ok, JSON.stringify(result.diagnostics.map((d) => `${d.code} ${d.message}`))).toBe(false);
  expect(result.bundle).toBeUndefined();
  expect(diagnosticProblems(result.diagnostics)).toEqual([]);
  const found = result.diagnostics.find((d) => d.code === code);
  expect(found, `expected ${code} among ${result.diagnostics.map((d) => `${d.code} ${d.message}`).join('; ')}`).toBeDefined();
  expect(found!.message).toMatch(/^Unexpected /);
  expect(within(dir, found!.file), `${found!.file} is inside ${dir}`).toBe(true);
  expect(
    host.reads.filter((r) => !inside(dir, r)),
    'files read outside the package',
  ).toEqual([]);
  expect(
    host.listings.filter((r) => !inside(dir, r)),
    'directories listed outside the package',
  ).toEqual([]);
  return found!;
}

/** Refused with BP2094 (MAN-5), pointing at the import's target value (`needle`, as written in plugin.json). */
function expectAtImport(dir: string, result: BuildResult, needle: string, message: RegExp): Diagnostic {
  expect(result.ok).toBe(false);
  expect(result.bundle).toBeUndefined();
  expect(diagnosticProblems(result.diagnostics)).toEqual([]);
  const file = path.join(dir, 'plugin.json');
  const text = readFileSync(file, 'utf8');
  const at = text.indexOf(needle);
  expect(at).toBeGreaterThan(-1);
  const line = text.slice(0, at).split('\n').length;
  const column = at - text.lastIndexOf('\n', at - 1);
  const found = result.diagnostics.find((d) => d.code === 'BP2094' && d.line === line);
  expect(
    found,
    `expected BP2094 at line ${line} among ${result.diagnostics.map((d) => `${d.code} ${d.line}:${d.column} ${d.message}`).join('; ')}`,
  ).toBeDefined();
  expect(found).toMatchObject({ rule: 'MAN-5', severity: 'error', file, line, column, endLine: line, endColumn: column + needle.length });
  expect(found!.message).toMatch(message);
  return found!;
}

describe('sources that leave the package', () => {
  it.each([
    ['a path with ..', '../outside', 'BP2030'],
    ['a deeper path with ..', 'routines/../../outside', 'BP2030'],
    ['an absolute path', path.join(root, 'outside'), 'BP2030'],
    ['a Windows path', 'routines\\..\\..\\outside', 'BP2030'],
    ['a Windows drive', 'C:/outside', 'BP2030'],
    ['a UNC path', '\\\\server\\share', 'BP2030'],
    ['a file: URL', `file://${root}/outside`, 'BP2030'],
  ])('refuses `sources` as %s', (_what, sources, code) => {
    const dir = makePackage({ 'plugin.json': manifest({ sources, exports: ['a'] }), 'a.md': codeRoutine('a') });
    expectRefused(dir, build(dir), code);
  });

  it('refuses a sources directory that is a symbolic link out of the package', () => {
    const dir = makePackage({ 'plugin.json': manifest({ sources: 'routines', exports: ['stolen'] }), routines: { link: path.join(outside, 'routines') } });
    expectRefused(dir, build(dir), 'BP2032');
  });

  it('refuses a .md source that is a symbolic link out of the package, relative or absolute', () => {
    const dir = makePackage({
      'plugin.json': manifest({ exports: ['a'] }),
      'a.md': codeRoutine('a'),
      'relative.md': { link: '../outside/secret.md' },
      'nested/absolute.md': { link: path.join(outside, 'secret.md') },
    });
    const built = build(dir);
    const links = built.result.diagnostics.filter((d) => d.code === 'BP2032');
    expect(links.map((d) => path.relative(dir, d.file)).sort()).toEqual(['nested/absolute.md', 'relative.md']);
    expectRefused(dir, built, 'BP2032');
  });

  it('ends a symbolic link loop and a link to a link of itself, reading each file once', () => {
    const dir = makePackage({
      'plugin.json': manifest({ exports: ['a'] }),
      'a.md': codeRoutine('a'),
      'loop/up': { link: '..' },
      'loop/self': { link: '.' },
      'ring/a': { link: 'b' },
      'ring/b': { link: 'a' },
      'ring/x.md': { link: 'x.md' },
    });
    const built = build(dir);
    // The two-link ring and the self-link cannot be resolved: reported, never followed forever.
    expect(built.result.diagnostics.filter((d) => d.code === 'BP9001').map((d) => path.relative(dir, d.file))).toEqual(['ring/x.md']);
    expect(new Set(built.host.reads).size).toBe(built.host.reads.length);
    expect(built.host.reads.filter((r) => !inside(dir, r))).toEqual([]);
    expect(built.result.diagnostics.every((d) => d.code === 'BP9001' || d.severity !== 'error')).toBe(true);
  });
});

describe('code modules that leave the package', () => {
  it.each([
    ['a relative path with ..', '../outside/secret.js', 'BP3034'],
    ['a path that dips out and comes back', `../${'x'}/../outside/secret.js`, 'BP3034'],
    ['an absolute path', path.join(outside, 'secret.js'), 'BP3032'],
    ['a Windows drive path', 'C:\\outside\\secret.js', 'BP3032'],
    ['a Windows drive path with slashes', 'C:/outside/secret.js', 'BP3032'],
    ['a UNC path', '\\\\server\\share\\secret.js', 'BP3032'],
    ['a Windows-separated relative path', '..\\outside\\secret.js', 'BP3030'],
    ['a file: URL', `file://${outside}/secret.js`, 'BP3031'],
    ['a data: URL', 'data:text/javascript,export const s = 1', 'BP3031'],
    ['a Node built-in', 'node:fs', 'BP3030'],
    ['an npm package', 'fs-extra', 'BP3030'],
  ])('refuses an import by %s', (_what, specifier, code) => {
    const dir = makePackage({ 'plugin.json': manifest({ exports: ['evil'] }), 'evil.md': codeRoutine('evil', specifier) });
    expectRefused(dir, build(dir), code);
  });

  it('refuses a module that is a symbolic link out of the package, and one reached through a linked directory', () => {
    const dir = makePackage({
      'plugin.json': manifest({ exports: ['evil', 'worse'] }),
      'evil.md': codeRoutine('evil', './lib/link.js'),
      'lib/link.js': { link: path.join(outside, 'secret.js') },
      'worse.md': codeRoutine('worse', './vendor/secret.js'),
      vendor: { link: outside },
    });
    const built = build(dir);
    expect(built.result.diagnostics.filter((d) => d.code === 'BP3034').length).toBe(2);
    expectRefused(dir, built, 'BP3034');
  });

  it('refuses a supporting module that imports its way out', () => {
    const dir = makePackage({
      'plugin.json': manifest({ exports: ['evil'] }),
      'evil.md': codeRoutine('evil', './lib/a.js'),
      'lib/a.js': "export { s } from './b.js';\n",
      'lib/b.js': "export { s } from '../../outside/secret.js';\n",
    });
    const found = expectRefused(dir, build(dir), 'BP3034');
    expect(path.relative(dir, found.file)).toBe(path.join('lib', 'b.js'));
  });
});

describe('paths too long for the file system', () => {
  it('refuses them as missing (ENAMETOOLONG is not an exception)', () => {
    const long = `${'a'.repeat(300)}/`.repeat(20);
    const sources = makePackage({ 'plugin.json': manifest({ sources: long, exports: ['a'] }), 'a.md': codeRoutine('a') });
    expectRefused(sources, build(sources), 'BP2031');
    const code = makePackage({ 'plugin.json': manifest({ exports: ['a'] }), 'a.md': codeRoutine('a', `./${long}x.js`) });
    expectRefused(code, build(code), 'BP3035');
    const resource = makePackage({
      'plugin.json': manifest({ exports: ['a'], resources: [{ uri: 'ui://x', mimeType: 'text/plain', path: `${long}x` }] }),
      'a.md': codeRoutine('a'),
    });
    expectRefused(resource, build(resource), 'BP2052');
  });
});

describe('resources that leave the package', () => {
  const resource = (p: string) => manifest({ exports: ['a'], resources: [{ uri: 'ui://x', mimeType: 'text/plain', path: p }] });
  it.each([
    ['a path with ..', '../outside/secret.txt', 'BP2051'],
    ['an absolute path', path.join(outside, 'secret.txt'), 'BP2051'],
    ['a Windows path', '..\\outside\\secret.txt', 'BP2051'],
    ['a file: URL', `file://${outside}/secret.txt`, 'BP2051'],
  ])('refuses a resource by %s', (_what, p, code) => {
    const dir = makePackage({ 'plugin.json': resource(p), 'a.md': codeRoutine('a') });
    expectRefused(dir, build(dir), code);
  });

  it('refuses a resource that is a symbolic link out of the package, a directory, or a FIFO', () => {
    const link = makePackage({ 'plugin.json': resource('assets/x.txt'), 'a.md': codeRoutine('a'), 'assets/x.txt': { link: path.join(outside, 'secret.txt') } });
    expectRefused(link, build(link), 'BP2051');
    const directory = makePackage({ 'plugin.json': resource('assets'), 'a.md': codeRoutine('a'), 'assets/x.txt': 'x' });
    expectRefused(directory, build(directory), 'BP2052');
    const fifo = makePackage({ 'plugin.json': resource('assets/pipe'), 'a.md': codeRoutine('a'), 'assets/pipe': { fifo: true } });
    expectRefused(fifo, build(fifo), 'BP2052');
  });
});

describe('imports: other packages only as manifests or bundles', () => {
  const importing = (decl: Record<string, unknown>) => manifest({ exports: ['a'], imports: [{ name: 'x', ...decl }] });

  it.each([
    ['a routine file of another package', { manifest: '../outside/secret.md' }, 'BP2042'],
    ['a directory as a manifest', { manifest: '../outside' }, 'BP2042'],
    ['an absolute manifest path', { manifest: path.join(outside, 'plugin.json') }, 'BP2042'],
    ['a URL', { bundle: 'https://example.com/x.berry.json' }, 'BP2042'],
    ['a text file as a bundle', { bundle: '../outside/secret.txt' }, 'BP2093'],
    ['a routine file as a bundle', { bundle: '../outside/secret.md' }, 'BP2093'],
    ['a missing bundle', { bundle: '../outside/missing.berry.json' }, 'BP2093'],
    ['a root that is not a digest', { root: '../outside/secret.txt' }, 'BP2042'],
  ])('refuses an import naming %s', (_what, decl, code) => {
    const dir = makePackage({ 'plugin.json': importing(decl), 'a.md': codeRoutine('a') });
    const { result } = build(dir);
    expect(result.ok).toBe(false);
    expect(diagnosticProblems(result.diagnostics)).toEqual([]);
    expect(result.diagnostics.map((d) => d.code)).toContain(code);
    // Nothing of the file it named was captured, whatever it held.
    expect(JSON.stringify(result.diagnostics)).not.toContain(SECRET);
  });

  it('refuses a bundle import that is a FIFO or a device at the import (BP2094), without blocking or reading forever', () => {
    for (const target of [{ fifo: true as const }, { link: '/dev/zero' }]) {
      const dir = makePackage({ 'plugin.json': importing({ bundle: 'dep.berry.json' }), 'a.md': codeRoutine('a'), 'dep.berry.json': target });
      const { result } = build(dir);
      expectAtImport(
        dir,
        result,
        '"dep.berry.json"',
        /^Unexpected FIFO, device or other special file \(not a regular file\) `dep\.berry\.json` for the `bundle` import `x`, expected a regular bundle file$/,
      );
      expect(result.diagnostics.map((d) => d.code)).not.toContain('BP2093');
    }
  });

  it('refuses a root whose file in the store is a FIFO, without blocking', () => {
    const digest = `sha256-${'f1f0'.repeat(16)}`;
    const store = path.join(root, 'store');
    mkdirSync(store, { recursive: true });
    execFileSync('mkfifo', [path.join(store, `${digest}.berry.json`)]);
    const dir = makePackage({ 'plugin.json': importing({ root: digest }), 'a.md': codeRoutine('a') });
    const { result } = build(dir);
    expectAtImport(dir, result, `"${digest}"`, /not a regular file\) .* for the `root` import `x`, expected a regular bundle file$/);
  });

  it.each([
    ['its own plugin.json', 'plugin.json'],
    ['itself through ./', './plugin.json'],
    ['itself through its parent', '../pkgSELF/plugin.json'],
  ])('refuses a manifest that imports %s', (_what, target) => {
    const dir = path.join(root, 'pkgSELF');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'plugin.json'), importing({ manifest: target }));
    writeFileSync(path.join(dir, 'a.md'), codeRoutine('a'));
    const { result } = build(dir);
    expect(result.ok).toBe(false);
    expect(diagnosticProblems(result.diagnostics)).toEqual([]);
    // A cycle, however it is spelled; never a stack overflow.
    expect(result.diagnostics.map((d) => d.code)).toContain('BP2090');
  });

  // A `manifest` import was read without checking that it is a regular file, so a FIFO named
  // plugin.json blocked the build forever, and a link to /dev/zero was read until memory ran
  // out (measured: 13 GB, then std::bad_alloc). Now the host's stat refuses both at the import
  // (BP2094) before any read. The spy stands in for the FIFO and the device, so the suite
  // itself cannot block or run out of memory if that ever regresses: it only records that a
  // read was attempted.
  const refuseReadsOf = (...files: string[]) =>
    new SpyHost({
      beforeRead: (file) => {
        if (files.includes(file) || files.includes(real(file)))
          throw Object.assign(new Error(`EAGAIN: reading ${file} would block or never end`), { code: 'EAGAIN' });
        return undefined;
      },
    });

  it('never reads a manifest import that is a FIFO', () => {
    const dir = makePackage({ 'plugin.json': importing({ manifest: 'dep/plugin.json' }), 'a.md': codeRoutine('a'), 'dep/plugin.json': { fifo: true } });
    const fifo = path.join(dir, 'dep', 'plugin.json');
    const host = refuseReadsOf(fifo);
    const { result } = build(dir, host);
    expect(result.ok).toBe(false);
    expect(host.reads).not.toContain(fifo);
    expectAtImport(
      dir,
      result,
      '"dep/plugin.json"',
      /^Unexpected FIFO, device or other special file \(not a regular file\) `dep\/plugin\.json` for the `manifest` import `x`, expected a regular plugin\.json file$/,
    );
  });

  it('never reads a manifest import that is a symbolic link to /dev/zero', () => {
    const dir = makePackage({ 'plugin.json': importing({ manifest: 'dep/plugin.json' }), 'a.md': codeRoutine('a'), 'dep/plugin.json': { link: '/dev/zero' } });
    const link = path.join(dir, 'dep', 'plugin.json');
    const host = refuseReadsOf(link, '/dev/zero');
    const { result } = build(dir, host);
    expect(result.ok).toBe(false);
    expect(host.reads.filter((r) => r === link || real(r) === '/dev/zero')).toEqual([]);
    expectAtImport(dir, result, '"dep/plugin.json"', /not a regular file\) `dep\/plugin\.json` for the `manifest` import `x`/);
  });

  it('never reads a manifest or bundle import larger than text can be (a host reports the size)', () => {
    const dir = makePackage({
      'plugin.json': manifest({
        exports: ['a'],
        imports: [
          { name: 'x', manifest: 'dep/plugin.json' },
          { name: 'y', bundle: 'dep.berry.json' },
        ],
      }),
      'a.md': codeRoutine('a'),
      'dep/plugin.json': manifest({ exports: [] }, 'dep'),
      'dep.berry.json': '{}',
    });
    const big = [path.join(dir, 'dep', 'plugin.json'), path.join(dir, 'dep.berry.json')];
    const host = refuseReadsOf(...big);
    // 512 MiB, reported by stat: nothing of that size is ever allocated.
    host.stat = (file: string) => (big.includes(file) ? { kind: 'file', size: 0x2000_0000 } : nodeHost.stat(file));
    const { result } = build(dir, host);
    expect(host.reads.filter((r) => big.includes(r))).toEqual([]);
    for (const [needle, kind] of [
      ['"dep/plugin.json"', 'manifest'],
      ['"dep.berry.json"', 'bundle'],
    ] as const) {
      expectAtImport(
        dir,
        result,
        needle,
        new RegExp(
          `^Unexpected file of 536870912 bytes \`[^\`]+\` for the \`${kind}\` import \`[xy]\`, expected a regular (plugin\\.json|bundle) file of at most 536870888 bytes$`,
        ),
      );
    }
  });

  it('never reads its own plugin.json when it is a FIFO (BP9001) or larger than text can be (BP2002)', () => {
    const fifo = makePackage({ 'plugin.json': { fifo: true }, 'a.md': codeRoutine('a') });
    const fifoFile = path.join(fifo, 'plugin.json');
    const fifoHost = refuseReadsOf(fifoFile);
    const refusedFifo = build(fifo, fifoHost).result;
    expect(fifoHost.reads).toEqual([]);
    expect(refusedFifo.diagnostics).toEqual([
      expect.objectContaining({ code: 'BP9001', file: fifoFile, line: 1, column: 1, message: expect.stringMatching(/not a regular file\) as plugin\.json/) }),
    ]);

    const huge = makePackage({ 'plugin.json': manifest({ exports: ['a'] }), 'a.md': codeRoutine('a') });
    const hugeFile = path.join(huge, 'plugin.json');
    const hugeHost = refuseReadsOf(hugeFile);
    hugeHost.stat = (file: string) => (file === hugeFile ? { kind: 'file', size: 0x2000_0000 } : nodeHost.stat(file));
    const refusedHuge = build(huge, hugeHost).result;
    expect(hugeHost.reads).toEqual([]);
    expect(refusedHuge.diagnostics).toEqual([
      expect.objectContaining({
        code: 'BP2002',
        file: hugeFile,
        line: 1,
        column: 1,
        message: 'Unexpected file of 536870912 bytes, expected at most 536870888 bytes of text',
      }),
    ]);
  });

  // Import cycles are detected on real paths: by lexical path, a package importing itself
  // through a link to its own directory was compiled again at every level (2^40 builds with
  // two such imports: a hang). The spy cuts the recursion short if it ever comes back.
  it('refuses a manifest that imports itself through symbolic links to its directory as a cycle', () => {
    const dir = makePackage({
      'plugin.json': manifest({
        exports: ['a'],
        imports: [
          { name: 'x', manifest: 'a/plugin.json' },
          { name: 'y', manifest: 'b/plugin.json' },
        ],
      }),
      'a.md': codeRoutine('a'),
      a: { link: '.' },
      b: { link: '.' },
    });
    const host = new SpyHost({
      beforeRead: (_file) => {
        if (host.reads.length > 50) throw Object.assign(new Error('runaway import recursion'), { code: 'ERUNAWAY' });
        return undefined;
      },
    });
    const { result } = build(dir, host);
    expect(host.reads.filter((r) => r.endsWith('plugin.json')).length).toBeLessThan(5);
    expect(result.diagnostics.map((d) => d.code)).toContain('BP2090');
  });
});

describe('files that vanish or change during a build', () => {
  function notebookLike(): string {
    return makePackage({
      'plugin.json': manifest({ sources: 'routines', exports: ['a', 'b'], resources: [{ uri: 'ui://logo', mimeType: 'text/plain', path: 'logo.txt' }] }),
      'routines/a.md': codeRoutine('a', './lib/x.js'),
      'routines/b.md': codeRoutine('b'),
      'routines/lib/x.js': 'export const s = 1;\n',
      'logo.txt': 'logo',
    });
  }

  it.each([
    ['a source', 'routines/b.md'],
    ['a code module', 'routines/lib/x.js'],
    ['a resource', 'logo.txt'],
  ])('reports %s deleted between listing and reading (BP9001), never an exception', (_what, rel) => {
    const dir = notebookLike();
    const victim = path.join(dir, rel);
    const host = new SpyHost({
      beforeRead: (file) => {
        if (file === victim) rmSync(victim, { force: true });
        return undefined;
      },
    });
    const { result } = build(dir, host);
    expect(result.ok).toBe(false);
    expect(diagnosticProblems(result.diagnostics)).toEqual([]);
    const lost = result.diagnostics.find((d) => d.code === 'BP9001');
    expect(lost?.message).toMatch(/ENOENT/);
  });

  it('reports a directory removed after it was listed, and a file turned into a directory', () => {
    const dir = notebookLike();
    const host = new SpyHost({
      afterList: (listed) => {
        if (listed === path.join(dir, 'routines')) rmSync(path.join(dir, 'routines', 'lib'), { recursive: true, force: true });
      },
      beforeRead: (file) => {
        if (file === path.join(dir, 'routines', 'b.md')) {
          rmSync(file);
          mkdirSync(file);
        }
        return undefined;
      },
    });
    const { result } = build(dir, host);
    expect(result.ok).toBe(false);
    expect(diagnosticProblems(result.diagnostics)).toEqual([]);
    expect(result.diagnostics.map((d) => d.code)).toContain('BP9001');
  });

  it('captures one consistent version of a file that changes between reads', async () => {
    const dir = notebookLike();
    const changing = new Set([path.join(dir, 'routines', 'a.md'), path.join(dir, 'routines', 'lib', 'x.js'), path.join(dir, 'plugin.json')]);
    // Every read after the first of one of these files sees another version of it.
    const host = new SpyHost({
      beforeRead: (file, count) => {
        if (!changing.has(file) || count === 0) return undefined;
        const text = new TextDecoder().decode(nodeHost.readFile(file));
        return new TextEncoder().encode(file.endsWith('.json') ? text.replace('hostile.pkg', 'hostile.changed') : `${text}// changed ${count}\n`);
      },
    });
    const { result } = build(dir, host);
    expect(diagnosticProblems(result.diagnostics)).toEqual([]);
    if (result.bundle) {
      // Whatever the compiler read, the bundle it wrote must be one the runtime accepts.
      const loaded = await loadBundle(result.bundle.bytes, { blobs: result.bundle.blobs });
      expect(loaded.id).toBe(result.bundle.id);
    }
  });

  it('keeps building after a file is moved away mid-build by a concurrent process', () => {
    const dir = notebookLike();
    const host = new SpyHost({
      beforeRead: (file) => {
        if (file === path.join(dir, 'routines', 'a.md')) renameSync(path.join(dir, 'routines', 'b.md'), path.join(dir, 'b.moved'));
        return undefined;
      },
    });
    const { result } = build(dir, host);
    expect(diagnosticProblems(result.diagnostics)).toEqual([]);
    expect(result.ok).toBe(false);
  });
});

describe('a package whose path goes through a symbolic link', () => {
  // The compiler works on the manifest's real path, so a package built through a linked
  // directory (macOS /tmp is one) records the same module paths as through the real one.
  it('builds the same bundle through a link as through the real path', async () => {
    const dir = makePackage({
      'plugin.json': manifest({ exports: ['a'] }),
      'a.md': codeRoutine('a', './lib/x.js'),
      'lib/x.js': "export const s = 'x';\n",
    });
    const link = path.join(root, `link${counter++}`);
    symlinkSync(dir, link);
    const direct = build(dir).result;
    const linked = build(link).result;
    expect(linked.bundle?.id).toBe(direct.bundle?.id);
    await loadBundle(linked.bundle!.bytes);
  });
});

describe('an enormous package', () => {
  it(
    `builds ${ENORMOUS.toLocaleString('en')} sources in nested directories`,
    () => {
      const dir = path.join(root, 'enormous');
      const count = ENORMOUS;
      const files: Record<string, string> = { 'plugin.json': manifest({ sources: 'routines', exports: ['d0.r0'] }) };
      for (let i = 0; i < count; i++) {
        const d = `d${i % 40}`;
        files[`routines/${d}/r${i}.md`] = `---\nname: ${d}.r${i}\ndescription: Routine ${i}.\n---\nRule ${i}.\n`;
      }
      for (const [rel, text] of Object.entries(files)) {
        mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
        writeFileSync(path.join(dir, rel), text);
      }
      const started = performance.now();
      const { result } = build(dir);
      const ms = performance.now() - started;
      expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      expect(Object.keys((JSON.parse(new TextDecoder().decode(result.bundle!.bytes)) as { content: { sources: object } }).content.sources)).toHaveLength(count);
      expect(ms).toBeLessThan(60_000);
      recordFigure('enormous-package', { sources: count, buildMs: Math.round(ms), ok: result.ok });
    },
    SOAK ? 300_000 : 30_000,
  );

  it('refuses a sources directory with more than 100,000 entries before reading any of them', () => {
    const dir = makePackage({ 'plugin.json': manifest({ sources: 'routines', exports: ['a'] }), 'routines/a.md': codeRoutine('a') });
    // A host that lists 100,001 files without anyone creating them.
    const host = new SpyHost();
    const listing = Array.from({ length: 100_001 }, (_v, i) => ({ name: `r${i}.md`, kind: 'file' as const }));
    host.readdir = (p: string) => (host.listings.push(p), p === path.join(dir, 'routines') ? listing : nodeHost.readdir(p));
    const built = build(dir, host);
    expectRefused(dir, built, 'BP2033');
    expect(built.host.reads.filter((r) => r.endsWith('.md'))).toEqual([]);
    expect(readdirSync(path.join(dir, 'routines'))).toEqual(['a.md']);
  });
});
