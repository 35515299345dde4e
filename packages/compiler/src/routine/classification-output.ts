import type { Reporter, Span } from '../diagnostics/reporter.js';
import { entry, type YEntry, type YMap, type YNode } from '../source/yaml-tree.js';
import { mapAt, scalarAt, schemaRoot, seqAt, stringAt, stringsOf } from './model-schema-view.js';

/**
 * CLS-2..4: a classification output holds judgments only. Keywords and types are SCH's to
 * check; this looks only at the classification shape and skips anything it cannot read.
 */
export function checkClassificationOutput(r: Reporter, output: YEntry): void {
  const root = schemaRoot(output.value);
  if (root) checkJudgment(r, root, { at: output.keySpan, path: 'output' });
}

/** Where a schema sits: the span to point at and the path to name. */
interface Place {
  at: Span;
  path: string;
}

const JUDGMENTS =
  'a judgment: `const`, `enum`, a `oneOf` of constants, `type: boolean`, a described probability from 0 to 1, a distribution or a closed object of these';

function checkJudgment(r: Reporter, node: YNode, place: Place): void {
  if (node.kind !== 'map') return;
  // A reference inside an independent document is not followed; preparation sees the whole document.
  if (entry(node, '$ref')) return;
  // A constant choice may itself hold an object or array, and an enum lists such choices.
  if (entry(node, 'const') || entry(node, 'enum')) return;
  const oneOf = entry(node, 'oneOf');
  if (oneOf) {
    checkConstAlternatives(r, oneOf, place);
    return;
  }
  const typeEntry = entry(node, 'type');
  if (!typeEntry) {
    r.report('BP1381', place.at, `Unexpected schema without \`type\` for \`${place.path}\`, expected ${JUDGMENTS}`, {
      hint: 'a schema without `type`, `const`, `enum` or `oneOf` accepts any value; list the choices with `enum`',
    });
    return;
  }
  const type = stringAt(node, 'type');
  switch (type) {
    case 'boolean':
      return;
    case 'number':
      checkProbability(r, node, place);
      return;
    case 'object':
      if (entry(node, 'propertyNames') || mapAt(node, 'additionalProperties')) checkDistribution(r, node, place);
      else checkClosedObject(r, node, place);
      return;
    case 'string':
      r.report('BP1386', place.at, `Unexpected free string for \`${place.path}\`, expected ${JUDGMENTS}`, {
        hint: 'a free string such as a title belongs to a generation routine; for a choice among words, list them with `enum`',
      });
      return;
    case 'array':
      r.report('BP1387', place.at, `Unexpected array for \`${place.path}\`, expected ${JUDGMENTS}`, {
        hint: 'for several yes/no judgments use a closed object of booleans; for weights over choices, a distribution; free lists belong to a generation routine',
      });
      return;
    case 'integer':
      r.report('BP1381', place.at, `Unexpected integer for \`${place.path}\`, expected ${JUDGMENTS}`, {
        hint: 'list the allowed values with `enum`, or declare a described `type: number` probability with `minimum: 0` and `maximum: 1`',
      });
      return;
    case 'null':
      r.report('BP1381', place.at, `Unexpected \`type: 'null'\` for \`${place.path}\`, expected ${JUDGMENTS}`, {
        hint: 'write `const: null` for a constant null',
      });
      return;
    default:
      // Not a string, or not a native type: SCH-3 reports it.
      return;
  }
}

/** CLS-2: each branch only `{const}` plus an optional `description` of its criteria. */
function checkConstAlternatives(r: Reporter, oneOf: YEntry, place: Place): void {
  if (oneOf.value.kind !== 'seq') return;
  oneOf.value.items.forEach((branch, i) => {
    if (branch.kind !== 'map') return;
    const extra = branch.entries.filter((e) => e.key !== 'const' && e.key !== 'description');
    const hasConst = entry(branch, 'const') !== undefined;
    if (hasConst && extra.length === 0) return;
    const what = extra.length > 0 ? extra.map((e) => '`' + e.key + '`').join(', ') : 'no `const`';
    r.report(
      'BP1384',
      extra[0]?.keySpan ?? branch,
      `Unexpected ${what} in \`${place.path}.oneOf[${i}]\`, expected exactly \`const\` and an optional \`description\``,
      {
        hint: 'a classification `oneOf` lists exact choices: `- const: value`, with a `description` of its criteria',
      },
    );
  });
}

/** CLS-2: a number is a probability, and its description says of what. */
function checkProbability(r: Reporter, node: YMap, place: Place): void {
  const missing: string[] = [];
  const description = stringAt(node, 'description');
  if (description === undefined || description.trim() === '') missing.push('`description`');
  if (scalarAt(node, 'minimum') !== 0) missing.push('`minimum: 0`');
  if (scalarAt(node, 'maximum') !== 1) missing.push('`maximum: 1`');
  if (missing.length === 0) return;
  r.report('BP1382', place.at, `Unexpected number for \`${place.path}\` without ${missing.join(', ')}, expected a described probability from 0 to 1`, {
    hint: 'a classification number is a probability: `minimum: 0`, `maximum: 1` and a `description` of what it measures',
  });
}

