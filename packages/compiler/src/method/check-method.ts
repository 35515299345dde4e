import type { Reporter } from '../diagnostics/reporter.js';
import { canonicalJson } from '../bundle/canonical-json.js';
import { digestOf } from '../bundle/digest.js';
import { hasErrors, sortDiagnostics, type Diagnostic } from '../diagnostics/diagnostic.js';
import { methodCodes } from '../diagnostics/codes/method.js';
import { closest, quoteList } from '../hints/did-you-mean.js';
import { jsonValue } from '../json/json-value.js';
import { describeNode, entry, type YMap, type YNode } from '../source/yaml-tree.js';
import { checkStep } from './check-step.js';
import { collectSteps } from './collect-steps.js';
import { defineField } from './data-types.js';
import { checkConditionalConsumers, orderSteps } from './graph.js';
import { checkName, lookup } from './names.js';
import { parseMethodDocument } from './parse-document.js';
import { expectText } from './expect-node.js';
import { checkResult } from './result.js';
import { emptyScope } from './scope.js';
import { checkEnvironment, checkInputs, checkState } from './sections.js';
import type { CompiledMethod, MethodCheckResult } from './types.js';

export const METHOD_FORMAT = 'method/2';
const TOP_KEYS = ['format', 'name', 'goal', 'inputs', 'environment', 'state', 'steps', 'result'] as const;
const REQUIRED = ['format', 'name', 'goal', 'steps', 'result'] as const;
const TOP_KEY_HINTS: Readonly<Record<string, string>> = {
  description: 'write the purpose of the method as `goal`',
  title: 'the method is identified by `name`; describe it in `goal`',
  id: 'saved method ids and version ids are server metadata, not part of the document',
  version: 'saved method ids and version ids are server metadata, not part of the document',
  outputs: "declare outputs under a step's `out`; `result` names what the run delivers",
  output: "declare outputs under a step's `out`; `result` names what the run delivers",
  input: 'write `inputs`',
  connections: 'write `environment`',
  config: 'local paths and credentials belong to the run configuration, not the document',
};

/** MTH-1..MTH-17 for one method document. Never throws: a defect becomes BP6009. */
export function checkMethod(file: string, input: Uint8Array | string): MethodCheckResult {
  let diagnostics: Diagnostic[] = [];
  try {
    const parsed = parseMethodDocument(file, input);
    diagnostics = parsed.reporter.diagnostics;
    const method = parsed.tree ? compile(parsed.reporter, parsed.tree) : undefined;
    const sorted = sortDiagnostics(diagnostics);
    return { method: hasErrors(sorted) ? undefined : method, diagnostics: sorted };
  } catch (error) {
    const info = methodCodes.BP6009;
    const internal: Diagnostic = {
      code: 'BP6009',
      rule: info.rule,
      severity: info.severity,
      message: `Unexpected internal error while checking the method document: ${error instanceof Error ? error.message : String(error)}`,
      hint: 'please report this with the document',
      file,
      line: 1,
      column: 1,
      endLine: 1,
      endColumn: 1,
    };
    return { method: undefined, diagnostics: sortDiagnostics([...diagnostics, internal]) };
  }
}

