import { BundleLoadError } from '../errors.js';
import { isPlainObject } from '../json.js';
import type { PackageContent } from './content.js';

/**
 * The runtime's half of BND-4, after the loader's (which verified every embedded import as a
 * bundle of its own, in whichever format it was stored): every source names a captured file
 * with the same digest, a code body is the tail of that file, and every module a code routine
 * can reach is a captured file, in the bundle and in each import. A hand-made bundle whose id
 * was recomputed after editing a body is refused here, before anything runs.
 */
export function checkPackage(content: PackageContent, where: string, depth = 0): void {
  if (depth > 32) throw refuse('BP4004', `${where}: imports nested more than 32 levels`);
  for (const key of ['sources', 'agents', 'modules', 'requirements'] as const) {
    if (!isPlainObject(content[key])) throw refuse('BP4004', `Unexpected ${where} without \`content.${key}\`, expected a bundle built by berrypack`);
  }
  for (const key of ['files', 'exports', 'imports'] as const) {
    if (!Array.isArray(content[key])) throw refuse('BP4004', `Unexpected ${where} without a \`content.${key}\` list, expected a bundle built by berrypack`);
  }
  const files = new Map(content.files.map((f) => [f.path, f]));
  for (const [name, source] of Object.entries(content.sources)) {
    if (!isPlainObject(source)) throw refuse('BP4004', `Unexpected source \`${name}\` in ${where}, expected an object`);
    const file = files.get(source.path);
    if (file === undefined) throw refuse('BP4012', `Missing file ${JSON.stringify(source.path)} of source \`${name}\` in ${where}`);
    if (file.digest !== source.digest) {
      throw refuse(
        'BP4012',
        `Unexpected digest ${source.digest} for source \`${name}\` in ${where}, expected ${file.digest} (its file's): the source was changed after it was built`,
      );
    }
    if (source.code !== undefined) {
      if (typeof source.code.body !== 'string' || !file.text.endsWith(source.code.body)) {
        throw refuse(
          'BP4012',
          `Unexpected code body for \`${name}\` in ${where}, expected the body of ${source.path}: the code was changed after it was built`,
        );
      }
      for (const module of source.code.imports ?? []) {
        if (!files.has(module)) throw refuse('BP4012', `Missing module ${JSON.stringify(module)} imported by \`${name}\` in ${where}`);
      }
    }
  }
  for (const [module, entry] of Object.entries(content.modules)) {
    if (!files.has(module)) throw refuse('BP4012', `Missing module ${JSON.stringify(module)} in ${where}`);
    for (const dependency of entry.imports ?? []) {
      if (!files.has(dependency)) throw refuse('BP4012', `Missing module ${JSON.stringify(dependency)} imported by ${module} in ${where}`);
    }
  }
  for (const entry of content.imports) {
    const inner = `import \`${entry.name}\` of ${where}`;
    if (!isPlainObject(entry) || !isPlainObject(entry.content)) throw refuse('BP4004', `Unexpected ${inner}, expected an embedded bundle content`);
    checkPackage(entry.content, inner, depth + 1);
  }
}

function refuse(code: string, message: string): BundleLoadError {
  return new BundleLoadError(code, 'BND-4', message);
}
