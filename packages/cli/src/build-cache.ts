import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeBundle, type BundleFile, type Diagnostic } from '@berrypack/compiler';
import { sameAnswersOnDisk, type RecordedAnswer } from '@berrypack/compiler/internal-cli';
import { BUNDLE_FORMAT, sha256Hex } from '@berrypack/compiler/bundle';

const RECORD_FORMAT = 'berrypack-build-record/1';

interface BuildRecord {
  format: typeof RECORD_FORMAT;
  key: string;
  answers: RecordedAnswer[];
  id: string;
  fileName: string;
  blobs: string[];
  /** Warnings and notes of the build, printed again when it is served from the cache. */
  diagnostics: Diagnostic[];
}

/**
 * The persistent cache of `berrypack build` (docs/performance.md): for a manifest and options,
 * every file-system answer the last successful build depended on (reads by digest) and its
 * bundle. A later build whose answers are all the same is served from it without compiling.
 * Best effort: any problem with the cache is a miss, never an error.
 */
export class BuildCache {
  readonly #record: string;
  readonly #bundles: string;

  private constructor(
    dir: string,
    readonly key: string,
  ) {
    this.#record = path.join(dir, 'records', `${key}.json`);
    this.#bundles = path.join(dir, 'bundles');
  }

  /** Undefined when the code that builds cannot be identified (then it could change unseen). */
  static open(dir: string, inputs: unknown): BuildCache | undefined {
    const code = codeStamp();
    if (code === undefined) return undefined;
    const key = sha256Hex(JSON.stringify([RECORD_FORMAT, code, inputs]));
    return new BuildCache(dir, key);
  }

  lookup(): { bundle: BundleFile; diagnostics: Diagnostic[] } | undefined {
    const record = this.#read();
    if (record === undefined || !sameAnswersOnDisk(record.answers)) return undefined;
    const bundle = readCachedBundle(this.#bundles, record);
    return bundle === undefined ? undefined : { bundle, diagnostics: record.diagnostics };
  }

  #read(): BuildRecord | undefined {
    try {
      const record = JSON.parse(readFileSync(this.#record, 'utf8')) as BuildRecord;
      if (record.format !== RECORD_FORMAT || record.key !== this.key || !Array.isArray(record.answers) || !Array.isArray(record.blobs)) return undefined;
      return record;
    } catch {
      return undefined;
    }
  }

  store(bundle: BundleFile, answers: RecordedAnswer[], diagnostics: Diagnostic[]): void {
    try {
      // The bundle this key pointed at goes (blobs stay: they are small and shared by content).
      const previous = this.#read();
      if (previous !== undefined && previous.fileName !== bundle.fileName) rmSync(path.join(this.#bundles, path.basename(previous.fileName)), { force: true });
      writeBundle(this.#bundles, bundle, { durable: false });
      const record: BuildRecord = {
        format: RECORD_FORMAT,
        key: this.key,
        answers,
        id: bundle.id,
        fileName: bundle.fileName,
        blobs: [...bundle.blobs.keys()],
        diagnostics,
      };
      mkdirSync(path.dirname(this.#record), { recursive: true });
      const temporary = `${this.#record}.${process.pid}.tmp`;
      writeFileSync(temporary, JSON.stringify(record));
      renameSync(temporary, this.#record);
    } catch {
      // A cache that cannot be written only makes the next build a cold one.
    }
  }
}

/**
 * The cached bundle and its blobs, checked cheaply: the file must be the envelope of its id
 * (its content hashes to it) and each blob must hash to its name. Anything else is a miss.
 */
function readCachedBundle(dir: string, record: BuildRecord): BundleFile | undefined {
  try {
    const bytes = new Uint8Array(readFileSync(path.join(dir, path.basename(record.fileName))));
    // The envelope createBundle writes for this id: its head, a content that hashes to the id,
    // its tail. Not parsed: these are bytes berrypack wrote itself, only a change must be noticed.
    const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const head = '{"content":';
    const tail = `,"format":"${BUNDLE_FORMAT}","id":"${record.id}"}`;
    if (text.subarray(0, head.length).toString('latin1') !== head || text.subarray(text.length - tail.length).toString('latin1') !== tail) return undefined;
    if (`sha256-${sha256Hex(text.subarray(head.length, text.length - tail.length))}` !== record.id) return undefined;
    const blobs = new Map<string, Uint8Array>();
    for (const hex of record.blobs) {
      if (!/^[0-9a-f]{64}$/.test(hex)) return undefined;
      const blob = new Uint8Array(readFileSync(path.join(dir, 'blobs', 'sha256', hex)));
      if (sha256Hex(blob) !== hex) return undefined;
      blobs.set(hex, blob);
    }
    let decoded: string | undefined;
    return {
      id: record.id,
      fileName: record.fileName,
      bytes,
      get text() {
        return (decoded ??= text.toString('utf8'));
      },
      blobs,
    };
  } catch {
    return undefined;
  }
}

/**
 * The identity of the code that builds: the path, size and time of every module of the CLI and
 * the compiler (about 150 stats). Versions alone would not do in a clone, where the code changes
 * under the same version; time stamps alone would not do when installed, where npm sets them
 * all to one date at extraction (the sizes and paths then tell versions apart).
 */
function codeStamp(): string | undefined {
  try {
    const require = createRequire(import.meta.url);
    const dirs = [path.dirname(fileURLToPath(import.meta.url)), path.dirname(require.resolve('@berrypack/compiler'))];
    const stamps: string[] = [];
    for (const dir of dirs) {
      for (const name of readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort()) {
        if (!name.endsWith('.js')) continue;
        const s = statSync(path.join(dir, name));
        stamps.push(`${name}:${s.size}:${s.mtimeMs}`);
      }
    }
    return sha256Hex(stamps.join('\n'));
  } catch {
    return undefined;
  }
}
