import path from 'node:path';

/** True when `target` is `root` or below it (both resolved; no file-system access). */
export function isInside(root: string, target: string): boolean {
  const rel = path.relative(path.resolve(root), path.resolve(target));
  return rel === '' || !(rel === '..' || rel.startsWith('..' + path.sep) || path.isAbsolute(rel));
}

/** A POSIX absolute path with no empty, `.` or `..` segment (nor a dot-name, left to `node:path`) and no trailing `/`. */
export function isNormalAbsolute(p: string): boolean {
  return p.length > 1 && p.charCodeAt(0) === 0x2f && !p.endsWith('/') && !p.includes('//') && !p.includes('/.');
}

export type RelativePath = { ok: true; normalized: string } | { ok: false; message: string; hint?: string | undefined };

/**
 * A path written in plugin.json: relative, POSIX separators, and (when `inside`) not
 * leaving the manifest directory. `normalized` has no `./`, no trailing `/`, and is `.`
 * for the directory itself.
 */
export function checkRelativePath(value: string, what: string, inside: boolean): RelativePath {
  if (value === '') return { ok: false, message: `Unexpected empty path for ${what}, expected a path relative to the manifest` };
  if (value.includes('\0')) return { ok: false, message: `Unexpected NUL character in ${what}, expected a file path` };
  if (value.includes('\\')) {
    return {
      ok: false,
      message: `Unexpected \`\\\` in ${what} \`${value}\`, expected \`/\` as the separator`,
      hint: `write \`${value.replace(/\\/g, '/')}\`; paths in plugin.json use \`/\` on every system`,
    };
  }
  if (/^[A-Za-z]:/.test(value) || value.startsWith('/')) {
    return {
      ok: false,
      message: `Unexpected absolute path \`${value}\` for ${what}, expected a path relative to the manifest`,
      hint: 'write the path relative to the directory of plugin.json, so the package builds anywhere',
    };
  }
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(value)) {
    return {
      ok: false,
      message: `Unexpected URL \`${value}\` for ${what}, expected a path relative to the manifest`,
      hint: 'nothing is downloaded; name a file in the package',
    };
  }
  const normalized = path.posix.normalize(value).replace(/\/+$/, '') || '.';
  if (inside && (normalized === '..' || normalized.startsWith('../'))) {
    return {
      ok: false,
      message: `Unexpected path \`${value}\` leaving the package for ${what}, expected a path inside the manifest's directory`,
      hint: 'sources and resources stay inside the package; import another package with `imports`',
    };
  }
  return { ok: true, normalized };
}

/** `relative` (POSIX) below `dir`, as a native absolute path. */
export function resolveInside(dir: string, relative: string): string {
  return relative === '.' ? dir : path.join(dir, ...relative.split('/'));
}
