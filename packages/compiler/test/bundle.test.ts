import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { canonicalJson, canonicalPieces, MAX_JSON_DEPTH, RawJson } from '../src/bundle/canonical-json.js';
import { digestOf, isDigest, sha256Hex } from '../src/bundle/digest.js';
import { BUNDLE_FORMATS } from '../src/bundle/content-view.js';
import { BUNDLE_FORMAT, bundleFileName, createBundle, type BundleFile } from '../src/bundle/envelope.js';
import { bodySlice, storedTemplate } from '../src/bundle/text-references.js';
import { readBundle, verifyBlob, type BundleError, type BundleResource, type ReadBundleResult } from '../src/bundle/read-bundle.js';
import { loadBundleFile, writeBundle } from '../src/bundle/write-bundle.js';
import { CODES } from '../src/diagnostics/codes.js';
import { prng } from '../../../test/support/prng.js';
import { listFiles } from '../../../test/support/temp.js';

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);
const nodeSha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest('hex');

/** An independent, deliberately naive JCS serializer to compare the fast one against. */
function referenceJcs(value: unknown): string {
  if (value === null) return 'null';
  if (value instanceof RawJson) return value.text;
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      return Object.is(value, -0) ? '0' : String(value);
    case 'string':
      return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map(referenceJcs).join(',')}]`;
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object).sort((a, b) => {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const d = a.charCodeAt(i) - b.charCodeAt(i);
      if (d !== 0) return d;
    }
    return a.length - b.length;
  });
  return `{${keys.map((k) => `${JSON.stringify(k)}:${referenceJcs(object[k])}`).join(',')}}`;
}

function randomString(rnd: () => number): string {
  const pieces = [
    'a',
    'Z',
    ' ',
    '"',
    '\\',
    '/',
    '\n',
    '\t',
    '\u0000',
    '\u001f',
    '\u007f',
    '\u0080',
    'é',
    '€',
    '\u2028',
    '\ufb33',
    '\ud83d\ude00',
    '\\ud83d',
    'C:\\udir',
    '10',
    '9',
    '__proto__',
  ];
  let s = '';
  const n = Math.floor(rnd() * 6);
  for (let i = 0; i < n; i++) s += pieces[Math.floor(rnd() * pieces.length)]!;
  return s;
}

function randomNumber(rnd: () => number): number {
  const view = new DataView(new ArrayBuffer(8));
  switch (Math.floor(rnd() * 5)) {
    case 0:
      return Math.floor(rnd() * 2000) - 1000;
    case 1:
      return (rnd() - 0.5) * 10 ** Math.floor(rnd() * 40 - 20);
    case 2:
      return rnd() < 0.5 ? -0 : 0;
    default: {
      // Arbitrary bit patterns reach subnormals and the extremes of the exponent range.
      for (;;) {
        view.setUint32(0, Math.floor(rnd() * 2 ** 32));
        view.setUint32(4, Math.floor(rnd() * 2 ** 32));
        const n = view.getFloat64(0);
        if (Number.isFinite(n)) return n;
      }
    }
  }
}

function randomJson(rnd: () => number, depth = 0): unknown {
  const r = rnd();
  if (depth > 4 || r < 0.45) {
    const k = rnd();
    return k < 0.4 ? randomString(rnd) : k < 0.8 ? randomNumber(rnd) : k < 0.9 ? rnd() < 0.5 : null;
  }
  if (r < 0.7) return Array.from({ length: Math.floor(rnd() * 5) }, () => randomJson(rnd, depth + 1));
  const object: Record<string, unknown> = {};
  const n = Math.floor(rnd() * 6);
  for (let i = 0; i < n; i++) {
    // defineProperty, so that a `__proto__` key becomes data and not a prototype.
    Object.defineProperty(object, randomString(rnd), { value: randomJson(rnd, depth + 1), enumerable: true, writable: true, configurable: true });
  }
  return object;
}

/** Replaces random subtrees by their RawJson fragment, as the assembler's cache does. */
function withFragments(value: unknown, rnd: () => number): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (rnd() < 0.3) return RawJson.of(value);
  if (Array.isArray(value)) return value.map((v) => withFragments(v, rnd));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value))
    Object.defineProperty(out, k, { value: withFragments(v, rnd), enumerable: true, writable: true, configurable: true });
  return out;
}

function bitsToNumber(hex: string): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt(`0x${hex}`));
  return view.getFloat64(0);
}

describe('BND-1 canonical JSON (RFC 8785)', () => {
  it('sorts keys by UTF-16 code units (RFC 8785 section 3.2.3)', () => {
    const input = JSON.parse(
      '{"\\u20ac":"Euro Sign","\\r":"Carriage Return","\\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One",' +
        '"\\ud83d\\ude00":"Emoji: Grinning Face","\\u0080":"Control","\\u00f6":"Latin Small Letter O With Diaeresis"}',
    );
    expect(canonicalJson(input)).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis",' +
        '"\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
  });

  it('writes the example of RFC 8785 section 3.2.2 byte for byte', () => {
    const input = JSON.parse(String.raw`{
      "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
      "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
      "literals": [null, true, false]
    }`);
    const out = canonicalJson(input);
    expect(out).toBe(String.raw`{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`);
    // The RFC lists the UTF-8 bytes too; the head and the `€` are enough to show the encoding.
    expect([...enc(out).subarray(0, 4)]).toEqual([0x7b, 0x22, 0x6c, 0x69]);
    expect([...enc(out).subarray(enc(out).indexOf(0xe2), enc(out).indexOf(0xe2) + 3)]).toEqual([0xe2, 0x82, 0xac]);
  });

  it('writes numbers as ECMAScript does (RFC 8785 appendix B)', () => {
    const cases: [string, string][] = [
      ['0000000000000000', '0'],
      ['8000000000000000', '0'],
      ['0000000000000001', '5e-324'],
      ['8000000000000001', '-5e-324'],
      ['7fefffffffffffff', '1.7976931348623157e+308'],
      ['ffefffffffffffff', '-1.7976931348623157e+308'],
      ['4340000000000000', '9007199254740992'],
      ['c340000000000000', '-9007199254740992'],
      ['4430000000000000', '295147905179352830000'],
      ['44b52d02c7e14af5', '9.999999999999997e+22'],
      ['44b52d02c7e14af6', '1e+23'],
      ['44b52d02c7e14af7', '1.0000000000000001e+23'],
      ['444b1ae4d6e2ef4e', '999999999999999700000'],
      ['444b1ae4d6e2ef4f', '999999999999999900000'],
      ['444b1ae4d6e2ef50', '1e+21'],
      ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
      ['3eb0c6f7a0b5ed8d', '0.000001'],
      ['41b3de4355555553', '333333333.3333332'],
      ['41b3de4355555554', '333333333.33333325'],
      ['41b3de4355555555', '333333333.3333333'],
      ['41b3de4355555556', '333333333.3333334'],
      ['41b3de4355555557', '333333333.33333343'],
      ['becbf647612f3696', '-0.0000033333333333333333'],
      ['43143ff3c1cb0959', '1424953923781206.2'],
    ];
    for (const [bits, expected] of cases) expect(canonicalJson(bitsToNumber(bits)), bits).toBe(expected);
    expect(canonicalJson([1e21, 1e-7, 0.000001, 333333333.3333333, -0, 5e-324, 1.7976931348623157e308])).toBe(
      '[1e+21,1e-7,0.000001,333333333.3333333,0,5e-324,1.7976931348623157e+308]',
    );
  });

  it('escapes strings as JSON.stringify does and keeps everything else literal', () => {
    expect(canonicalJson('\u0000\b\t\n\f\r\u001f"\\/\u007f\u2028\ud83d\ude00')).toBe('"\\u0000\\b\\t\\n\\f\\r\\u001f\\"\\\\/\u007f\u2028\ud83d\ude00"');
    // A literal backslash-u-d in text is not a lone surrogate.
    expect(canonicalJson({ path: 'C:\\udir\\ud800' })).toBe('{"path":"C:\\\\udir\\\\ud800"}');
  });

  it('orders digit keys as text, not as JavaScript enumerates them', () => {
    expect(canonicalJson({ b: 1, 10: 2, 9: 3, a: { 2: 0, 10: 1 } })).toBe('{"10":2,"9":3,"a":{"10":1,"2":0},"b":1}');
  });

  it('keeps a `__proto__` key as data', () => {
    expect(canonicalJson(JSON.parse('{"z":1,"__proto__":{"b":2,"a":1}}'))).toBe('{"__proto__":{"a":1,"b":2},"z":1}');
  });

  it('accepts objects without a prototype and empty containers', () => {
    const bare = Object.create(null) as Record<string, unknown>;
    bare['b'] = [];
    bare['a'] = {};
    expect(canonicalJson(bare)).toBe('{"a":{},"b":[]}');
  });

  it('refuses what JSON cannot hold exactly, naming where it is', () => {
    const refused = (value: unknown) => {
      try {
        canonicalJson(value);
      } catch (error) {
        expect(error).toBeInstanceOf(TypeError);
        return (error as Error).message;
      }
      throw new Error('expected a TypeError');
    };
    expect(refused({ a: [1, 2, NaN] })).toBe('Unexpected NaN at $.a[2], expected a JSON value');
    expect(refused([Infinity])).toBe('Unexpected Infinity at $[0], expected a JSON value');
    expect(refused({ x: { y: -Infinity } })).toBe('Unexpected -Infinity at $.x.y, expected a JSON value');
    expect(refused([1, undefined])).toBe('Unexpected undefined at $[1], expected a JSON value');
    // eslint-disable-next-line no-sparse-arrays -- the hole is what is tested
    expect(refused([1, , 3])).toBe('Unexpected undefined at $[1], expected a JSON value');
    expect(refused({ a: 1, b: undefined })).toBe('Unexpected undefined at $.b, expected a JSON value');
    expect(refused(undefined)).toBe('Unexpected undefined at $, expected a JSON value');
    expect(refused({ 'a b': [{ c: () => 1 }] })).toBe('Unexpected function at $["a b"][0].c, expected a JSON value');
    expect(refused({ s: Symbol('s') })).toBe('Unexpected symbol at $.s, expected a JSON value');
    expect(refused({ n: 12n })).toBe('Unexpected bigint 12n at $.n, expected a JSON value');
    expect(refused({ m: new Map() })).toBe('Unexpected Map at $.m, expected a JSON value');
    expect(refused({ when: new Date(0) })).toBe('Unexpected Date at $.when, expected a JSON value');
    expect(refused({ bytes: new Uint8Array(2) })).toBe('Unexpected Uint8Array at $.bytes, expected a JSON value');
    class Point {
      x = 1;
    }
    expect(refused([new Point()])).toBe('Unexpected instance of Point at $[0], expected a JSON value');
    expect(refused({ s: 'ok', t: ['x\ud800y'] })).toBe('Unexpected lone surrogate U+D800 in a string at $.t[0], expected well-formed Unicode (I-JSON)');
    expect(refused({ path: 'C:\\\ud800' })).toBe('Unexpected lone surrogate U+D800 in a string at $.path, expected well-formed Unicode (I-JSON)');
    expect(refused({ '\udc00': 1 })).toBe('Unexpected lone surrogate U+DC00 in a property name at $["\\udc00"], expected well-formed Unicode (I-JSON)');
    // The same checks hold where the fast path hands an object to the exact serializer.
    expect(refused({ 10: 1, 9: [NaN] })).toBe('Unexpected NaN at $["9"][0], expected a JSON value');
  });

  it('refuses a cycle as nesting that is too deep', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic['self'] = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(
      new RegExp(`^Unexpected nesting deeper than ${MAX_JSON_DEPTH} levels at \\$\\.self\\.self.*\\(\\d+ more\\).*, expected an acyclic JSON value$`),
    );
    let deep: unknown = 1;
    for (let i = 0; i < MAX_JSON_DEPTH; i++) deep = [deep];
    expect(() => canonicalJson(deep)).not.toThrow();
    expect(() => canonicalJson([deep])).toThrow(TypeError);
  });

  it('splices RawJson fragments verbatim', () => {
    // Deliberately not re-sorted: the fragment is trusted to be canonical already.
    expect(canonicalJson({ b: new RawJson('{"y":1,"x":2}'), a: 1 })).toBe('{"a":1,"b":{"y":1,"x":2}}');
    expect(canonicalJson(new RawJson('[1,2]'))).toBe('[1,2]');
    const many = Array.from({ length: 25 }, (_, i) => new RawJson(`{"i":${i}}`));
    expect(canonicalJson({ z: many, a: 'text' })).toBe(`{"a":"text","z":[${many.map((m) => m.text).join(',')}]}`);
    expect(RawJson.of({ b: 1, a: [2] }).text).toBe('{"a":[2],"b":1}');
    // A data string with the placeholders' character still comes out as data.
    expect(canonicalJson({ a: '\u0000berrypack-raw-0:0', b: new RawJson('true') })).toBe('{"a":"\\u0000berrypack-raw-0:0","b":true}');
  });

  it('encodes fragments of every size and script whole, across the chunks they are cut from', () => {
    const rnd = prng(3250);
    const alphabet = ['a', 'é', '€', '𝄞', '\\n', '"', ' '];
    const made: [RawJson, string][] = [];
    // Enough bytes to fill several 32 KB chunks, with fragments near the chunk's remaining space and over its quarter (own buffer).
    for (let i = 0; i < 400; i++) {
      const length = rnd() < 0.05 ? 3000 + Math.floor(rnd() * 6000) : Math.floor(rnd() * 900);
      let text = '"';
      for (let k = 0; k < length; k++) text += alphabet[Math.floor(rnd() * alphabet.length)];
      text += '"';
      const prefix = ['', ',', ',"ké":'][i % 3]!;
      made.push([new RawJson(text), prefix]);
    }
    const bytes = made.map(([raw, prefix]) => raw.prefixed(prefix));
    made.forEach(([raw, prefix], i) => {
      expect(Buffer.from(bytes[i]!).toString('utf8')).toBe(prefix + raw.text);
      expect(bytes[i]!.byteLength).toBe(Buffer.byteLength(prefix + raw.text));
    });
  });

  it('keeps only the bytes of a released fragment and gives the same text and pieces from them', () => {
    const text = '{"path":"é/ü.md","text":"ä 𝄞 \\u0000 ,\\"key\\":"}';
    const kept = new RawJson(text);
    const released = new RawJson(text);
    // Encoded with a prefix of more than one byte per character, then the text let go.
    expect(Buffer.from(released.entry('ké', true)).toString('utf8')).toBe(`,"ké":${text}`);
    released.release();
    expect(released.text).toBe(text);
    // Asked elsewhere (another key, an array item, no prefix), the bytes are made again from it.
    for (const [a, b] of [
      [kept.prefixed(','), released.prefixed(',')],
      [kept.entry('x', false), released.entry('x', false)],
      [kept.bytes, released.release().bytes],
    ])
      expect(Buffer.from(b!).equals(Buffer.from(a!))).toBe(true);
    expect(canonicalJson({ list: [released, kept] })).toBe(`{"list":[${text},${text}]}`);
    const pieces = canonicalPieces({ b: [kept, released.release()], a: released });
    expect(Buffer.concat(pieces.map((p) => (typeof p === 'string' ? Buffer.from(p) : p))).toString('utf8')).toBe(`{"a":${text},"b":[${text},${text}]}`);
  });

  it('agrees with a naive reference and is idempotent on a seeded random corpus', () => {
    const rnd = prng(8785);
    for (let i = 0; i < 1500; i++) {
      const value = randomJson(rnd);
      const text = canonicalJson(value);
      expect(text, `case ${i}`).toBe(referenceJcs(value));
      expect(canonicalJson(JSON.parse(text)), `case ${i}`).toBe(text);
      expect(canonicalJson(withFragments(value, rnd)), `case ${i} with fragments`).toBe(text);
    }
  });
});

const CONTENT = {
  name: 'example.notebook',
  files: [
    { path: 'plugin.json', mediaType: 'application/json', digest: digestOf('{"name":"example.notebook"}\n'), size: 28, text: '{"name":"example.notebook"}\n' },
    {
      path: 'notes/style.md',
      mediaType: 'text/markdown',
      digest: digestOf('---\nname: notes.style\n---\nCafé ☕\n'),
      size: enc('---\nname: notes.style\n---\nCafé ☕\n').length,
      text: '---\nname: notes.style\n---\nCafé ☕\n',
    },
  ],
  resources: [
    { uri: 'ui://logo', path: 'assets/logo.bin', mediaType: 'application/octet-stream', digest: digestOf(new Uint8Array([0, 1, 2, 255])), size: 4 },
    { uri: 'ui://page', path: 'assets/page.html', mediaType: 'text/html', digest: digestOf('<p>hi</p>\r\n'), size: 11 },
  ],
};
const BLOBS = new Map<string, Uint8Array>([
  [sha256Hex(new Uint8Array([0, 1, 2, 255])), new Uint8Array([0, 1, 2, 255])],
  [sha256Hex('<p>hi</p>\r\n'), enc('<p>hi</p>\r\n')],
]);
const blobReader = (blobs: ReadonlyMap<string, Uint8Array>) => (hex: string) => blobs.get(hex);

function refusal(result: ReadBundleResult): BundleError {
  if (result.ok) throw new Error('expected the bundle to be refused');
  expect(result.error.rule).toBe(CODES[result.error.code].rule);
  return result.error;
}

/** The bundle text with `content` replaced, the id recomputed: only the inner checks can catch it. */
function rebuilt(content: unknown): BundleFile {
  return createBundle('example.notebook', content, BLOBS);
}

/** The same as a `berrypack/1` writer made it: the envelope of an earlier format around `content`. */
function rebuiltV1(content: unknown): Uint8Array {
  return enc(canonicalJson({ content, format: 'berrypack/1', id: digestOf(canonicalJson(content)) }));
}

describe('BND-2 bundle identity and file name', () => {
  const bundle = createBundle('example.notebook', CONTENT, BLOBS);

  it('ids a bundle by an independent sha256 of the canonical content', () => {
    expect(bundle.id).toBe(`sha256-${nodeSha256(canonicalJson(CONTENT))}`);
    expect(isDigest(bundle.id)).toBe(true);
  });

  it('writes the envelope as canonical JSON, content first', () => {
    expect(bundle.text).toBe(`{"content":${canonicalJson(CONTENT)},"format":"berrypack/2","id":"${bundle.id}"}`);
    expect(dec(bundle.bytes)).toBe(bundle.text);
    expect(canonicalJson(JSON.parse(bundle.text))).toBe(bundle.text);
    expect(BUNDLE_FORMAT).toBe('berrypack/2');
    expect(BUNDLE_FORMATS).toEqual(['berrypack/1', 'berrypack/2']);
  });

  it('names the file after the plugin and the first 12 hex digits of the id', () => {
    expect(bundle.fileName).toBe(`example.notebook.${bundle.id.slice(7, 19)}.berry.json`);
    expect(bundleFileName('a-b.c', `sha256-${'0123456789ab'.repeat(5)}0123`)).toBe('a-b.c.0123456789ab.berry.json');
    expect(() => bundleFileName('../evil', bundle.id)).toThrow(/Unexpected plugin name "\.\.\/evil"/);
    expect(() => bundleFileName('Notes', bundle.id)).toThrow(TypeError);
    expect(() => bundleFileName('notes', 'sha256-ABC')).toThrow(/Unexpected bundle id/);
  });

  it('gives the same bytes whatever order the keys were built in, and for cached fragments', () => {
    const reordered = {
      resources: CONTENT.resources.map((r) => ({ size: r.size, uri: r.uri, digest: r.digest, path: r.path, mediaType: r.mediaType })),
      files: CONTENT.files,
      name: CONTENT.name,
    };
    expect(createBundle('example.notebook', reordered, BLOBS).bytes).toEqual(bundle.bytes);
    const fragments = { ...CONTENT, files: CONTENT.files.map((f) => RawJson.of(f)) };
    expect(createBundle('example.notebook', fragments, BLOBS).bytes).toEqual(bundle.bytes);
  });

  it('rebuilds from parts: runs of unchanged fragments are reused, and the bytes equal a fresh build', () => {
    const texts = Array.from({ length: 300 }, (_, i) => ({ path: `r/${String(i).padStart(3, '0')}.md`, text: `body ${i} é` }));
    const fragments = texts.map((t) => RawJson.of(t));
    const first = createBundle('p', { files: fragments, name: 'p' });
    const edited = [...fragments];
    edited[150] = RawJson.of({ ...texts[150], text: 'edited' });
    const second = createBundle('p', { files: edited, name: 'p' });
    const fresh = createBundle('p', { files: texts.map((t, i) => (i === 150 ? { ...t, text: 'edited' } : t)), name: 'p' });
    expect(second.id).toBe(fresh.id);
    expect(second.bytes).toEqual(fresh.bytes);
    expect(second.id).toBe(`sha256-${nodeSha256(canonicalJson({ files: texts.map((t, i) => (i === 150 ? { ...t, text: 'edited' } : t)), name: 'p' }))}`);
    expect(dec(Buffer.concat(second.parts!))).toBe(second.text);
    // Only the run holding the edit (and the small texts around the runs) is copied again.
    const copied = second.parts!.filter((part) => !first.parts!.includes(part));
    const copiedBytes = copied.reduce((sum, part) => sum + part.length, 0);
    expect(copied.some((part) => dec(part).includes('"edited"'))).toBe(true);
    expect(copiedBytes).toBeGreaterThan(0);
    expect(copiedBytes).toBeLessThan(second.bytes.length / 3);
  });

  it('joins the parts into a plain Uint8Array of its own, which slice() copies', () => {
    const texts = Array.from({ length: 200 }, (_, i) => RawJson.of({ path: `r/${i}.md`, text: `body ${i}` }));
    const bundle = createBundle('p', { files: texts, name: 'p' });
    const bytes = bundle.bytes;
    expect(Buffer.isBuffer(bytes)).toBe(false);
    expect([bytes.byteOffset, bytes.buffer.byteLength]).toEqual([0, bytes.length]);
    expect(Buffer.from(bytes).equals(Buffer.concat(bundle.parts!))).toBe(true);
    const copy = bytes.slice();
    copy[0] = 0x20;
    expect(bytes[0]).toBe(0x7b);
    expect(createBundle('p', {}).bytes).toEqual(new TextEncoder().encode(createBundle('p', {}).text));
  });

  it('refuses content that is not a JSON object, and malformed blob keys', () => {
    expect(() => createBundle('p', [1])).toThrow(/expected a JSON object/);
    expect(() => createBundle('p', { a: NaN })).toThrow('Unexpected NaN at $.a, expected a JSON value');
    expect(() => createBundle('p', {}, new Map([['ABC', new Uint8Array()]]))).toThrow(/Unexpected blob key "ABC"/);
  });

  it('digests strings as UTF-8', () => {
    expect(sha256Hex('Café')).toBe(nodeSha256(Buffer.from('Café', 'utf8')));
    expect(digestOf(new Uint8Array())).toBe('sha256-e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(isDigest(`sha256-${'A'.repeat(64)}`)).toBe(false);
    expect(isDigest(`sha256-${'a'.repeat(63)}`)).toBe(false);
    expect(isDigest(`sha512-${'a'.repeat(64)}`)).toBe(false);
  });
});

describe('BND-4 reading and verifying a bundle', () => {
  const bundle = createBundle('example.notebook', CONTENT, BLOBS);
  const read = (bytes: Uint8Array, options: Parameters<typeof readBundle>[1] = {}) => readBundle(bytes, { readBlob: blobReader(BLOBS), ...options });

  it('accepts a freshly built bundle and returns its content and verified blobs', () => {
    const result = read(bundle.bytes, { expectedId: bundle.id });
    if (!result.ok) throw new Error(result.error.message);
    expect(result.bundle.id).toBe(bundle.id);
    expect(result.bundle.format).toBe('berrypack/2');
    expect(result.bundle.content).toEqual(CONTENT);
    expect(result.bundle.stored).toEqual(CONTENT);
    // An earlier format reads to the same content.
    const old = read(rebuiltV1(CONTENT));
    expect(old.ok && old.bundle.format).toBe('berrypack/1');
    expect(old.ok && old.bundle.content).toEqual(CONTENT);
    expect(result.bundle.bytes).toBe(bundle.bytes);
    expect([...result.blobs.keys()].sort()).toEqual([...BLOBS.keys()].sort());
    // Without readBlob the resources are left to verifyBlob.
    const lazy = readBundle(bundle.bytes);
    expect(lazy.ok && lazy.blobs.size).toBe(0);
    // A bundle that has neither files nor resources is fine too.
    expect(readBundle(createBundle('p', { name: 'p' }).bytes).ok).toBe(true);
  });

  it('refuses a flipped byte at every position', () => {
    const seen = new Set<string>();
    for (let at = 0; at < bundle.bytes.length; at++) {
      for (const mask of [0x01, 0x20, 0x80]) {
        const changed = bundle.bytes.slice();
        changed[at]! ^= mask;
        const result = read(changed);
        expect(result.ok, `byte ${at} ^ ${mask}`).toBe(false);
        if (!result.ok) seen.add(result.error.code);
      }
    }
    // Every layer got its share: not UTF-8, not JSON, not canonical, not the content's id …
    expect([...seen].sort()).toEqual(expect.arrayContaining(['BP4002', 'BP4003', 'BP4005', 'BP4007', 'BP4008', 'BP4009']));
  });

  it('refuses a bundle other than the expected one', () => {
    const other = `sha256-${'0'.repeat(64)}`;
    const error = refusal(read(bundle.bytes, { expectedId: other }));
    expect(error.code).toBe('BP4010');
    expect(error.message).toBe(`Unexpected bundle ${bundle.id}, expected ${other}: this is not the bundle that was imported`);
  });

  it('refuses a truncated file', () => {
    for (const length of [0, 1, 11, bundle.bytes.length - 1]) {
      expect(refusal(read(bundle.bytes.subarray(0, length))).code, `length ${length}`).toBe('BP4003');
    }
  });

  it('refuses a future format with an upgrade message, and other files as not bundles', () => {
    const future = enc(bundle.text.replace('"format":"berrypack/2"', '"format":"berrypack/3"'));
    const error = refusal(read(future));
    expect(error).toMatchObject({ code: 'BP4006', rule: 'BND-1' });
    expect(error.message).toMatch(/written by a newer berrypack/);
    expect(refusal(read(enc(bundle.text.replace('"format":"berrypack/2"', '"format":"other/1"')))).code).toBe('BP4005');
    expect(refusal(read(enc('{"name":"x","version":"1"}'))).message).toBe(
      'Unexpected format (none), expected "berrypack/2" or an earlier berrypack/N: this is not a berrypack bundle',
    );
    expect(refusal(read(enc(bundle.text.replace('"format":"berrypack/2"', '"format":"berrypack/0"')))).code).toBe('BP4005');
    // A future envelope with other keys still gets the upgrade message.
    expect(refusal(read(enc('{"blobs":[],"content":{},"format":"berrypack/3","id":"x"}'))).code).toBe('BP4006');
  });

  it('refuses a malformed envelope', () => {
    expect(refusal(read(enc('[1]'))).message).toBe('Unexpected list, expected a bundle envelope {content, format, id}');
    expect(refusal(read(enc(bundle.text.replace('{"content":', '{"extra":1,"content":')))).message).toBe(
      'Unexpected key "extra" in the envelope, expected only content, format and id',
    );
    expect(refusal(read(enc('{"format":"berrypack/1","id":"x"}'))).code).toBe('BP4004');
    expect(refusal(read(enc(`{"content":[],"format":"berrypack/1","id":"${bundle.id}"}`))).message).toBe('Unexpected list as content, expected an object');
    expect(refusal(read(enc(bundle.text.replace(bundle.id, bundle.id.toUpperCase().replace('SHA256', 'sha256'))))).code).toBe('BP4007');
  });

  it('refuses a non-canonical reformatting', () => {
    const pretty = refusal(read(enc(JSON.stringify(JSON.parse(bundle.text), null, 2))));
    expect(pretty.code).toBe('BP4008');
    expect(pretty.message).toBe(
      'Unexpected "\\n  \\"content\\": {\\n" at character 2, expected "\\"content\\":{\\"file" (canonical JSON, RFC 8785): a reformatted or edited bundle is a changed bundle',
    );
    // Same value, keys in another order.
    const parsed = JSON.parse(bundle.text) as { content: unknown; format: string; id: string };
    expect(refusal(read(enc(JSON.stringify({ id: parsed.id, format: parsed.format, content: parsed.content })))).code).toBe('BP4008');
    // Same value, a number spelled differently.
    expect(refusal(read(enc(bundle.text.replace('"size":4,', '"size":4.0,')))).code).toBe('BP4008');
    // A byte order mark in front.
    expect(refusal(read(new Uint8Array([0xef, 0xbb, 0xbf, ...bundle.bytes]))).message).toBe(
      'Unexpected byte order mark, expected a bundle file starting with `{`',
    );
    // A lone surrogate escape cannot be canonical.
    const lone = createBundle('p', { s: 'PLACEHOLDER' }).text.replace('PLACEHOLDER', '\\ud800');
    expect(refusal(read(enc(lone))).message).toMatch(/^Unexpected lone surrogate U\+D800 in a string at \$\.content\.s/);
  });

  it('refuses an edited id and names both digests', () => {
    const other = `sha256-${'ab'.repeat(32)}`;
    const error = refusal(read(enc(bundle.text.replace(bundle.id, other))));
    expect(error).toEqual({
      code: 'BP4009',
      rule: 'BND-4',
      message: `Unexpected id ${other}, expected ${bundle.id} (the content's digest): the bundle was changed after it was built`,
    });
  });

  it('refuses an inline file whose text was edited even when the id was recomputed', () => {
    // berrypack/1 stores each file's digest and size beside its text; berrypack/2 computes them.
    const edited = { ...CONTENT, files: [CONTENT.files[0]!, { ...CONTENT.files[1]!, text: CONTENT.files[1]!.text.replace('Café', 'Cafe') }] };
    const error = refusal(read(rebuiltV1(edited)));
    expect(error.code).toBe('BP4012');
    expect(error.message).toMatch(/^Unexpected size \d+ for content\.files\[1\] \("notes\/style\.md"\), expected \d+ \(the UTF-8 length of its text\)/);
    const sameSize = { ...CONTENT, files: [CONTENT.files[0]!, { ...CONTENT.files[1]!, text: CONTENT.files[1]!.text.replace('Café', 'Cafè') }] };
    expect(refusal(read(rebuiltV1(sameSize))).message).toMatch(
      /^Unexpected digest sha256-[0-9a-f]{64} for content\.files\[1\] \("notes\/style\.md"\), expected sha256-/,
    );
  });

  it('refuses malformed files and resources lists', () => {
    expect(refusal(read(rebuilt({ files: {} }).bytes)).code).toBe('BP4011');
    expect(refusal(read(rebuiltV1({ files: {} }))).code).toBe('BP4011');
    expect(refusal(read(rebuiltV1({ files: [{ ...CONTENT.files[0]!, size: -1 }] }))).message).toBe(
      'Unexpected -1 as content.files[0].size, expected a byte count',
    );
    expect(refusal(read(rebuiltV1({ files: [{ ...CONTENT.files[0]!, digest: 'sha256-x' }] }))).code).toBe('BP4011');
    const { text: _text, ...noText } = CONTENT.files[0]!;
    expect(refusal(read(rebuilt({ files: [noText] }).bytes)).message).toBe('Unexpected nothing as content.files[0].text, expected a string');
    expect(refusal(read(rebuilt({ files: [CONTENT.files[0]!, CONTENT.files[0]!] }).bytes)).message).toBe(
      'Unexpected second file "plugin.json" at content.files[1], expected each path once',
    );
    const { uri: _uri, ...noUri } = CONTENT.resources[0]!;
    expect(refusal(read(rebuilt({ resources: [noUri] }).bytes)).message).toBe('Unexpected nothing as content.resources[0].uri, expected a string');
  });

  it('refuses a swapped blob and a missing blob', () => {
    const [logo, page] = [...BLOBS.keys()] as [string, string];
    const swapped = new Map([
      [logo, BLOBS.get(page)!],
      [page, BLOBS.get(logo)!],
    ]);
    const error = refusal(readBundle(bundle.bytes, { readBlob: blobReader(swapped) }));
    expect(error.code).toBe('BP4015');
    expect(error.message).toBe('Unexpected size 11 for the blob of resource "ui://logo", expected 4: the blob was changed or replaced');
    const sameSize = new Map([...BLOBS, [logo, new Uint8Array([0, 1, 2, 254])]]);
    expect(refusal(readBundle(bundle.bytes, { readBlob: blobReader(sameSize) })).message).toMatch(
      /^Unexpected digest sha256-[0-9a-f]{64} for the blob of resource "ui:\/\/logo", expected sha256-/,
    );
    const missing = new Map([[page, BLOBS.get(page)!]]);
    expect(refusal(readBundle(bundle.bytes, { readBlob: blobReader(missing) })).message).toBe(
      `Missing blobs/sha256/${logo} for resource "ui://logo", expected it beside the bundle`,
    );
    const failing = refusal(
      readBundle(bundle.bytes, {
        readBlob: () => {
          throw new Error('EACCES: permission denied');
        },
      }),
    );
    expect(failing.code).toBe('BP4014');
    expect(failing.message).toMatch(/permission denied/);
  });

  it('verifies a resource lazily with verifyBlob', () => {
    const resource = CONTENT.resources[0]! satisfies BundleResource;
    expect(verifyBlob(resource, new Uint8Array([0, 1, 2, 255]))).toBeUndefined();
    expect(verifyBlob(resource, new Uint8Array([0, 1, 2, 254]))?.code).toBe('BP4015');
    expect(verifyBlob(resource, new Uint8Array([0, 1, 2]))?.code).toBe('BP4015');
  });

  it('never throws, whatever the input', () => {
    const rnd = prng(4);
    for (let i = 0; i < 300; i++) {
      const bytes = Uint8Array.from({ length: Math.floor(rnd() * 64) }, () => Math.floor(rnd() * 256));
      expect(readBundle(bytes).ok).toBe(false);
    }
    expect(refusal(readBundle(new Uint8Array([0x7b, 0xff, 0x7d]))).message).toBe('Unexpected invalid UTF-8 at byte 1, expected a UTF-8 bundle file');
    // An encoded surrogate (ED A0 80) and an overlong slash (C0 AF) are not UTF-8.
    expect(refusal(readBundle(new Uint8Array([0x22, 0xed, 0xa0, 0x80, 0x22]))).code).toBe('BP4002');
    expect(refusal(readBundle(new Uint8Array([0x22, 0xc0, 0xaf, 0x22]))).code).toBe('BP4002');
    expect(refusal(readBundle(enc('['.repeat(200_000) + ']'.repeat(200_000)))).code).toMatch(/^BP400[34]$/);
    const deep = `{"content":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)},"format":"berrypack/1","id":"sha256-${'0'.repeat(64)}"}`;
    expect(refusal(readBundle(enc(deep))).code).toBe('BP4008');
    expect(refusal(readBundle('{}' as unknown as Uint8Array)).code).toBe('BP4002');
  });
});

