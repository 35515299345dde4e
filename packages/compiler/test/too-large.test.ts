import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { nodeHost, type CompilerHost } from '../src/host.js';
import { checkMethod } from '../src/method/index.js';
import { createCompiler } from '../src/package/compile-package.js';
import { MAX_TEXT_BYTES } from '../src/source/normalize-text.js';

/**
 * Files longer than MAX_TEXT_BYTES cannot become a JavaScript string: every reader reports
 * them as too large (BP1004 with the size), not as "invalid UTF-8 at byte 0". No half-GiB
 * buffer is allocated here (the real ones run in `npm run soak`, regressions.test.ts): the
 * decoder decides on the length alone, so a few bytes that report a larger length stand in.
 */

const SIZE = 0x2000_0000;
const TOO_LARGE = `Unexpected file of ${SIZE} bytes, expected at most ${MAX_TEXT_BYTES} bytes of text`;

/** `prefix`, reporting a length of `SIZE` bytes (only `length` lies; the bytes are real). */
function oversized(prefix: string): Uint8Array {
  const bytes = new TextEncoder().encode(prefix);
  Object.defineProperty(bytes, 'length', { get: () => SIZE });
  return bytes;
}

const METHOD = fileURLToPath(new URL('../../../fixtures/methods/weekly-report.method.yaml', import.meta.url));
const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'berrypack-too-large-')));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const files: Record<string, string> = {
  'plugin.json': JSON.stringify({
    $schema: 'https://agent-plugins.org/schemas/1.0.0/plugin.schema.json',
    name: 'too.large',
    version: '1',
    extensions: { 'ai.strawberry.berry': { exports: ['a'] } },
  }),
  'a.md': "---\nname: a\ndescription: A code routine.\nlanguage: javascript\n---\nimport { s } from './lib/x.js';\nexport default () => s;\n",
  'lib/x.js': 'export const s = 1;\n',
  'm.method.yaml': readFileSync(METHOD, 'utf8'),
};
for (const [rel, text] of Object.entries(files)) {
  mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
  writeFileSync(path.join(dir, rel), text);
}

/**
 * The real file system, except that `target` reads as `read(file)`. Only the four required
 * methods: a host with optional fast paths (stamped reads) would bypass this `readFile`.
 */
function hostReading(target: string, read: (file: string) => Uint8Array): CompilerHost {
  return {
    readFile: (file) => (file === target ? read(file) : nodeHost.readFile(file)),
    readdir: (p) => nodeHost.readdir(p),
    stat: (p) => nodeHost.stat(p),
    realpath: (p) => nodeHost.realpath(p),
  };
}

/** Builds the package with `victim` read as an oversized copy of itself. */
function buildWithOversized(victim: string) {
  const target = path.join(dir, victim);
  const host = hostReading(target, (file) => oversized(readFileSync(file, 'utf8')));
  const result = createCompiler({ host, store: path.join(dir, 'store') }).build(path.join(dir, 'plugin.json'));
  return { result, target };
}

describe('files too large to be text', () => {
  it('stand-in bytes are refused by length alone', () => {
    expect(oversized('abc').length).toBe(SIZE);
  });

  it('checkMethod reports a method document over the limit as too large, not as invalid UTF-8', () => {
    const { diagnostics } = checkMethod('huge.method.yaml', oversized('format: method/2\n'));
    expect(diagnostics).toEqual([
      expect.objectContaining({
        code: 'BP1004',
        rule: 'SRC-1',
        file: 'huge.method.yaml',
        line: 1,
        column: 1,
        message: TOO_LARGE,
        hint: 'a method document is a small text file',
      }),
    ]);
  });

  it('a build reports a method document over the limit as too large', () => {
    const { result, target } = buildWithOversized('m.method.yaml');
    expect(result.ok).toBe(false);
    const found = result.diagnostics.filter((d) => d.file === target);
    expect(found).toEqual([expect.objectContaining({ code: 'BP1004', line: 1, column: 1, message: TOO_LARGE })]);
  });

  it('a build reports a code module over the limit as too large, not as invalid UTF-8', () => {
    const { result, target } = buildWithOversized('lib/x.js');
    expect(result.ok).toBe(false);
    const found = result.diagnostics.filter((d) => d.file === target);
    expect(found).toEqual([
      expect.objectContaining({ code: 'BP1004', rule: 'SRC-1', line: 1, column: 1, message: TOO_LARGE, hint: 'a code module is a small text file' }),
    ]);
  });

  it('still reports invalid UTF-8 in a method document and a code module at its byte', () => {
    const bad = Uint8Array.from([...new TextEncoder().encode('format: method/2\n'), 0xff]);
    expect(checkMethod('bad.method.yaml', bad).diagnostics).toEqual([
      expect.objectContaining({ code: 'BP1004', line: 2, column: 1, message: 'Unexpected invalid UTF-8 at byte 17, expected UTF-8 text' }),
    ]);
    const target = path.join(dir, 'lib/x.js');
    const host = hostReading(target, () => Uint8Array.from([0x2f, 0x2f, 0xc3]));
    const result = createCompiler({ host, store: path.join(dir, 'store') }).build(path.join(dir, 'plugin.json'));
    expect(result.diagnostics.filter((d) => d.file === target)).toEqual([
      expect.objectContaining({ code: 'BP1004', line: 1, column: 3, message: 'Unexpected invalid UTF-8 at byte 2, expected UTF-8 text' }),
    ]);
  });

  it('the unmodified package builds', () => {
    const result = createCompiler({ store: path.join(dir, 'store') }).build(path.join(dir, 'plugin.json'));
    expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });
});
