import { canonicalJson } from './canonical-json.js';
import { isDigest, sha256Hex } from './digest.js';
import { describeError, isObject, kindOf, refuse } from './refusal.js';
import type { BundleCode } from '../diagnostics/codes/bundle.js';

/** Every format this loader reads, oldest first; the compiler writes the last one. */
export const BUNDLE_FORMATS = ['berrypack/1', 'berrypack/2'] as const;
export type BundleFormat = (typeof BUNDLE_FORMATS)[number];

/** An inline text file of the bundle (a source, a code module, the manifest), as a reader sees it. */
export interface BundleFileEntry {
  readonly path: string;
  readonly mediaType: string;
  /** `sha256-<hex>` of the UTF-8 bytes of `text`. */
  readonly digest: string;
  /** Length of `text` in UTF-8 bytes. */
  readonly size: number;
  readonly text: string;
}

/** A resource captured byte-exact as the blob `blobs/sha256/<hex of digest>`. */
export interface BundleResource {
  readonly uri: string;
  readonly path: string;
  readonly mediaType: string;
  readonly digest: string;
  readonly size: number;
}

/**
 * The `content` of a bundle as a reader uses it, whatever the format it was stored in: texts
 * inline and every file with its digest and size (`berrypack/1`'s members). The loader checks
 * `files`, `resources` and embedded `imports`; the rest belongs to the package compiler
 * (docs/bundle-format.md, "Content").
 */
export interface BundleContent {
  readonly files?: readonly BundleFileEntry[];
  readonly resources?: readonly BundleResource[];
  readonly [key: string]: unknown;
}

/** Lists of a `berrypack/2` source stored only when not empty; the view has each one. */
const SOURCE_LISTS = ['dependencies', 'env', 'includes', 'readers', 'refs'] as const;
/** Imports nested deeper than this are refused: a real package nests a few levels. */
const MAX_IMPORT_DEPTH = 32;
const NEWER_FORMAT = /^berrypack\/([0-9]+)$/;
const encoder = new TextEncoder();

/**
 * The format of an envelope or an embedded import: one this loader reads, or a refusal that
 * says whether a newer berrypack wrote it (BP4006) or it is no berrypack bundle at all (BP4005).
 */
export function checkFormat(format: unknown, where = ''): BundleFormat {
  if ((BUNDLE_FORMATS as readonly unknown[]).includes(format)) return format as BundleFormat;
  const newest = BUNDLE_FORMATS[BUNDLE_FORMATS.length - 1];
  const version = typeof format === 'string' ? NEWER_FORMAT.exec(format) : null;
  if (version !== null && Number(version[1]) > BUNDLE_FORMATS.length) {
    throw refuse(
      'BP4006',
      `${where}Unexpected format ${format as string}, expected ${newest} or earlier: the bundle was written by a newer berrypack; upgrade to load it`,
    );
  }
  const shown = format === undefined ? '(none)' : typeof format === 'string' ? JSON.stringify(format) : kindOf(format);
  throw refuse('BP4005', `${where}Unexpected format ${shown}, expected ${JSON.stringify(newest)} or an earlier berrypack/N: this is not a berrypack bundle`);
}

/**
 * Verifies what the loader checks inside `content` (docs/bundle-format.md, "Verifying a
 * bundle", steps 7 to 10: inline files, the resources' shape, text references, embedded
 * imports) and returns it as a reader uses it (`BundleContent`, "Reading every version"). A
 * `berrypack/1` content is returned as it is; a `berrypack/2` one gets each text reference
 * replaced by its text and each file its digest and size, so everything after the loader reads
 * one shape.
 *
 * @throws Refused at the first failed check.
 */
export function contentView(format: BundleFormat, content: Record<string, unknown>, where = 'content', depth = 0): BundleContent {
  if (format === 'berrypack/1') {
    checkFilesV1(content, where);
    checkResourceEntries(content, where);
    const imports = importsView(content, where, depth, false);
    return imports === undefined ? content : { ...content, imports };
  }
  const files = filesV2(content, where);
  checkResourceEntries(content, where);
  const view: Record<string, unknown> = { ...content };
  if (files !== undefined) {
    view['files'] = files.map((f) => f.entry);
    const byPath = new Map(files.map((f) => [f.entry.path, f]));
    if ('sources' in content) view['sources'] = sourcesView(content['sources'], byPath, where);
  }
  const imports = importsView(content, where, depth, true);
  if (imports !== undefined) view['imports'] = imports;
  return view;
}