describe('BND-1 writing bundles', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'berrypack-bundle-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const bundle = createBundle('example.notebook', CONTENT, BLOBS);

  it('writes the bundle and its blobs, leaving no temporary files', () => {
    const out = path.join(root, 'first', 'dist');
    const file = writeBundle(out, bundle);
    expect(path.isAbsolute(file)).toBe(true);
    expect(file).toBe(path.join(out, bundle.fileName));
    expect(new Uint8Array(readFileSync(file))).toEqual(bundle.bytes);
    expect(listFiles(out)).toEqual([bundle.fileName, ...[...BLOBS.keys()].sort().map((hex) => `blobs/sha256/${hex}`)].sort());
    for (const [hex, bytes] of BLOBS) expect(new Uint8Array(readFileSync(path.join(out, 'blobs/sha256', hex)))).toEqual(bytes);
  });

  it('leaves identical files alone and repairs a damaged blob', () => {
    const out = path.join(root, 'again');
    const file = writeBundle(out, bundle);
    const [logo, page] = [...BLOBS.keys()] as [string, string];
    const blob = (hex: string) => path.join(out, 'blobs/sha256', hex);
    const before = { file: statSync(file).ino, logo: statSync(blob(logo)).ino, page: statSync(blob(page)).ino };
    writeFileSync(blob(page), 'damaged');
    const damaged = statSync(blob(page)).ino;
    writeBundle(out, bundle);
    expect(statSync(file).ino).toBe(before.file);
    expect(statSync(blob(logo)).ino).toBe(before.logo);
    expect(statSync(blob(page)).ino).not.toBe(damaged);
    expect(new Uint8Array(readFileSync(blob(page)))).toEqual(BLOBS.get(page));
    expect(listFiles(out).some((f) => f.endsWith('.tmp'))).toBe(false);
  });

  it('fails without leaving a partial bundle', () => {
    // outDir is a file: nothing can be written at all.
    const notADir = path.join(root, 'not-a-dir');
    writeFileSync(notADir, 'x');
    expect(() => writeBundle(notADir, bundle)).toThrow();
    expect(readFileSync(notADir, 'utf8')).toBe('x');
    // The bundle's own name is taken by a directory: the blobs are written, then the rename fails.
    const out = path.join(root, 'blocked');
    mkdirSync(path.join(out, bundle.fileName), { recursive: true });
    expect(() => writeBundle(out, bundle)).toThrow();
    expect(statSync(path.join(out, bundle.fileName)).isDirectory()).toBe(true);
    expect(listFiles(out).filter((f) => !f.startsWith('blobs/'))).toEqual([]);
    expect(listFiles(out).every((f) => !f.endsWith('.tmp'))).toBe(true);
    expect(readdirSync(out).filter((f) => f.startsWith('.'))).toEqual([]);
  });

  it('refuses a hand-made file name that leaves outDir', () => {
    expect(() => writeBundle(path.join(root, 'evil'), { ...bundle, fileName: '../x.berry.json' })).toThrow(/Unexpected bundle file name/);
    expect(existsSync(path.join(root, 'x.berry.json'))).toBe(false);
  });

  it('round-trips through loadBundleFile', () => {
    const out = path.join(root, 'round-trip');
    const file = writeBundle(out, bundle);
    const loaded = loadBundleFile(file, { expectedId: bundle.id });
    if (!loaded.ok) throw new Error(loaded.error.message);
    expect(loaded.bundle.id).toBe(bundle.id);
    expect(loaded.bundle.content).toEqual(CONTENT);
    expect([...loaded.blobs.entries()].map(([k, v]) => [k, new Uint8Array(v)]).sort()).toEqual([...BLOBS.entries()].sort());
    expect(loadBundleFile(pathToFileURL(file)).ok).toBe(true);
    expect(refusal(loadBundleFile(file, { expectedId: `sha256-${'1'.repeat(64)}` })).code).toBe('BP4010');
    const [logo] = [...BLOBS.keys()] as [string];
    rmSync(path.join(out, 'blobs/sha256', logo));
    expect(refusal(loadBundleFile(file)).code).toBe('BP4014');
    writeFileSync(path.join(out, 'blobs/sha256', logo), new Uint8Array([9, 9, 9, 9]));
    expect(refusal(loadBundleFile(file)).code).toBe('BP4015');
    const missing = refusal(loadBundleFile(path.join(out, 'nothing.berry.json')));
    expect(missing.code).toBe('BP4001');
    expect(missing.message).toMatch(/^Unexpected ENOENT reading .*nothing\.berry\.json, expected a readable bundle file$/);
  });
});