/** CLS-2, CLS-4: closed, every property required, each property itself a judgment. */
function checkClosedObject(r: Reporter, node: YMap, place: Place): void {
  const closed = entry(node, 'additionalProperties');
  if (!closed || (closed.value.kind === 'scalar' && closed.value.value === true)) {
    r.report('BP1383', closed?.keySpan ?? place.at, `Unexpected open object for \`${place.path}\`, expected \`additionalProperties: false\``, {
      hint: 'add `additionalProperties: false`: a classification returns exactly its declared judgments',
    });
  }
  const properties = mapAt(node, 'properties');
  if (!properties) return;
  const requiredEntry = entry(node, 'required');
  const required = requiredEntry ? stringsOf(seqAt(node, 'required')) : [];
  for (const property of properties.entries) {
    // A malformed `required` is SCH-7's; without a readable list, optionality is unknown.
    if (required !== undefined && !required.includes(property.key)) {
      r.report(
        'BP1388',
        property.keySpan,
        `Unexpected optional property \`${property.key}\` in \`${place.path}\`, expected every property listed in \`required\``,
        {
          hint: `add \`${property.key}\` to \`required\`: a classification answers every judgment it declares`,
        },
      );
    }
    checkJudgment(r, property.value, { at: property.keySpan, path: `${place.path}.properties.${property.key}` });
  }
}

/** CLS-3: probabilities over two or more named choices, and nothing else. */
function checkDistribution(r: Reporter, node: YMap, place: Place): void {
  const path = place.path;
  for (const key of ['properties', 'required']) {
    const e = entry(node, key);
    if (e) {
      r.report('BP1385', e.keySpan, `Unexpected \`${key}\` in the distribution \`${path}\`, expected only \`propertyNames\` and \`additionalProperties\``, {
        hint: 'a distribution names its choices in `propertyNames`; for fixed judgments use a closed object without `propertyNames`',
      });
    }
  }
  checkChoices(r, node, place);
  const probability = entry(node, 'additionalProperties');
  const schema = probability && mapAt(node, 'additionalProperties');
  const exact =
    schema !== undefined &&
    stringAt(schema, 'type') === 'number' &&
    scalarAt(schema, 'minimum') === 0 &&
    scalarAt(schema, 'maximum') === 1 &&
    schema.entries.every((e) => ['type', 'minimum', 'maximum', 'description'].includes(e.key));
  if (!exact) {
    r.report(
      'BP1385',
      probability?.keySpan ?? place.at,
      `Unexpected ${probability ? '`additionalProperties`' : 'distribution without `additionalProperties`'} in \`${path}\`, expected \`additionalProperties\` of exactly \`type: number\`, \`minimum: 0\` and \`maximum: 1\``,
      {
        hint: 'each choice of a distribution maps to its probability',
      },
    );
  }
}

function checkChoices(r: Reporter, node: YMap, place: Place): void {
  const names = entry(node, 'propertyNames');
  if (!names) {
    r.report(
      'BP1385',
      place.at,
      `Unexpected distribution \`${place.path}\` without \`propertyNames\`, expected \`propertyNames\` with an \`enum\` or \`oneOf\` of the choices`,
      {
        hint: 'list at least two choices under `propertyNames.enum`',
      },
    );
    return;
  }
  if (names.value.kind !== 'map') return;
  const list = entry(names.value, 'enum') ?? entry(names.value, 'oneOf');
  if (!list) {
    r.report(
      'BP1385',
      names.keySpan,
      `Unexpected \`propertyNames\` without \`enum\` or \`oneOf\` in \`${place.path}\`, expected the choices as string constants`,
      {
        hint: 'list at least two choices under `propertyNames.enum`',
      },
    );
    return;
  }
  if (list.value.kind !== 'seq') return;
  const choices = new Set<string>();
  for (const item of list.value.items) {
    const choice = list.key === 'enum' ? item : item.kind === 'map' ? entry(item, 'const')?.value : undefined;
    const extra = list.key === 'oneOf' && item.kind === 'map' ? item.entries.find((e) => e.key !== 'const' && e.key !== 'description') : undefined;
    if (choice?.kind === 'scalar' && typeof choice.value === 'string' && !choice.ref && choice.value !== '' && !extra) {
      choices.add(choice.value);
      continue;
    }
    r.report(
      'BP1385',
      extra?.keySpan ?? choice ?? item,
      `Unexpected choice in \`${place.path}.propertyNames.${list.key}\`, expected a nonempty string constant`,
      {
        hint: list.key === 'oneOf' ? 'write each choice as `- const: name`, with an optional `description`' : 'write each choice as a nonempty string',
      },
    );
  }
  if (choices.size < 2) {
    r.report(
      'BP1385',
      list.keySpan,
      `Unexpected ${choices.size === 0 ? 'no choices' : 'a single choice'} in \`${place.path}.propertyNames.${list.key}\`, expected at least two distinct choices`,
      {
        hint: 'a distribution spreads probability over two or more choices; for one yes/no judgment use `type: boolean`',
      },
    );
  }
}
