import path from 'node:path';
import { isNormalAbsolute } from '../../manifest/paths.js';

/** POSIX path of `file` relative to `dir`: what bundles record, on every platform. */
export function relativePosix(dir: string, file: string): string {
  // A cold build asks this once or twice per file, mostly before V8 has optimized node:path,
  // where `path.relative` costs tens of microseconds a call (about 40 ms at N = 1,000): a
  // normalized file below a normalized directory is answered by cutting the prefix.
  if (path.sep === '/' && file.length > dir.length + 1 && file.charCodeAt(dir.length) === 0x2f && file.startsWith(dir)) {
    const rest = file.slice(dir.length + 1);
    if (isNormalAbsolute(dir) && isNormalRelative(rest)) return rest;
  }
  return path.relative(dir, file).split(path.sep).join('/');
}

function isNormalRelative(p: string): boolean {
  return p.charCodeAt(0) !== 0x2e && p.charCodeAt(0) !== 0x2f && !p.endsWith('/') && !p.includes('//') && !p.includes('/.');
}
