export const NAME_RE = /^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*$/;

export type NameProblem = { rule: 'NAME-1' | 'NAME-2'; message: string; hint?: string };

/** NAME-1, NAME-2. Lengths count Unicode code points (catalogue decision). */
export function checkName(name: string): NameProblem | undefined {
  const length = [...name].length;
  if (length < 1 || length > 128) {
    return { rule: 'NAME-1', message: `Unexpected name of ${length} characters, expected 1 to 128` };
  }
  if (!NAME_RE.test(name)) {
    const bad = [...name].find((c) => !/[A-Za-z0-9_.-]/.test(c));
    return bad !== undefined
      ? { rule: 'NAME-1', message: `Unexpected character \`${bad}\` in name \`${name}\`, expected ASCII letters, digits, \`_\`, \`.\` or \`-\`` }
      : {
          rule: 'NAME-1',
          message: `Unexpected empty segment in name \`${name}\`, expected segments separated by single dots`,
          hint: 'remove the leading, trailing or doubled `.`',
        };
  }
  if (name.startsWith('env.') || name === 'env') {
    return name === 'env' ? undefined : { rule: 'NAME-2', message: `Unexpected name \`${name}\`: names beginning \`env.\` are reserved` };
  }
  return undefined;
}

/** NAME-3: everything before the last `.`; the root namespace is ''. */
export function namespaceOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot === -1 ? '' : name.slice(0, dot);
}

export function finalSegment(name: string): string {
  return name.slice(name.lastIndexOf('.') + 1);
}
