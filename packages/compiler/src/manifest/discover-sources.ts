import { isMethodFile } from '../method/parse-document.js';
import path from 'node:path';
import type { Code } from '../diagnostics/codes.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { LineIndex } from '../diagnostics/line-index.js';
import { Reporter } from '../diagnostics/reporter.js';
import type { CompilerHost } from '../host.js';
import { isInside, isNormalAbsolute } from './paths.js';
import type { DiscoveryResult, ManifestInfo } from './types.js';

export const MAX_DISCOVERY_ENTRIES = 100_000;

interface Found {
  path: string;
  real: string;
  /** Reached through a symbolic link somewhere on its path. */
  linked: boolean;
}

/**
 * MAN-4 discovery: every `.md` file below the sources directory, skipping dot-entries,
 * `node_modules` and subdirectories that hold their own plugin.json. Real directories
 * are walked first and links afterwards, so a link into already-walked territory adds
 * nothing and a loop ends; links must resolve inside the package. The result depends on
 * the tree only, never on readdir order. Documentation `.md` files are returned too: the
 * caller tells them apart by their first line.
 */
export function discoverSources(manifest: ManifestInfo, host: CompilerHost, options: { maxEntries?: number } = {}): DiscoveryResult {
  const maxEntries = options.maxEntries ?? MAX_DISCOVERY_ENTRIES;
  const r = new Reporter(manifest.file, manifest.lines);
  const diagnostics = r.diagnostics;
  const at = manifest.sourcesSpan ?? { start: manifest.tree.span.start, end: manifest.tree.span.start + 1 };
  const shown = path.relative(manifest.dir, manifest.sourcesDir).split(path.sep).join('/') || '.';
  const empty: DiscoveryResult = { sources: [], directories: [], diagnostics };

  let realRoot: string;
  let realSources: string;
  try {
    realRoot = host.realpath(manifest.dir);
    const kind = host.stat(manifest.sourcesDir)?.kind;
    if (kind !== 'directory') {
      r.report(
        'BP2031',
        at,
        `Unexpected ${kind === undefined ? 'missing directory' : 'file'} \`${shown}\` for \`sources\`, expected a directory inside the package`,
        {
          hint:
            kind === undefined
              ? 'create the directory, or correct the path (it is relative to plugin.json)'
              : '`sources` names the directory that holds the `.md` sources',
        },
      );
      return empty;
    }
    realSources = host.realpath(manifest.sourcesDir);
  } catch (error) {
    r.report('BP2031', at, `Unexpected error resolving \`${shown}\` for \`sources\`: ${errorCode(error)}`);
    return empty;
  }
  if (!isInside(realRoot, realSources)) {
    r.report('BP2032', at, `Unexpected \`sources\` \`${shown}\` resolving to ${realSources} outside the package, expected a directory inside it`, {
      hint: 'symbolic links that leave the package are refused; copy the sources in, or import the other package with `imports`',
    });
    return empty;
  }

  const directories: string[] = [];
  const files: Found[] = [];
  const visited = new Set<string>([realSources]);
  let pendingLinks: Found[] = [];
  let entries = 0;
  const stack: Found[] = [{ path: manifest.sourcesDir, real: realSources, linked: false }];

  while (stack.length > 0 || pendingLinks.length > 0) {
    if (stack.length === 0) {
      // Links are followed only after everything reachable without them has been walked.
      const links = pendingLinks.sort(byPath);
      pendingLinks = [];
      for (const link of links) {
        if (visited.has(link.real)) continue;
        visited.add(link.real);
        stack.push(link);
      }
      stack.reverse();
      continue;
    }
    const dir = stack.pop()!;
    let listing;
    try {
      listing = host.readdir(dir.path);
    } catch (error) {
      diagnostics.push(atFile(dir.path, 'BP9001', `Unexpected error listing the directory: ${errorCode(error)}`));
      continue;
    }
    directories.push(dir.path);
    entries += listing.length;
    if (entries > maxEntries) {
      r.report('BP2033', at, `Unexpected more than ${maxEntries} entries below \`${shown}\`, expected a sources directory of a package`, {
        hint: 'point `sources` at the directory of the routines, or move generated and vendored files out of it',
      });
      return { sources: [], directories: directories.sort(), diagnostics };
    }
    const children: Found[] = [];
    const under = childPaths(dir.path);
    const underReal = childPaths(dir.real);
    for (const e of [...listing].sort((a, b) => compare(a.name, b.name))) {
      if (e.name.startsWith('.') || e.name === 'node_modules') continue;
      const full = under(e.name);
      // Method documents found among the sources are compiled into the bundle too.
      const isMd = e.name.endsWith('.md') || isMethodFile(e.name);
      if (e.kind === 'symlink') {
        const target = host.stat(full);
        if (target?.kind !== 'directory' && !isMd) continue;
        let real: string;
        try {
          real = host.realpath(full);
        } catch (error) {
          diagnostics.push(atFile(full, 'BP9001', `Unexpected broken symbolic link: ${errorCode(error)}`));
          continue;
        }
        if (!isInside(realRoot, real)) {
          diagnostics.push(
            atFile(
              full,
              'BP2032',
              `Unexpected symbolic link to ${real} outside the package, expected a link inside the manifest's directory`,
              'copy the file in, or import the other package with `imports`',
            ),
          );
          continue;
        }
        if (target?.kind === 'directory') {
          if (!isNestedPackage(host, full)) pendingLinks.push({ path: full, real, linked: true });
        } else if (target?.kind === 'file') files.push({ path: full, real, linked: true });
        continue;
      }
      const real = underReal(e.name);
      if (e.kind === 'directory') {
        if (visited.has(real) || isNestedPackage(host, full)) continue;
        visited.add(real);
        children.push({ path: full, real, linked: dir.linked });
      } else if (e.kind === 'file' && isMd) files.push({ path: full, real, linked: dir.linked });
    }
    // Reversed so the stack pops them in name order.
    for (let k = children.length - 1; k >= 0; k--) stack.push(children[k]!);
  }

  return { sources: pickSources(files), directories: directories.sort(compare), diagnostics };
}

