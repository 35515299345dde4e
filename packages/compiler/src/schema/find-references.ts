import type { YNode } from '../source/yaml-tree.js';

/** A reference keyword of a JSON Schema document and where its value is written. */
export interface JsonReference {
  keyword: string;
  value: string;
  /** Offset of the value's opening quote in the document's text. */
  offset: number;
}

const REF_KEYWORDS = new Set(['$ref', '$dynamicRef', '$recursiveRef']);
/** Keywords whose value is data: a `$ref` inside is a literal, not a reference. */
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples', 'example']);
/** Keywords whose object keys are names chosen by the author, each mapping to a schema. */
const NAME_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);

/**
 * The reference keywords of a parsed JSON Schema document, in document order, skipping data
 * (`const`, `enum`, …) and property names. Iterative: the tree may be deep.
 */
export function findReferences(root: YNode): JsonReference[] {
  const refs: JsonReference[] = [];
  // `names`: this object's keys are property or definition names, not keywords.
  const work: { node: YNode; names: boolean }[] = [{ node: root, names: false }];
  while (work.length > 0) {
    const { node, names } = work.pop()!;
    const children: { node: YNode; names: boolean }[] = [];
    if (node.kind === 'seq') for (const item of node.items) children.push({ node: item, names: false });
    else if (node.kind === 'map') {
      for (const e of node.entries) {
        if (names) {
          children.push({ node: e.value, names: false });
          continue;
        }
        if (DATA_KEYWORDS.has(e.key)) continue;
        const value = e.value;
        if (REF_KEYWORDS.has(e.key) && value.kind === 'scalar' && typeof value.value === 'string')
          refs.push({ keyword: e.key, value: value.value, offset: value.span.start });
        children.push({ node: value, names: NAME_MAPS.has(e.key) });
      }
    }
    for (let k = children.length - 1; k >= 0; k--) work.push(children[k]!);
  }
  return refs;
}
