import path from 'node:path';
import type { Code } from '../diagnostics/codes.js';
import type { CompilerHost } from '../host.js';

export type Resolution = { ok: true; path: string } | { ok: false; code: Code; message: string; hint: string };

export interface ResolveContext {
  host: CompilerHost;
  /** Absolute and realpath'd. */
  packageRoot: string;
  /** Every path probed, for watch mode: creating a missing file must trigger a rebuild. */
  probed: Set<string>;
}

const TYPESCRIPT = new Set(['.ts', '.mts', '.cts', '.tsx', '.jsx']);

/**
 * CODE-4: a specifier resolves, relative to the importing file's directory, to an existing
 * `.js`/`.mjs` file inside the package. Extensions and index files are never guessed
 * (**decision**): the specifier names the file exactly, as a browser or the runtime would
 * load it. The returned path is the lexical one (the name the importer used); its realpath
 * only decides whether a symbolic link leaves the package.
 */
export function resolveSpecifier(specifier: string, importerDir: string, ctx: ResolveContext): Resolution {
  const expected = 'expected a relative path (`./` or `../`) to a `.js` or `.mjs` file inside the package';
  if (path.isAbsolute(specifier) || /^[a-zA-Z]:[\\/]/.test(specifier) || specifier.startsWith('\\')) {
    return fail(
      'BP3032',
      `Unexpected absolute path \`${specifier}\`, ${expected}`,
      'write the path relative to this file, so the package builds the same anywhere',
    );
  }
  const scheme = /^([a-zA-Z][a-zA-Z\d+.-]*):/.exec(specifier)?.[1]?.toLowerCase();
  if (scheme === 'node') {
    return fail(
      'BP3030',
      `Unexpected import of the Node built-in \`${specifier}\`, ${expected}`,
      'Node modules do not exist in portable code; external IO goes through a declared tool',
    );
  }
  if (scheme !== undefined) {
    return fail(
      'BP3031',
      `Unexpected import from the URL \`${short(specifier)}\`, ${expected}`,
      'nothing is downloaded: save the module inside the package and import it with `./`',
    );
  }
  if (!(specifier === '.' || specifier === '..' || specifier.startsWith('./') || specifier.startsWith('../'))) {
    return fail(
      'BP3030',
      `Unexpected import of the package \`${specifier}\`, ${expected}`,
      'npm packages are not captured: copy the code you need into a `.js` file of the package, or call it through a tool',
    );
  }
  const ext = path.posix.extname(specifier);
  if (ext !== '.js' && ext !== '.mjs') {
    return fail('BP3033', `Unexpected \`${specifier}\`, expected the exact name of a \`.js\` or \`.mjs\` file`, extensionHint(specifier, ext));
  }
  const target = path.resolve(importerDir, specifier);
  const rel = path.relative(ctx.packageRoot, target);
  if (!isInside(rel)) {
    return fail(
      'BP3034',
      `Unexpected \`${specifier}\` leaving the package, expected a module inside it`,
      'move the module into the package, or make it a tool',
    );
  }
  ctx.probed.add(target);
  const stat = safe(() => ctx.host.stat(target));
  if (stat?.kind !== 'file') {
    const what = stat?.kind === 'directory' ? 'is a directory' : stat ? 'is not a regular file' : 'does not exist';
    return fail(
      'BP3035',
      `Unexpected \`${specifier}\`: ${toPosix(rel)} ${what}, expected a \`.js\` or \`.mjs\` file`,
      'check the path: it is relative to the importing file',
    );
  }
  const real = safe(() => ctx.host.realpath(target));
  if (real === undefined)
    return fail(
      'BP3035',
      `Unexpected \`${specifier}\`: ${toPosix(rel)} cannot be resolved, expected a \`.js\` or \`.mjs\` file`,
      'check for a broken symbolic link',
    );
  if (real !== target) ctx.probed.add(real);
  if (!isInside(path.relative(ctx.packageRoot, real))) {
    return fail(
      'BP3034',
      `Unexpected \`${specifier}\`: ${toPosix(rel)} is a symbolic link to ${real}, outside the package`,
      'copy the module into the package: symbolic links must not leave it',
    );
  }
  return { ok: true, path: target };
}

export function toPosix(p: string): string {
  return p.split(path.sep).join('/');
}

function isInside(rel: string): boolean {
  return rel !== '' && rel !== '..' && !rel.startsWith('..' + path.sep) && !path.isAbsolute(rel);
}

function extensionHint(specifier: string, ext: string): string {
  if (TYPESCRIPT.has(ext)) return 'supply JavaScript: compile it and import the `.js` file';
  if (ext === '.json') return 'JSON is not a code module: export the data from a `.js` module (`export default {…}`)';
  if (ext === '.cjs') return 'CommonJS is not supported: write an ES module in a `.js` or `.mjs` file';
  if (specifier.endsWith('/') || specifier === '.' || specifier === '..') return 'name the file itself, e.g. `./lib/index.js`: directories are not resolved';
  if (ext === '') return `extensions are not guessed: write the file name exactly, e.g. \`${specifier}.js\``;
  return 'only `.js` and `.mjs` files are code modules';
}

function fail(code: Code, message: string, hint: string): Resolution {
  return { ok: false, code, message, hint };
}

function short(s: string): string {
  return s.length > 80 ? s.slice(0, 79) + '…' : s;
}

/** A host may throw for odd paths (too long, invalid characters); treat that as missing. */
function safe<T>(f: () => T): T | undefined {
  try {
    return f();
  } catch {
    return undefined;
  }
}
