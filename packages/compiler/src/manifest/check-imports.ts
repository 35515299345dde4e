import type { Reporter } from '../diagnostics/reporter.js';
import { entry, type YNode } from '../source/yaml-tree.js';
import { checkRelativePath, resolveInside } from './paths.js';
import { checkFields, expectArray, expectName, expectObject, expectText } from './shape.js';
import type { ImportDecl, NameRef } from './types.js';

export const IMPORT_FIELDS = ['name', 'manifest', 'bundle', 'root', 'export'] as const;
export const TARGETS = ['manifest', 'bundle', 'root'] as const;
export const DIGEST = /^sha256-[0-9a-f]{64}$/;

const NO_DOWNLOAD = 'imports never download: name a local `manifest`, `bundle` or retained `root`';
const IMPORT_HINTS: Readonly<Record<string, string>> = {
  path: 'did you mean `manifest` (a plugin.json) or `bundle` (a bundle file)?',
  file: 'did you mean `manifest` (a plugin.json) or `bundle` (a bundle file)?',
  version: 'pin exact content with `root: "sha256-…"`, or import a `bundle` file',
  ...Object.fromEntries(['url', 'uri', 'registry', 'package', 'npm', 'git', 'from'].map((k) => [k, NO_DOWNLOAD])),
  exports: 'an import selects at most one public definition: `export`',
  as: "the import's own name is `name`",
  alias: "the import's own name is `name`",
};

/**
 * MAN-5 shape. Decision: `manifest` names the plugin.json file itself (a path ending in
 * `plugin.json`), not a directory: an import selects an exact manifest, and the check
 * needs no file-system access. Paths may leave the package; they must be relative POSIX.
 */
export function checkImports(r: Reporter, node: YNode, dir: string): ImportDecl[] {
  const list = expectArray(r, node, 'BP2040', '`imports`');
  if (!list) return [];
  const out: ImportDecl[] = [];
  const names = new Map<string, NameRef>();
  for (const itemNode of list.items) {
    const item = expectObject(r, itemNode, 'BP2040', 'an import', 'write `{"name": …, "manifest": "../lib/plugin.json"}`');
    if (!item) continue;
    checkFields(r, item, IMPORT_FIELDS, 'BP2040', 'an import', IMPORT_HINTS);

    const nameEntry = entry(item, 'name');
    let name: string | undefined;
    if (!nameEntry) r.report('BP2040', item, 'Unexpected import without `name`, expected the name that `!ref` and `tools` use for it');
    else name = expectName(r, nameEntry.value, 'BP2040', 'import name');
    if (name !== undefined) {
      const first = names.get(name);
      if (first) {
        r.report('BP2043', nameEntry!.value, `Unexpected second import named \`${name}\`, expected each import name once`, {
          hint: 'rename one of the imports',
          related: [r.locate(first.span, `\`${name}\` is first imported here`)],
        });
        name = undefined;
      } else names.set(name, { name, span: nameEntry!.value.span });
    }

    const given = TARGETS.map((k) => entry(item, k)).filter((e) => e !== undefined);
    if (given.length !== 1) {
      const second = given[1];
      r.report(
        'BP2041',
        second ? second.keySpan : item,
        second
          ? `Unexpected \`${second.key}\` beside \`${given[0]!.key}\`, expected exactly one of \`manifest\`, \`bundle\` and \`root\``
          : 'Unexpected import without `manifest`, `bundle` or `root`, expected exactly one of them',
        {
          hint: second
            ? 'an import selects one thing; write two imports to use both'
            : 'add `"manifest": "../lib/plugin.json"`, `"bundle": "…berry.json"` or `"root": "sha256-…"`',
          related: second ? [r.locate(given[0]!.keySpan, `\`${given[0]!.key}\` is here`)] : undefined,
        },
      );
    }
    const target = given.length === 1 ? checkTarget(r, given[0]!.key as ImportDecl['kind'], given[0]!.value, dir) : undefined;

    const exportEntry = entry(item, 'export');
    const exportName = exportEntry ? expectName(r, exportEntry.value, 'BP2040', 'import export') : undefined;
    if (name === undefined || target === undefined || (exportEntry && exportName === undefined)) continue;
    const decl: ImportDecl = {
      name,
      nameSpan: nameEntry!.value.span,
      kind: given[0]!.key as ImportDecl['kind'],
      target,
      targetSpan: given[0]!.value.span,
      span: item.span,
    };
    if (exportEntry && exportName !== undefined) decl.export = { name: exportName, span: exportEntry.value.span };
    out.push(decl);
  }
  return out;
}

function checkTarget(r: Reporter, kind: ImportDecl['kind'], node: YNode, dir: string): string | undefined {
  const value = expectText(r, node, 'BP2042', `\`${kind}\``);
  if (value === undefined) return undefined;
  if (kind === 'root') {
    if (DIGEST.test(value)) return value;
    r.report('BP2042', node, `Unexpected root \`${value}\`, expected \`sha256-\` followed by 64 lowercase hexadecimal digits`, {
      hint: DIGEST.test(value.toLowerCase()) ? `write it in lowercase: \`${value.toLowerCase()}\`` : 'copy the root of a retained build unchanged',
    });
    return undefined;
  }
  const checked = checkRelativePath(value, `\`${kind}\``, false);
  if (!checked.ok) {
    r.report('BP2042', node, checked.message, { hint: checked.hint });
    return undefined;
  }
  if (kind === 'manifest' && checked.normalized.split('/').pop() !== 'plugin.json') {
    r.report('BP2042', node, `Unexpected manifest path \`${value}\`, expected a path to a \`plugin.json\` file`, {
      hint: checked.normalized.endsWith('.json')
        ? "name the other package's `plugin.json`; to import a bundle file use `bundle`"
        : `write \`${checked.normalized === '.' ? '' : checked.normalized + '/'}plugin.json\``,
    });
    return undefined;
  }
  return resolveInside(dir, checked.normalized);
}