/** Step 7 for `berrypack/1`: `{path, mediaType, digest, size, text}`, the text matching both. */
function checkFilesV1(content: Record<string, unknown>, where: string): void {
  if (!('files' in content)) return;
  const files = listAt(content, 'files', where, 'BP4011');
  for (let i = 0; i < files.length; i++) {
    const at = `${where}.files[${i}]`;
    const entry = objectAt(files[i], at, '{path, mediaType, digest, size, text}', 'BP4011');
    expectString(entry, 'path', at, 'BP4011');
    expectString(entry, 'mediaType', at, 'BP4011');
    expectDigestAndSize(entry, at, 'BP4011');
    const bytes = encoder.encode(expectString(entry, 'text', at, 'BP4011'));
    const file = entry as unknown as BundleFileEntry;
    const name = `${at} (${JSON.stringify(file.path)})`;
    if (bytes.length !== file.size) {
      throw refuse(
        'BP4012',
        `Unexpected size ${file.size} for ${name}, expected ${bytes.length} (the UTF-8 length of its text): the file was changed after it was built`,
      );
    }
    const digest = `sha256-${sha256Hex(bytes)}`;
    if (digest !== file.digest) {
      throw refuse(
        'BP4012',
        `Unexpected digest ${file.digest} for ${name}, expected ${digest} (the digest of its text): the file was changed after it was built`,
      );
    }
  }
}

interface StoredFile {
  entry: BundleFileEntry;
  bytes: Uint8Array;
}

/** Step 7 for `berrypack/2`: `{path, mediaType, text}` with distinct paths; digest and size are computed. */
function filesV2(content: Record<string, unknown>, where: string): StoredFile[] | undefined {
  if (!('files' in content)) return undefined;
  const files = listAt(content, 'files', where, 'BP4011');
  const seen = new Set<string>();
  return files.map((item, i) => {
    const at = `${where}.files[${i}]`;
    const entry = objectAt(item, at, '{path, mediaType, text}', 'BP4011');
    const path = expectString(entry, 'path', at, 'BP4011');
    const mediaType = expectString(entry, 'mediaType', at, 'BP4011');
    const text = expectString(entry, 'text', at, 'BP4011');
    // References name a file by its path: two files under one path would make them ambiguous.
    if (seen.has(path)) throw refuse('BP4011', `Unexpected second file ${JSON.stringify(path)} at ${at}, expected each path once`);
    seen.add(path);
    const bytes = encoder.encode(text);
    return { entry: { path, mediaType, digest: `sha256-${sha256Hex(bytes)}`, size: bytes.length, text }, bytes };
  });
}

/** Step 8's shape check (the blobs themselves are read by `readBundle`). */
export function checkResourceEntries(content: Record<string, unknown>, where: string): BundleResource[] {
  if (!('resources' in content)) return [];
  const resources = listAt(content, 'resources', where, 'BP4013');
  return resources.map((item, i) => {
    const at = `${where}.resources[${i}]`;
    const entry = objectAt(item, at, '{uri, path, mediaType, digest, size}', 'BP4013');
    for (const key of ['uri', 'path', 'mediaType']) expectString(entry, key, at, 'BP4013');
    expectDigestAndSize(entry, at, 'BP4013');
    return entry as unknown as BundleResource;
  });
}

/** `berrypack/2` sources: each names its file, takes that file's digest, and gets its text references resolved. */
function sourcesView(sources: unknown, files: ReadonlyMap<string, StoredFile>, where: string): unknown {
  if (!isObject(sources)) return sources;
  const view: Record<string, unknown> = {};
  for (const [name, source] of Object.entries(sources)) {
    const at = `${where}.sources[${JSON.stringify(name)}]`;
    const record = objectAt(source, at, 'a source', 'BP4016');
    const path = record['path'];
    const file = typeof path === 'string' ? files.get(path) : undefined;
    if (file === undefined) throw refuse('BP4016', `Unexpected path ${kindOf(path)} at ${at}, expected the path of one of the bundle's files`);
    const out: Record<string, unknown> = { ...record, digest: file.entry.digest };
    for (const key of SOURCE_LISTS) out[key] ??= [];
    if ('template' in record) out['template'] = templateView(record['template'], file, `${at}.template`);
    if ('code' in record && isObject(record['code']) && 'body' in record['code']) {
      out['code'] = { ...record['code'], body: sliceText(record['code']['body'], file, `${at}.code.body`) };
    }
    view[name] = out;
  }
  return view;
}

/** Template segments with each `{slice}` replaced by its text, adjacent texts joined: the segments the compiler expanded. */
function templateView(template: unknown, file: StoredFile, at: string): unknown[] {
  if (!Array.isArray(template)) throw refuse('BP4016', `Unexpected ${kindOf(template)} at ${at}, expected a list of segments`);
  const out: unknown[] = [];
  let text: string | undefined;
  template.forEach((segment: unknown, i) => {
    const piece =
      isObject(segment) && 'slice' in segment
        ? sliceText(segment, file, `${at}[${i}]`)
        : isObject(segment) && typeof segment['text'] === 'string'
          ? segment['text']
          : undefined;
    if (piece === undefined) {
      if (text !== undefined) out.push({ text });
      text = undefined;
      out.push(segment);
    } else {
      text = (text ?? '') + piece;
    }
  });
  if (text !== undefined) out.push({ text });
  return out;
}

