import type { Reporter, Span } from '../diagnostics/reporter.js';
import { parseJson } from '../json/parse-json.js';
import { describeNode, entry, toJson, type YMap, type YNode, type YScalar } from '../source/yaml-tree.js';
import { findReferences } from './find-references.js';
import { locateInScalar } from './locate-in-scalar.js';
import { refusedByParser } from './refused-by-parser.js';

/**
 * SCH-2: the independent-document form `{document: JSON-text, type?}`. The document is
 * checked for what the wrapper promises (JSON, an object schema, the same root `type`,
 * references that stay inside); validating it against the JSON Schema meta-schema is
 * left to the runtime's validator.
 */
export function checkDocumentSchema(r: Reporter, map: YMap, where: string): void {
  for (const e of map.entries) {
    if (e.key === 'document' || e.key === 'type') continue;
    r.report('BP1221', e.keySpan, `Unexpected \`${e.key}\` beside \`document\` in \`${where}\`, expected only \`document\` and \`type\``, {
      hint: `an independent document carries all of its constraints: move \`${e.key}\` into the JSON document, or drop \`document\` and write native keywords`,
    });
  }
  const documentEntry = entry(map, 'document')!;
  const documentNode = documentEntry.value;
  const wrapperType = entry(map, 'type')?.value;
  const wrapperValid = checkWrapperType(r, wrapperType, where);
  const at = `\`${where}.document\``;

  if (refusedByParser(r, documentNode)) return;
  if (documentNode.kind !== 'scalar' || documentNode.ref || typeof documentNode.value !== 'string') {
    r.report('BP1201', documentNode, `Unexpected ${describeNode(documentNode)} for ${at}, expected JSON text (a string)`, {
      hint:
        documentNode.kind === 'map'
          ? 'write the JSON Schema as JSON text after `document: |`, or drop `document:` and write native keywords directly'
          : 'write the JSON Schema document as JSON text after `document: |`',
    });
    return;
  }
  const doc = documentNode as YScalar & { value: string };
  const parsed = parseJson(doc.value, 'the JSON text');
  const inDocument = (message: string): string =>
    message.includes(', expected') ? message.replace(', expected', ` in the JSON of ${at}, expected`) : `${message} in the JSON of ${at}`;
  const verbatimHint = doc.style === 'plain' || doc.style === 'folded' ? 'write the JSON after `document: |` so YAML keeps it verbatim' : undefined;
  // A schema read twice would be read by one validator with the first value, by another with
  // the last: refused like duplicates everywhere else (SRC-2), but as the document's fault.
  for (const d of parsed.duplicates) {
    r.report('BP1201', locateInScalar(r.lines, doc, d.keySpan.start) ?? doc, inDocument(`Unexpected duplicate key \`${d.key}\`, expected each key once`), {
      hint: 'a JSON object names each key once; keep one of them',
    });
  }
  const error = parsed.error;
  if (error !== undefined) {
    r.report('BP1201', locateInScalar(r.lines, doc, error.offset) ?? doc, inDocument(error.message), { hint: verbatimHint ?? error.hint });
    return;
  }
  if (parsed.duplicates.length > 0) return;
  let root: unknown;
  try {
    root = JSON.parse(doc.value);
  } catch {
    // The scanner accepted the text; JSON.parse disagreeing would be an engine limit.
    r.report('BP1201', doc, `Unexpected JSON that cannot be read in ${at}, expected a JSON Schema document`);
    return;
  }
  if (typeof root !== 'object' || root === null || Array.isArray(root)) {
    const what =
      root === null
        ? '`null`'
        : Array.isArray(root)
          ? 'a JSON array'
          : typeof root === 'boolean'
            ? `the boolean schema \`${String(root)}\``
            : `a JSON ${typeof root}`;
    r.report('BP1220', doc, `Unexpected ${what} as the root of ${at}, expected a JSON object (a schema)`, {
      hint: root === true ? 'write `{}` to accept any value' : root === false ? 'a schema that accepts nothing is not useful here' : undefined,
    });
    return;
  }

  if (wrapperValid) checkRootType(r, root as Record<string, unknown>, wrapperType, documentEntry.keySpan, where);

  for (const ref of findReferences(parsed.root!)) {
    if (ref.value.startsWith('#')) continue;
    r.report(
      'BP1223',
      locateInScalar(r.lines, doc, ref.offset) ?? doc,
      `Unexpected \`${ref.keyword}\` to ${JSON.stringify(ref.value)} in ${at}, expected a reference inside the document (starting with \`#\`)`,
      {
        hint: 'copy the referenced schema into the document under `$defs` and refer to it as `#/$defs/…`; nothing is downloaded',
      },
    );
  }
}

/** The wrapper `type` is compared as JSON; only YAML's null gets a report of its own (SCH-3). */
function checkWrapperType(r: Reporter, node: YNode | undefined, where: string): boolean {
  if (node?.kind !== 'scalar' || node.ref || node.value !== null) return true;
  if (refusedByParser(r, node)) return false;
  r.report('BP1231', node, `Unexpected ${node.empty ? 'nothing (null)' : 'YAML null'} for \`type\` in \`${where}\`, expected the document's root type`, {
    hint: node.empty
      ? "a key with nothing after it is null: write the document's root type, or remove `type`"
      : "unquoted `null` is YAML's null, not a type name: write `type: 'null'`",
  });
  return false;
}

/** SCH-2: the wrapper `type` and the root `type` are both absent or equal. */
function checkRootType(r: Reporter, root: Record<string, unknown>, wrapper: YNode | undefined, documentKey: Span, where: string): void {
  const hasRoot = Object.hasOwn(root, 'type');
  const rootType = root['type'];
  if (wrapper === undefined) {
    if (!hasRoot) return;
    r.report(
      'BP1222',
      documentKey,
      `Unexpected document with root \`type\` ${JSON.stringify(rootType)} but no \`type\` beside it in \`${where}\`, expected both absent or equal`,
      {
        hint: `add \`type: ${yamlType(rootType)}\` beside \`document\``,
      },
    );
    return;
  }
  const written = toJson(wrapper);
  if (!hasRoot) {
    r.report(
      'BP1222',
      wrapper,
      `Unexpected \`type: ${yamlType(written)}\` beside a document without a root \`type\` in \`${where}\`, expected both absent or equal`,
      {
        hint: `remove \`type\` here, or add \`"type": ${JSON.stringify(written)}\` to the document's root`,
      },
    );
    return;
  }
  if (JSON.stringify(written) === JSON.stringify(rootType)) return;
  r.report(
    'BP1222',
    wrapper,
    `Unexpected \`type: ${yamlType(written)}\` beside a document whose root \`type\` is ${JSON.stringify(rootType)} in \`${where}\`, expected the same type`,
    {
      hint: `write \`type: ${yamlType(rootType)}\``,
    },
  );
}

function yamlType(value: unknown): string {
  if (value === 'null') return "'null'";
  if (typeof value === 'string') return value;
  return JSON.stringify(value) ?? String(value);
}
