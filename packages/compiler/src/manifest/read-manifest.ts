import path from 'node:path';
import { digestOf } from '../bundle/digest.js';
import { LineIndex } from '../diagnostics/line-index.js';
import { Reporter } from '../diagnostics/reporter.js';
import { decodeSourceText, reportUndecodable } from '../source/normalize-text.js';
import { entry, type YMap } from '../source/yaml-tree.js';
import { checkExtension, EXTENSION_FIELDS, type ExtensionDecls } from './check-extension.js';
import { jsonValue } from '../json/json-value.js';
import { parseJsonWithPositions } from '../json/parse-json.js';
import { checkPackageName } from './package-name.js';
import { describeJsonNode, expectObject } from './shape.js';
import { BERRY_EXTENSION, PLUGIN_SCHEMA, type ManifestInfo, type ReadManifestResult } from './types.js';

/**
 * Reads one plugin.json: strict JSON (SRC-2 duplicates), MAN-1 metadata, MAN-8 version
 * and the shape of the Berry extension (MAN-2..7). File-system facts (the sources
 * directory, resource files) are checked by discovery and capture, which take a host.
 * Returns no manifest only when there is no JSON object to read.
 */
export function readManifest(file: string, bytes: Uint8Array, options: { version?: string } = {}): ReadManifestResult {
  const abs = path.resolve(file);
  const dir = path.dirname(abs);
  const decoded = decodeSourceText(bytes);
  if (!decoded.ok) {
    const r = reportUndecodable(abs, bytes, decoded, 'BP2002', { tooLarge: 'plugin.json is a small JSON file', invalid: 'save plugin.json as UTF-8' });
    return { manifest: undefined, diagnostics: r.diagnostics };
  }
  const text = decoded.text;
  const lines = new LineIndex(text);
  const r = new Reporter(abs, lines);
  const digest = digestOf(bytes);
  if (options.version !== undefined && options.version !== digest) {
    r.report('BP2080', { start: 0, end: 0 }, `Unexpected plugin.json version ${digest}, expected ${options.version}`, {
      hint: /^sha256-[0-9a-f]{64}$/.test(options.version)
        ? 'the file changed since that version was taken; build the current file by omitting `version`, or pass its new version'
        : 'a version is `sha256-` followed by the 64 hexadecimal digits of the sha256 of the plugin.json bytes',
    });
  }
  const tree = parseJsonWithPositions(text, r);
  if (!tree) return { manifest: undefined, diagnostics: r.diagnostics };
  if (tree.kind !== 'map') {
    r.report('BP2003', tree, `Unexpected ${describeJsonNode(tree)} in plugin.json, expected a JSON object`, {
      hint: `start from \`{"$schema": "${PLUGIN_SCHEMA}", "name": …, "version": "1"}\``,
    });
    return { manifest: undefined, diagnostics: r.diagnostics };
  }

  checkSchema(r, tree);
  const name = checkNameField(r, tree);
  const version = checkVersionField(r, tree);

  let isBerry = false;
  let decls: ExtensionDecls | undefined;
  const extensions = entry(tree, 'extensions');
  const extensionsMap = extensions && expectObject(r, extensions.value, 'BP2010', '`extensions`');
  const berry = extensionsMap && entry(extensionsMap, BERRY_EXTENSION);
  if (berry) {
    isBerry = true;
    const ext = expectObject(r, berry.value, 'BP2010', `\`extensions["${BERRY_EXTENSION}"]\``);
    if (ext) decls = checkExtension(r, ext, dir);
    for (const e of tree.entries) {
      if (!(EXTENSION_FIELDS as readonly string[]).includes(e.key)) continue;
      r.report(
        'BP2013',
        e.keySpan,
        `Unexpected Berry field \`${e.key}\` at the top level of plugin.json, expected it inside \`extensions["${BERRY_EXTENSION}"]\``,
        {
          hint: 'the top level holds standard metadata only; move the field into the Berry extension',
        },
      );
    }
  }

  const metadata: Record<string, unknown> = {};
  for (const e of tree.entries) {
    if (e.key !== 'extensions') Object.defineProperty(metadata, e.key, { value: jsonValue(e.value), enumerable: true, writable: true, configurable: true });
  }
  const manifest: ManifestInfo = {
    file: abs,
    dir,
    text,
    lines,
    tree,
    digest,
    isBerry,
    name,
    version,
    sourcesDir: decls?.sourcesDir ?? dir,
    sourcesSpan: decls?.sourcesSpan,
    agents: decls?.agents ?? [],
    exports: decls?.exports ?? [],
    imports: decls?.imports ?? [],
    resources: decls?.resources ?? [],
    requires: decls?.requires ?? [],
    interfaces: decls?.interfaces ?? [],
    runtime: decls?.runtime,
    metadata,
  };
  return { manifest, diagnostics: r.diagnostics };
}

/** The top-level object's opening brace: where a missing field is reported. */
const opening = (tree: YMap) => ({ start: tree.span.start, end: tree.span.start + 1 });

function checkSchema(r: Reporter, tree: YMap): void {
  const e = entry(tree, '$schema');
  if (!e) {
    r.report('BP2004', opening(tree), 'Unexpected plugin.json without `$schema`, expected the Agent Plugins 1.0.0 schema', {
      hint: `add \`"$schema": "${PLUGIN_SCHEMA}"\``,
    });
    return;
  }
  const value = e.value.kind === 'scalar' ? e.value.value : undefined;
  if (value === PLUGIN_SCHEMA) return;
  const shown = typeof value === 'string' ? `\`${value}\`` : describeJsonNode(e.value);
  r.report('BP2004', e.value, `Unexpected \`$schema\` ${shown}, expected \`${PLUGIN_SCHEMA}\``, {
    hint:
      typeof value === 'string' && /agent-plugins\.org\/schemas\//.test(value)
        ? 'berrypack reads Agent Plugins 1.0.0 manifests; use exactly that schema URL'
        : `write \`"$schema": "${PLUGIN_SCHEMA}"\``,
  });
}

function checkNameField(r: Reporter, tree: YMap): string | undefined {
  const e = entry(tree, 'name');
  if (!e) {
    r.report('BP2005', opening(tree), 'Unexpected plugin.json without `name`, expected the package name', { hint: 'add `"name": "example.notebook"`' });
    return undefined;
  }
  if (e.value.kind !== 'scalar' || typeof e.value.value !== 'string') {
    r.report('BP2005', e.value, `Unexpected ${describeJsonNode(e.value)} for \`name\`, expected a string`);
    return undefined;
  }
  const problem = checkPackageName(e.value.value);
  if (!problem) return e.value.value;
  r.report('BP2006', e.value, problem.message, { hint: problem.hint });
  return undefined;
}

function checkVersionField(r: Reporter, tree: YMap): string | undefined {
  const e = entry(tree, 'version');
  if (!e) {
    r.report('BP2007', opening(tree), 'Unexpected plugin.json without `version`, expected `"version": "1"`', { hint: 'add `"version": "1"`' });
    return undefined;
  }
  const value = e.value.kind === 'scalar' ? e.value.value : undefined;
  if (value === '1') return value;
  r.report(
    'BP2007',
    e.value,
    `Unexpected ${typeof value === 'string' ? `\`"${value}"\`` : describeJsonNode(e.value)} for \`version\`, expected the string \`"1"\``,
    {
      hint:
        typeof value === 'number' && value === 1 ? 'quote it: `"version": "1"`' : 'the manifest format version is `"1"`; a release number does not belong here',
    },
  );
  return undefined;
}