/** `{slice: [start, end]}`: the UTF-8 bytes start..end of the source's own file, cut at character boundaries. */
function sliceText(reference: unknown, file: StoredFile, at: string): string {
  const range = isObject(reference) ? reference['slice'] : undefined;
  const size = file.bytes.length;
  const [start, end] = Array.isArray(range) && range.length === 2 ? (range as unknown[]) : [];
  const valid =
    Number.isSafeInteger(start) && Number.isSafeInteger(end) && (start as number) >= 0 && (start as number) <= (end as number) && (end as number) <= size;
  if (!valid) {
    throw refuse(
      'BP4016',
      `Unexpected ${kindOf(reference)} at ${at}, expected {slice: [start, end]} with 0 <= start <= end <= ${size} (the bytes of ${file.entry.path})`,
    );
  }
  for (const edge of [start as number, end as number]) {
    // A continuation byte (10xxxxxx) would cut a character in two.
    if (edge < size && (file.bytes[edge]! & 0xc0) === 0x80) {
      throw refuse('BP4016', `Unexpected slice edge at byte ${edge} of ${file.entry.path} at ${at}, expected the start of a character`);
    }
  }
  return Buffer.from(file.bytes.buffer, file.bytes.byteOffset, size).toString('utf8', start as number, end as number);
}

/**
 * Step 10: each embedded import is a bundle of its own, verified like a file: its `id` is the
 * digest of its canonical content, its format one this loader reads (`berrypack/1` content
 * names none: that version embedded only its own), and its content verified in turn.
 */
function importsView(content: Record<string, unknown>, where: string, depth: number, formatNamed: boolean): unknown[] | undefined {
  if (!('imports' in content)) return undefined;
  const imports = listAt(content, 'imports', where, 'BP4016');
  if (imports.length === 0) return undefined;
  if (depth >= MAX_IMPORT_DEPTH) throw refuse('BP4016', `Unexpected imports nested more than ${MAX_IMPORT_DEPTH} levels at ${where}`);
  return imports.map((item, i) => {
    const entry = objectAt(item, `${where}.imports[${i}]`, '{name, kind, id, format, content}', 'BP4016');
    const at = `${where}.imports[${i}] (import ${typeof entry['name'] === 'string' ? `\`${entry['name']}\`` : kindOf(entry['name'])})`;
    const format = checkFormat(formatNamed ? entry['format'] : 'berrypack/1', `${at}: `);
    const inner = entry['content'];
    if (!isObject(inner)) throw refuse('BP4016', `Unexpected ${kindOf(inner)} as the content of ${at}, expected the imported bundle's content`);
    const id = entry['id'];
    if (!isDigest(id)) throw refuse('BP4007', `Unexpected id ${kindOf(id)} at ${at}, expected sha256- and 64 lowercase hex digits`);
    let canonical: string;
    try {
      canonical = canonicalJson(inner);
    } catch (error) {
      throw refuse('BP4008', `${at}: ${describeError(error)}`);
    }
    const digest = `sha256-${sha256Hex(canonical)}`;
    if (digest !== id)
      throw refuse('BP4009', `Unexpected id ${id} for ${at}, expected ${digest} (its content's digest): the import was changed after it was built`);
    return { ...entry, content: contentView(format, inner, `${where}.imports[${i}].content`, depth + 1) };
  });
}

function listAt(content: Record<string, unknown>, key: string, where: string, code: BundleCode): unknown[] {
  const value = content[key];
  if (!Array.isArray(value)) throw refuse(code, `Unexpected ${kindOf(value)} as ${where}.${key}, expected a list`);
  return value;
}

function objectAt(value: unknown, at: string, expected: string, code: BundleCode): Record<string, unknown> {
  if (!isObject(value)) throw refuse(code, `Unexpected ${kindOf(value)} at ${at}, expected ${expected}`);
  return value;
}

function expectString(entry: Record<string, unknown>, key: string, where: string, code: BundleCode): string {
  const value = entry[key];
  if (typeof value !== 'string') throw refuse(code, `Unexpected ${kindOf(value)} as ${where}.${key}, expected a string`);
  return value;
}

function expectDigestAndSize(entry: Record<string, unknown>, where: string, code: BundleCode): void {
  const digest = entry['digest'];
  if (!isDigest(digest)) throw refuse(code, `Unexpected ${kindOf(digest)} as ${where}.digest, expected sha256- and 64 lowercase hex digits`);
  const size = entry['size'];
  if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) {
    throw refuse(code, `Unexpected ${kindOf(size)} as ${where}.size, expected a byte count`);
  }
}