function compile(r: Reporter, tree: YNode): CompiledMethod | undefined {
  const map = topLevel(r, tree);
  if (!map) return undefined;
  const at = (key: string): YNode | undefined => entry(map, key)?.value;

  const format = at('format');
  if (format && !(format.kind === 'scalar' && format.value === METHOD_FORMAT && !format.ref)) {
    const written = format.kind === 'scalar' && typeof format.value === 'string' ? `\`${format.value}\`` : describeNode(format);
    r.report('BP6003', format, `Unexpected format ${written}, expected \`${METHOD_FORMAT}\``, { hint: `write \`format: ${METHOD_FORMAT}\`` });
  }
  const nameNode = at('name');
  const name = nameNode ? expectText(r, nameNode, 'BP6005', 'the method `name`') : undefined;
  if (nameNode && name !== undefined) checkName(r, name, nameNode.span, 'method name', false);
  const goalNode = at('goal');
  const goal = goalNode ? expectText(r, goalNode, 'BP6005', '`goal`') : undefined;

  const scope = emptyScope();
  const inputsNode = at('inputs');
  const stateNode = at('state');
  const environmentNode = at('environment');
  const inputs = inputsNode ? checkInputs(r, inputsNode, scope) : {};
  const state = stateNode ? checkState(r, stateNode, scope) : {};
  const environment = environmentNode ? checkEnvironment(r, environmentNode, scope) : {};

  const stepsNode = at('steps');
  const collected = stepsNode ? collectSteps(r, stepsNode, scope) : [];
  const analyses = collected.map((step) => checkStep(r, scope, step));
  const order = orderSteps(r, analyses);
  checkConditionalConsumers(r, analyses);
  const resultNode = at('result');
  const result = resultNode ? checkResult(r, resultNode, scope) : undefined;

  const document = jsonValue(tree);
  let versionId: string | undefined;
  try {
    versionId = digestOf(canonicalJson(document));
  } catch (error) {
    r.report('BP6150', tree, `${error instanceof Error ? error.message : String(error)} in the method document`, {
      hint: 'JSON text must be well-formed Unicode; remove the lone surrogate escape',
    });
  }

  if (r.errorCount > 0 || versionId === undefined || name === undefined || goal === undefined || result === undefined) return undefined;
  const steps: CompiledMethod['steps'] = {};
  for (const a of analyses) {
    if (!a.compiled) return undefined;
    defineField(steps, a.key, a.compiled);
  }
  const outputs: CompiledMethod['outputs'] = {};
  for (const [key, output] of scope.outputs) {
    if (output.type === undefined) return undefined;
    defineField(outputs, key, { step: output.step, type: output.type, list: output.list });
  }
  return { versionId, name, goal, document, inputs, state, environment, steps, order, result, outputs };
}

/** MTH-1: a mapping with the required sections and no others. */
function topLevel(r: Reporter, tree: YNode): YMap | undefined {
  if (tree.kind !== 'map') {
    r.report(
      'BP6001',
      tree.span.end > tree.span.start ? tree : { start: 0, end: 0 },
      `Unexpected ${describeNode(tree)} for the method document, expected a mapping with \`format: ${METHOD_FORMAT}\`, \`name\`, \`goal\`, \`steps\` and \`result\``,
    );
    return undefined;
  }
  for (const e of tree.entries) {
    if ((TOP_KEYS as readonly string[]).includes(e.key)) continue;
    const guess = closest(e.key, TOP_KEYS);
    r.report('BP6006', e.keySpan, `Unexpected top-level key \`${e.key}\`, expected one of ${quoteList(TOP_KEYS)}`, {
      hint: lookup(TOP_KEY_HINTS, e.key) ?? (guess ? `did you mean \`${guess}\`?` : undefined),
    });
  }
  const start = tree.entries[0]?.keySpan ?? { start: tree.span.start, end: tree.span.start };
  for (const key of REQUIRED) {
    if (entry(tree, key)) continue;
    const code = key === 'format' ? 'BP6003' : 'BP6004';
    r.report(
      code,
      { start: start.start, end: start.start },
      `Unexpected method document without \`${key}\`, expected ${key === 'format' ? `\`format: ${METHOD_FORMAT}\`` : `a \`${key}\` section`}`,
      {
        hint: REQUIRED_HINTS[key],
      },
    );
  }
  return tree;
}

const REQUIRED_HINTS: Readonly<Record<(typeof REQUIRED)[number], string>> = {
  format: `start the document with \`format: ${METHOD_FORMAT}\``,
  name: 'add `name:` with a lowercase name such as `weekly_report`',
  goal: 'add `goal:` saying in plain English what the method achieves',
  steps: 'add `steps:` with at least one step that has `do:` or `ask:`',
  result: 'add `result:` naming the data the run delivers',
};
