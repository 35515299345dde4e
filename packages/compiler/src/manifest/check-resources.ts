import type { Reporter } from '../diagnostics/reporter.js';
import { entry, type YNode } from '../source/yaml-tree.js';
import { checkRelativePath, resolveInside } from './paths.js';
import { checkFields, expectArray, expectObject, expectText } from './shape.js';
import type { ResourceDecl } from './types.js';

export const RESOURCE_FIELDS = ['uri', 'mimeType', 'path'] as const;
const TOKEN = '[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}';
/** RFC 6838 `type/subtype`, optionally with `; name=value` parameters (e.g. a charset). */
export const MEDIA_TYPE = new RegExp(`^${TOKEN}/${TOKEN}(?:\\s*;\\s*${TOKEN}=(?:${TOKEN}|"[^"\\\\]*"))*$`);

const RESOURCE_HINTS: Readonly<Record<string, string>> = {
  mimetype: 'write `mimeType` in camel case',
  mediatype: 'the field is `mimeType`',
  contenttype: 'the field is `mimeType`',
  type: 'the field is `mimeType`',
  file: 'the field is `path`',
  src: 'the field is `path`',
  url: 'the field is `uri`; it labels the resource and is never fetched',
  name: 'a resource is identified by its `uri`',
  digest: "the digest is computed from the file's bytes at build time",
  sha256: "the digest is computed from the file's bytes at build time",
};

/**
 * MAN-6 shape: `{uri, mimeType, path}` records with distinct uris and lexically inside
 * paths. Existence and symbolic links are checked when the bytes are captured.
 */
export function checkResources(r: Reporter, node: YNode, dir: string): ResourceDecl[] {
  const list = expectArray(r, node, 'BP2050', '`resources`');
  if (!list) return [];
  const out: ResourceDecl[] = [];
  const uris = new Map<string, YNode>();
  for (const itemNode of list.items) {
    const item = expectObject(r, itemNode, 'BP2050', 'a resource', 'write `{"uri": …, "mimeType": …, "path": …}`');
    if (!item) continue;
    checkFields(r, item, RESOURCE_FIELDS, 'BP2050', 'a resource', RESOURCE_HINTS);
    const need = (key: string): YNode | undefined => {
      const e = entry(item, key);
      if (!e) r.report('BP2050', item, `Unexpected resource without \`${key}\`, expected \`uri\`, \`mimeType\` and \`path\``);
      return e?.value;
    };
    const uriNode = need('uri');
    const mimeNode = need('mimeType');
    const pathNode = need('path');

    let uri = uriNode && expectText(r, uriNode, 'BP2050', 'the resource `uri`');
    if (uri !== undefined && uriNode) {
      const first = uris.get(uri);
      if (first) {
        r.report('BP2053', uriNode, `Unexpected second resource with uri \`${uri}\`, expected each uri once`, {
          hint: 'give each resource its own uri; two files cannot share one identity',
          related: [r.locate(first, `\`${uri}\` is first declared here`)],
        });
        uri = undefined;
      } else uris.set(uri, uriNode);
    }

    let mimeType = mimeNode && expectText(r, mimeNode, 'BP2050', 'the resource `mimeType`');
    if (mimeType !== undefined && mimeNode && !MEDIA_TYPE.test(mimeType)) {
      r.report('BP2050', mimeNode, `Unexpected media type \`${mimeType}\`, expected \`type/subtype\` such as \`text/html\``, {
        hint: mimeType.includes('/')
          ? 'remove spaces and characters a media type cannot hold'
          : 'write the full media type, e.g. `image/png` rather than `png`',
      });
      mimeType = undefined;
    }

    let relPath: string | undefined;
    const pathText = pathNode && expectText(r, pathNode, 'BP2051', 'the resource `path`');
    if (pathText !== undefined && pathNode) {
      const checked = checkRelativePath(pathText, 'the resource `path`', true);
      if (!checked.ok) r.report('BP2051', pathNode, checked.message, { hint: checked.hint });
      else relPath = checked.normalized;
    }
    if (uri === undefined || mimeType === undefined || relPath === undefined || !pathNode) continue;
    out.push({ uri, mimeType, path: resolveInside(dir, relPath), relPath, span: item.span, pathSpan: pathNode.span });
  }
  return out;
}
