import { readManifest, type ReadManifestResult } from '../../manifest/index.js';
import { Sweeper } from './sweeper.js';

/**
 * Each plugin.json read, reused while the read cache hands back the very bytes object it was
 * read from (an unchanged file) for the same expected version: a rebuild does not parse the
 * manifest again, and later caches see the same manifest object.
 */
export class ManifestCache {
  readonly #entries = new Map<string, { bytes: Uint8Array; version: string | undefined; result: ReadManifestResult }>();
  readonly #live = new Sweeper();

  read(file: string, bytes: Uint8Array, options: { version?: string } = {}): ReadManifestResult {
    this.#live.use(file);
    const known = this.#entries.get(file);
    if (known !== undefined && known.bytes === bytes && known.version === options.version) return withCopies(known.result);
    const result = readManifest(file, bytes, options);
    this.#entries.set(file, { bytes, version: options.version, result: withCopies(result) });
    return result;
  }

  sweep(root: string): void {
    this.#live.sweep(root, this.#entries);
  }
}

/** Copies of the diagnostics: a caller may rewrite one (relative paths). */
function withCopies(result: ReadManifestResult): ReadManifestResult {
  return { ...result, diagnostics: result.diagnostics.map((d) => ({ ...d })) };
}