/** One path per real file: the one without links if any, else the first in order. */
function pickSources(files: Found[]): string[] {
  const byReal = new Map<string, Found>();
  for (const f of inOrder(files, byPath)) {
    const kept = byReal.get(f.real);
    if (!kept || (kept.linked && !f.linked)) byReal.set(f.real, f);
  }
  return inOrder(
    [...byReal.values()].map((f) => f.path),
    compare,
  );
}

/**
 * `path.join(dir, name)` for the entries of one listing. A cold build joins every file of the
 * package here before V8 has optimized `node:path`, where a join costs tens of microseconds
 * (about 15 ms at N = 1,000): a normalized absolute directory and a plain entry name are
 * joined by concatenation, anything else still goes through `path.join`.
 */
function childPaths(dir: string): (name: string) => string {
  const normal = path.sep === '/' && isNormalAbsolute(dir);
  return (name) => (normal && isPlainName(name) ? `${dir}${path.sep}${name}` : path.join(dir, name));
}

/** One path segment that `path.join` would leave as it is. */
function isPlainName(name: string): boolean {
  return name !== '' && name !== '.' && name !== '..' && !name.includes('/') && !name.includes('\\');
}

function isNestedPackage(host: CompilerHost, dir: string): boolean {
  return host.stat(path.join(dir, 'plugin.json'))?.kind === 'file';
}

function atFile(file: string, code: Code, message: string, hint?: string): Diagnostic {
  const r = new Reporter(file, new LineIndex(''));
  return r.report(code, { start: 0, end: 0 }, message, { hint });
}

function errorCode(error: unknown): string {
  return (error as NodeJS.ErrnoException | undefined)?.code ?? String(error);
}

/** Sorted, without sorting what the walk already produced in order (the usual case). */
function inOrder<T>(items: T[], order: (a: T, b: T) => number): T[] {
  for (let i = 1; i < items.length; i++) if (order(items[i - 1]!, items[i]!) > 0) return [...items].sort(order);
  return items;
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const byPath = (a: Found, b: Found): number => compare(a.path, b.path);
