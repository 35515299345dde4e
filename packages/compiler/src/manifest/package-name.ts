export const PACKAGE_NAME = /^[a-z0-9-]+(?:\.[a-z0-9-]+)*$/;
export const MAX_PACKAGE_NAME = 128;

/**
 * NAME-4: lowercase ASCII letters, digits, `-` and `.`. Decisions: nonempty, at most 128
 * characters (as NAME-1), and no empty `.` segment (the name becomes part of the bundle's
 * file name, `<name>.<id>.berry.json`).
 */
export function checkPackageName(name: string): { message: string; hint?: string | undefined } | undefined {
  if (name === '') return { message: 'Unexpected empty `name`, expected a package name such as `example.notebook`' };
  const length = [...name].length;
  if (length > MAX_PACKAGE_NAME) return { message: `Unexpected \`name\` of ${length} characters, expected at most ${MAX_PACKAGE_NAME}` };
  if (PACKAGE_NAME.test(name)) return undefined;
  const bad = [...name].find((c) => !/[a-z0-9.-]/.test(c));
  if (bad === undefined) {
    return {
      message: `Unexpected empty segment in \`name\` \`${name}\`, expected segments separated by single dots`,
      hint: 'remove the leading, trailing or doubled `.`',
    };
  }
  const suggestion = name
    .toLowerCase()
    .replace(/[_\s/@]+/g, '-')
    .replace(/^-+|-+$/g, '');
  const fix = suggestion !== name && PACKAGE_NAME.test(suggestion) ? `; for example \`${suggestion}\`` : '';
  const shown = /\s/.test(bad) ? 'whitespace' : `\`${bad}\``;
  const hint = /[A-Z]/.test(bad)
    ? `package names are lowercase${fix}`
    : bad === '_'
      ? `use \`-\` instead of \`_\`${fix}`
      : bad === '@' || bad === '/'
        ? `plugin names have no npm scope; use a dotted prefix such as \`example.notebook\`${fix}`
        : `use lowercase letters, digits, \`-\` and \`.\` only${fix}`;
  return { message: `Unexpected ${shown} in \`name\` \`${name}\`, expected lowercase letters, digits, \`-\` or \`.\``, hint };
}
