import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadBundleFile, readBundle, type BundleFormat, type ReadBundleResult } from '@berrypack/compiler/bundle';
import { BundleLoadError } from '../errors.js';
import { deepFreeze } from '../json.js';
import type { PackageContent } from './content.js';
import { checkPackage } from './check-package.js';

/** A verified bundle (BND-4): frozen, and nothing in it ran while it was verified. */
export interface Bundle {
  readonly id: string;
  /** The format the file was stored in; `content` reads the same whichever it is. */
  readonly format: BundleFormat;
  readonly content: Readonly<PackageContent>;
  /** Verified resource blobs by the hex of their digest (empty when none were given or found). */
  readonly blobs: ReadonlyMap<string, Uint8Array>;
}

export interface LoadBundleOptions {
  /** The id the caller already knows (an importer's module embeds it); any other bundle is refused. */
  expectedId?: string;
  /**
   * Resource blobs for a bundle given as bytes (by the hex of their digest). Given, every
   * resource is verified now; for a path or `file:` URL they are read from `blobs/sha256/` beside it.
   */
  blobs?: ReadonlyMap<string, Uint8Array> | ((hex: string) => Uint8Array | undefined);
}

/**
 * Loads and verifies a bundle from its bytes, a path or a `file:` URL (BND-4): the id is
 * recomputed from `content`, compared with the envelope's (and `expectedId`), every inline
 * file, every embedded import and every resource blob that is available is checked against
 * its digest, and every source is tied to the file it was compiled from, before anything is
 * used. Bytes need no filesystem; nothing is ever downloaded.
 *
 * @throws BundleLoadError with the loader's `BP40xx` code, rule and a message naming the mismatch.
 */
export async function loadBundle(source: Uint8Array | string | URL, options: LoadBundleOptions = {}): Promise<Bundle> {
  const read = await readSource(source, options);
  if (!read.ok) throw new BundleLoadError(read.error.code, read.error.rule, read.error.message);
  const content = read.bundle.content as unknown as PackageContent;
  checkPackage(content, 'the bundle');
  return deepFreeze({ id: read.bundle.id, format: read.bundle.format, content, blobs: read.blobs });
}

async function readSource(source: Uint8Array | string | URL, options: LoadBundleOptions): Promise<ReadBundleResult> {
  const expectedId = options.expectedId;
  if (source instanceof Uint8Array) {
    const blobs = options.blobs;
    const readBlob = blobs === undefined ? undefined : typeof blobs === 'function' ? blobs : (hex: string) => blobs.get(hex);
    return readBundle(source, { expectedId, readBlob });
  }
  let file: string;
  if (source instanceof URL || (typeof source === 'string' && /^[a-z][a-z0-9+.-]+:\/\//i.test(source))) {
    const url = source instanceof URL ? source : new URL(source);
    if (url.protocol !== 'file:') {
      throw new BundleLoadError(
        'BP4001',
        'BND-4',
        `Unexpected ${url.protocol} URL ${url.href}, expected bytes, a path or a file: URL (berrypack never downloads a bundle)`,
      );
    }
    file = fileURLToPath(url);
  } else if (typeof source === 'string') {
    file = path.resolve(source);
  } else {
    throw new BundleLoadError('BP4002', 'BND-4', `Unexpected ${typeof source}, expected the bundle's bytes (a Uint8Array), a path or a file: URL`);
  }
  if (options.blobs !== undefined) {
    // Blobs were handed over explicitly: read the file, but verify against them.
    let bytes: Uint8Array;
    try {
      bytes = await readFile(file);
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? String(error);
      throw new BundleLoadError('BP4001', 'BND-4', `Unexpected ${reason} reading ${file}, expected a readable bundle file`);
    }
    return readSource(bytes, options);
  }
  return loadBundleFile(file, { expectedId });
}
