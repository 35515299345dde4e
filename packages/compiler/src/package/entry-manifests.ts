import { readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { nodeHost } from '../host.js';
import { manifestForImport } from './importer-module.js';

/** Extensions a bundler tries for an entry named without one. */
const EXTENSIONS = ['', '.js', '.mjs', '.cjs', '.ts', '.mts', '.cts', '.jsx', '.tsx'];
/** An entry larger than this is not read for a guess. */
const MAX_ENTRY_BYTES = 1 << 20;
/** A relative or absolute specifier of a plugin.json or a `.md`, in quotes (with our suffix or not). */
const IMPORTED = /["'`]((?:\.{1,2}[\\/]|\/|[A-Za-z]:[\\/])[^"'`\n]*?(?:plugin\.json|\.md))(?:\?berrypack)?["'`]/g;

/**
 * The Berry manifests a build of `entries` (absolute paths, as the host's options name them)
 * probably compiles: an entry that is itself a plugin.json or `.md`, and the plugin.json and
 * `.md` files an entry names by a relative or absolute path in a string. A guess from the
 * entries' text alone, for starting a compile early (BuildSlot.speculate): a wrong one costs a
 * compile on the other thread, never a result. `claims`: whether the adapter would take a file
 * (its include/exclude filter, a Berry package). Real paths, as the hosts' resolvers give them.
 */
export function manifestsImportedBy(entries: readonly string[], claims: (file: string) => boolean): string[] {
  const manifests = new Set<string>();
  const consider = (file: string) => {
    const real = realFile(file);
    if (real === undefined || !claims(real)) return;
    const manifest = manifestForImport(real, nodeHost);
    if (manifest !== undefined) manifests.add(manifest);
  };
  for (const entry of entries) {
    const file = entryFile(entry);
    if (file === undefined) continue;
    if (/(?:^|[\\/])plugin\.json$|\.md$/.test(file)) {
      consider(file);
      continue;
    }
    let text: string;
    try {
      if (statSync(file).size > MAX_ENTRY_BYTES) continue;
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const match of text.matchAll(IMPORTED)) consider(path.resolve(path.dirname(file), match[1]!));
  }
  return [...manifests];
}

/** `entry` or the first of it with an extension a bundler tries, if it is a file. */
function entryFile(entry: string): string | undefined {
  for (const extension of EXTENSIONS) {
    const file = realFile(entry + extension);
    if (file !== undefined) return file;
  }
  return undefined;
}

function realFile(file: string): string | undefined {
  try {
    return statSync(file).isFile() ? realpathSync.native(file) : undefined;
  } catch {
    return undefined;
  }
}