describe('berrypack/2 stores each text once: templates and code bodies are slices of their file', () => {
  const md = '---\nname: notes.style\n---\nCafé ☕ served warm for {{ $.input.who }} \\{{ literal }}\nthe end of the note\n';
  const bodyStart = md.indexOf('Café');
  const file = { path: 'notes/style.md', mediaType: 'text/markdown', text: md };
  // What the compiler expanded: escapes decoded (the `\{{` is a literal `{{`), text from an include added.
  const expanded = [{ text: 'Café ☕ served warm for ' }, { path: '$.input.who' }, { text: ' {{ literal }}\nthe end of the note\nIncluded text.\n' }];
  const stored = storedTemplate(expanded, md, bodyStart);
  const content = (template: unknown, body: unknown = bodySlice(md, md.slice(md.indexOf('the end of')))) => ({
    files: [file],
    sources: { 'notes.style': { kind: 'model', path: 'notes/style.md', template, code: { body, imports: [] } } },
  });
  const view = (c: unknown) => {
    const result = readBundle(createBundle('p', c).bytes);
    if (!result.ok) throw new Error(result.error.message);
    return result.bundle.content as unknown as { files: { digest: string; size: number }[]; sources: Record<string, Record<string, unknown>> };
  };

  it('slices by UTF-8 bytes what is in the file, keeps literal what is not or is short, and reads back the expanded template', () => {
    const bytes = enc(md);
    const start = bytes.indexOf(0x43); // "C" of "Café"
    expect(stored[0]).toEqual({ slice: [start, start + enc('Café ☕ served warm for ').length] });
    expect(stored[1]).toEqual({ path: '$.input.who' });
    // The escaped marker's line and the included line are not in the file as written.
    expect(stored.slice(2)).toEqual([
      { text: ' {{ literal }}\n' },
      { slice: [bytes.length - 'the end of the note\n'.length, bytes.length] },
      { text: 'Included text.\n' },
    ]);
    // A text shorter than a slice reference stays literal.
    expect(storedTemplate([{ text: 'Café' }], md, bodyStart)).toEqual([{ text: 'Café' }]);
    const source = view(content(stored)).sources['notes.style']!;
    expect(source['template']).toEqual(expanded);
    expect(source['code']).toEqual({ body: 'the end of the note\n', imports: [] });
    expect(source['digest']).toBe(digestOf(md));
    expect(source['refs']).toEqual([]);
    expect(view(content(stored)).files[0]).toMatchObject({ digest: digestOf(md), size: bytes.length });
  });

  it('refuses a slice outside its file, inside a character, malformed, or a source naming no file', () => {
    const size = enc(md).length;
    const refused = (c: unknown) => refusal(readBundle(createBundle('p', c).bytes));
    expect(refused(content([{ slice: [0, size + 1] }]))).toMatchObject({ code: 'BP4016', rule: 'BND-4' });
    expect(refused(content([{ slice: [2, 1] }])).code).toBe('BP4016');
    expect(refused(content([{ slice: [0] }])).code).toBe('BP4016');
    expect(refused(content([{ slice: ['0', 1] }])).code).toBe('BP4016');
    // "é" is two bytes: a slice may not start between them.
    const e = enc(md).indexOf(0xc3);
    expect(refused(content([{ slice: [e + 1, size] }])).message).toBe(
      `Unexpected slice edge at byte ${e + 1} of notes/style.md at content.sources["notes.style"].template[0], expected the start of a character`,
    );
    expect(refused(content([], 'export default 1;')).message).toMatch(
      /^Unexpected "export default 1;" at content\.sources\["notes\.style"\]\.code\.body, expected \{slice/,
    );
    expect(refused(content({})).code).toBe('BP4016');
    expect(refused({ files: [file], sources: { x: { path: 'missing.md' } } }).message).toBe(
      'Unexpected path "missing.md" at content.sources["x"], expected the path of one of the bundle\'s files',
    );
    expect(refused({ files: [file], sources: { x: 1 } }).code).toBe('BP4016');
  });

  it('reads the text of a template in a non-ASCII file at the right bytes however the segments fall', () => {
    const text = '---\nname: a\n---\nÀ😀 the first line\nÀ😀 the second line\n';
    const segments = [{ text: 'À😀 the first line\n' }, { env: 'X' }, { text: 'À😀 the second line\n' }];
    const again = storedTemplate(segments, text, text.indexOf('À'));
    expect(again.every((s) => !('text' in s))).toBe(true);
    const c = { files: [{ path: 'a.md', mediaType: 'text/markdown', text }], sources: { a: { path: 'a.md', template: again } } };
    expect(view(c).sources['a']!['template']).toEqual(segments);
  });
});
