import path from 'node:path';

/** A glob, a RegExp, or a list of them; the same shape `@rollup/pluginutils` accepts. */
export type FilterPattern = ReadonlyArray<string | RegExp> | string | RegExp | null;

/**
 * `include`/`exclude` matching with the semantics of `@rollup/pluginutils`' `createFilter`
 * (exclude first; an empty include accepts; relative globs resolve against `cwd`; `*` also
 * matches dot files), without adding a dependency to this package.
 */
export function createFilter(include: FilterPattern | undefined, exclude: FilterPattern | undefined, cwd: string): (file: string) => boolean {
  const includes = toMatchers(include, cwd);
  const excludes = toMatchers(exclude, cwd);
  return (file) => {
    const id = file.split(path.sep).join('/');
    if (excludes.some((m) => m(id))) return false;
    return includes.length === 0 || includes.some((m) => m(id));
  };
}

function toMatchers(pattern: FilterPattern | undefined, cwd: string): ((id: string) => boolean)[] {
  if (pattern === undefined || pattern === null) return [];
  const list = typeof pattern === 'string' || pattern instanceof RegExp ? [pattern] : pattern;
  return list.map((p) => {
    if (p instanceof RegExp) {
      return (id: string) => {
        // A global or sticky RegExp keeps state between calls.
        p.lastIndex = 0;
        return p.test(id);
      };
    }
    const re = globToRegExp(resolveGlob(p, cwd));
    return (id: string) => re.test(id);
  });
}

function resolveGlob(glob: string, cwd: string): string {
  if (glob.startsWith('**') || path.isAbsolute(glob)) return glob.split(path.sep).join('/');
  return path.posix.join(cwd.split(path.sep).join('/'), glob);
}

/** `**`, `*`, `?` and `{a,b}`; everything else is literal. */
function globToRegExp(glob: string): RegExp {
  let out = '';
  let braces = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*' && glob[i + 1] === '*') {
      const slash = glob[i + 2] === '/';
      out += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else if (c === '{') {
      braces++;
      out += '(?:';
    } else if (c === '}' && braces > 0) {
      braces--;
      out += ')';
    } else if (c === ',' && braces > 0) out += '|';
    else out += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}
