import type { Reporter, Span } from '../diagnostics/reporter.js';
import { closest, quoteList } from '../hints/did-you-mean.js';
import { describeNode, entry, type YMap, type YNode } from '../source/yaml-tree.js';
import { checkCheckSpec } from './check-spec.js';
import type { CollectedStep } from './collect-steps.js';
import { describeType } from './data-types.js';
import { elementType } from './types.js';
import { checkName, lookup } from './names.js';
import { resolveReference } from './references.js';
import { expectMap, expectText } from './expect-node.js';
import type { MethodScope } from './scope.js';
import { checkPlaceholders, type LocalValue } from './templates.js';
import type { CheckSpec, CompiledStep, Reference } from './types.js';

const STEP_KEYS = ['name', 'do', 'ask', 'in', 'out', 'check', 'after', 'each', 'when', 'changes'] as const;
const STEP_KEY_HINTS: Readonly<Record<string, string>> = {
  description: 'a step has no separate description; the instructions in `do` explain the work, `name` gives a display title',
  title: 'write the display title as `name`',
  inputs: 'write `in`',
  input: 'write `in`',
  outputs: 'write `out`',
  output: 'write `out`',
  depends_on: 'write `after`',
  needs: 'write `after`',
  if: 'write `when`',
  for_each: 'write `each`',
  foreach: 'write `each`',
  instructions: 'write the agent instructions as `do`',
  prompt: 'write `do` (agent instructions) or `ask` (a human request)',
};

/** A dependency of a step on another, with where it was written (for cycle reports). */
export interface Edge {
  from: string;
  span: Span;
  via: 'data' | 'after';
  text: string;
}

export interface StepAnalysis {
  key: string;
  keySpan: Span;
  edges: Edge[];
  when: { ref: Reference; span: Span } | undefined;
  /** Undefined when the step has errors. */
  compiled: CompiledStep | undefined;
}

/** Pass two over one step: MTH-6 to MTH-13 and MTH-17, everything but the graph. */
export function checkStep(r: Reporter, scope: MethodScope, step: CollectedStep): StepAnalysis {
  const key = step.entry.key;
  const analysis: StepAnalysis = { key, keySpan: step.entry.keySpan, edges: [], when: undefined, compiled: undefined };
  if (step.entry.value.kind !== 'map') return analysis;
  const map = step.entry.value;
  const errorsBefore = r.errorCount;
  checkStepKeys(r, map, key);
  const body = checkBody(r, map, key, step.entry.keySpan);
  const title = entry(map, 'name');
  const titleText = title ? expectText(r, title.value, 'BP6053', `the name of step \`${key}\``) : undefined;

  const locals = new Map<string, LocalValue>();
  const localSpans = new Map<string, Span>();
  const addLocal = (alias: string, span: Span, value: LocalValue): void => {
    const first = localSpans.get(alias);
    if (first) {
      r.report('BP6031', span, `Unexpected second local name \`${alias}\` in step \`${key}\`, expected each alias and output name once`, {
        related: [r.locate(first, 'first used here')],
      });
      return;
    }
    localSpans.set(alias, span);
    locals.set(alias, value);
  };
  const dataEdge = (producer: string | undefined, span: Span, text: string): void => {
    if (producer !== undefined) analysis.edges.push({ from: producer, span, via: 'data', text });
  };

  const inRefs: Record<string, Reference> = {};
  const inEntry = entry(map, 'in');
  const inMap = inEntry
    ? expectMap(r, inEntry.value, 'BP6060', `\`in\` of step \`${key}\``, 'write `in:` then one `alias: reference` per line, such as `query: inputs.query`')
    : undefined;
  for (const e of inMap?.entries ?? []) {
    checkName(r, e.key, e.keySpan, 'alias');
    const resolved = resolveReference(r, scope, e.value, `\`in.${e.key}\` of step \`${key}\``);
    addLocal(
      e.key,
      e.keySpan,
      resolved?.kind === 'data' ? { kind: 'data', type: resolved.type } : resolved ? { kind: 'connection' } : { kind: 'data', type: undefined },
    );
    if (!resolved) continue;
    Object.defineProperty(inRefs, e.key, { value: resolved.ref, enumerable: true, writable: true, configurable: true });
    if (resolved.kind === 'data') dataEdge(resolved.producer, e.value.span, resolved.ref.text);
  }

  let each: CompiledStep['each'];
  const eachEntry = entry(map, 'each');
  if (eachEntry) {
    const eachMap = expectMap(r, eachEntry.value, 'BP6100', `\`each\` of step \`${key}\``, 'write `each: {person: state.approved_people}`');
    if (eachMap && eachMap.entries.length !== 1) {
      r.report('BP6100', eachMap, `Unexpected ${eachMap.entries.length} aliases in \`each\` of step \`${key}\`, expected exactly one`, {
        hint: 'repeat over one list; pass other data through `in`',
      });
    } else if (eachMap) {
      const e = eachMap.entries[0]!;
      checkName(r, e.key, e.keySpan, 'alias');
      const resolved = resolveReference(r, scope, e.value, `\`each\` of step \`${key}\``);
      let itemType: LocalValue = { kind: 'data', type: undefined };
      if (resolved?.kind === 'connection') {
        r.report('BP6101', e.value, `Unexpected connection \`${resolved.ref.text}\` for \`each\` of step \`${key}\`, expected a list`);
      } else if (resolved && resolved.type !== undefined && resolved.type.type !== 'list') {
        r.report('BP6101', e.value, `Unexpected \`${resolved.ref.text}\` (${describeType(resolved.type)}) for \`each\` of step \`${key}\`, expected a list`);
      } else if (resolved) {
        if (resolved.type?.type === 'list') itemType = { kind: 'data', type: elementType(resolved.type) };
        each = { alias: e.key, ref: resolved.ref };
        dataEdge(resolved.producer, e.value.span, resolved.ref.text);
      }
      addLocal(e.key, e.keySpan, itemType);
    }
  }

  const templateLocals = new Map(locals);
  const outEntry = entry(map, 'out');
  if (outEntry?.value.kind === 'map') {
    for (const e of outEntry.value.entries) {
      if (scope.outputs.get(e.key)?.step === key) addLocal(e.key, e.keySpan, { kind: 'data', type: lookup(step.out, e.key) });
    }
  }
  if (body) checkPlaceholders(r, body.node, body.text, templateLocals, `\`${body.kind}\` of step \`${key}\``);

  const whenEntry = entry(map, 'when');
  let when: Reference | undefined;
  if (whenEntry) {
    const node = whenEntry.value;
    if (!(node.kind === 'scalar' && typeof node.value === 'string' && !node.ref)) {
      r.report('BP6110', node, `Unexpected ${describeNode(node)} for \`when\` of step \`${key}\`, expected a reference to a boolean`, {
        hint: 'a judgment belongs in a `do` step returning a boolean and a reason; name that boolean here',
      });
    } else {
      const resolved = resolveReference(r, scope, node, `\`when\` of step \`${key}\``);
      if (resolved?.kind === 'connection' || (resolved?.kind === 'data' && resolved.type !== undefined && resolved.type.type !== 'boolean')) {
        const found = resolved.kind === 'connection' ? 'a connection' : describeType(resolved.type!);
        r.report('BP6110', node, `Unexpected \`${resolved.ref.text}\` (${found}) for \`when\` of step \`${key}\`, expected a boolean`, {
          hint: 'a judgment belongs in a `do` step returning a boolean and a reason; name that boolean here',
        });
      } else if (resolved) {
        when = resolved.ref;
        analysis.when = { ref: resolved.ref, span: node.span };
        dataEdge(resolved.producer, node.span, resolved.ref.text);
      }
    }
  }

  const after = checkAfter(r, scope, map, key, analysis.edges);
  const changes = checkChanges(r, scope, map, key, body?.kind);
  const checkEntry = entry(map, 'check');
  let check: CheckSpec | undefined;
  if (checkEntry) check = checkCheckSpec(r, checkEntry.value, locals, key);
  const external = changes.find((c) => c.ref.root === 'environment');
  if (external && !checkEntry) {
    r.report(
      'BP6160',
      external.span,
      `Unexpected external change \`${external.ref.text}\` without a \`check\` in step \`${key}\`, expected an independent check`,
      {
        hint: 'add `check:` with criteria an independent reviewer can verify from observed evidence (the saved page, the sent message, …)',
      },
    );
  }

  if (r.errorCount !== errorsBefore || !body || !step.outOk) return analysis;
  const dependsOn = [...new Set(analysis.edges.map((e) => e.from))].sort();
  analysis.compiled = {
    key,
    ...(titleText === undefined ? {} : { title: titleText }),
    kind: body.kind,
    text: body.text,
    in: inRefs,
    ...(each === undefined ? {} : { each }),
    ...(when === undefined ? {} : { when }),
    after,
    out: step.out,
    ...(check === undefined ? {} : { check }),
    changes: changes.map((c) => c.ref),
    dependsOn,
  };
  return analysis;
}

function checkStepKeys(r: Reporter, map: YMap, key: string): void {
  for (const e of map.entries) {
    if ((STEP_KEYS as readonly string[]).includes(e.key)) continue;
    const guess = closest(e.key, STEP_KEYS);
    r.report('BP6052', e.keySpan, `Unexpected \`${e.key}\` in step \`${key}\`, expected one of ${quoteList(STEP_KEYS)}`, {
      hint: lookup(STEP_KEY_HINTS, e.key) ?? (guess ? `did you mean \`${guess}\`?` : undefined),
    });
  }
}

/** MTH-6: exactly one of `do` and `ask`, a nonempty string. */
function checkBody(r: Reporter, map: YMap, key: string, keySpan: Span): { kind: 'do' | 'ask'; text: string; node: YNode } | undefined {
  const doEntry = entry(map, 'do');
  const askEntry = entry(map, 'ask');
  if (doEntry && askEntry) {
    const second = doEntry.keySpan.start < askEntry.keySpan.start ? askEntry : doEntry;
    r.report('BP6051', second.keySpan, `Unexpected both \`do\` and \`ask\` in step \`${key}\`, expected exactly one`, {
      hint: 'ask the human in one step and apply the decision in a separate `do` step',
    });
    return undefined;
  }
  const body = doEntry ?? askEntry;
  if (!body) {
    r.report('BP6051', keySpan, `Unexpected step \`${key}\` without \`do\` or \`ask\`, expected exactly one`, {
      hint: '`do` holds agent instructions; `ask` a request a real human answers',
    });
    return undefined;
  }
  const kind = body === doEntry ? 'do' : 'ask';
  const text = expectText(r, body.value, 'BP6053', `\`${kind}\` of step \`${key}\``);
  return text === undefined ? undefined : { kind, text, node: body.value };
}

/** MTH-10: `after` is a step key or a list of them; each adds an ordering edge. */
function checkAfter(r: Reporter, scope: MethodScope, map: YMap, key: string, edges: Edge[]): string[] {
  const afterEntry = entry(map, 'after');
  if (!afterEntry) return [];
  const node = afterEntry.value;
  const items = node.kind === 'seq' ? node.items : [node];
  const after: string[] = [];
  for (const item of items) {
    if (!(item.kind === 'scalar' && typeof item.value === 'string' && !item.ref)) {
      r.report('BP6090', item, `Unexpected ${describeNode(item)} in \`after\` of step \`${key}\`, expected a step key or a list of step keys`);
      continue;
    }
    const target = item.value;
    if (target === key) {
      r.report('BP6090', item, `Unexpected \`after: ${target}\` in step \`${key}\` itself, expected another step`);
      continue;
    }
    if (!scope.steps.has(target)) {
      const guess = closest(target, scope.steps.keys());
      const producer = scope.outputs.get(target)?.step;
      r.report('BP6090', item, `Unexpected \`${target}\` in \`after\` of step \`${key}\`, expected a step key`, {
        hint:
          producer !== undefined
            ? `\`${target}\` is an output of step \`${producer}\`; read it through \`in\`, or write \`after: ${producer}\``
            : guess
              ? `did you mean \`${guess}\`?`
              : undefined,
      });
      continue;
    }
    if (after.includes(target)) continue;
    after.push(target);
    edges.push({ from: target, span: item.span, via: 'after', text: target });
  }
  return after;
}

/** MTH-13: declared `state.NAME` / `environment.NAME` targets; an `ask` changes nothing. */
function checkChanges(r: Reporter, scope: MethodScope, map: YMap, key: string, kind: 'do' | 'ask' | undefined): { ref: Reference; span: Span }[] {
  const changesEntry = entry(map, 'changes');
  if (!changesEntry) return [];
  if (kind === 'ask' || (kind === undefined && entry(map, 'ask') && !entry(map, 'do'))) {
    r.report('BP6121', changesEntry.keySpan, `Unexpected \`changes\` in the \`ask\` step \`${key}\`, expected none`, {
      hint: 'an ask waits for a human response; apply the decision in a separate `do` step that declares the changes',
    });
    return [];
  }
  const node = changesEntry.value;
  if (node.kind !== 'seq') {
    r.report('BP6120', node, `Unexpected ${describeNode(node)} for \`changes\` of step \`${key}\`, expected a list of \`state.NAME\` or \`environment.NAME\``, {
      hint: node.kind === 'scalar' && typeof node.value === 'string' ? `write \`changes: [${node.value}]\`` : undefined,
    });
    return [];
  }
  const targets = [...[...scope.state.keys()].map((n) => `state.${n}`), ...[...scope.environment.keys()].map((n) => `environment.${n}`)];
  const changes: { ref: Reference; span: Span }[] = [];
  for (const item of node.items) {
    const text = item.kind === 'scalar' && typeof item.value === 'string' && !item.ref ? item.value : undefined;
    const match = text === undefined ? null : /^(state|environment)\.([^.]+)$/.exec(text);
    if (text === undefined || !match || !targets.includes(text)) {
      const guess = text === undefined ? undefined : closest(text, targets);
      r.report(
        'BP6120',
        item,
        `Unexpected ${text === undefined ? describeNode(item) : `\`${text}\``} in \`changes\` of step \`${key}\`, expected a declared \`state.NAME\` or \`environment.NAME\`${targets.length > 0 ? ` (${quoteList(targets)})` : ''}`,
        {
          hint: guess
            ? `did you mean \`${guess}\`?`
            : text !== undefined && !match
              ? 'a step changes a whole state or a connection; outputs are returned, not changed'
              : undefined,
        },
      );
      continue;
    }
    if (changes.some((c) => c.ref.text === text)) {
      r.report('BP6120', item, `Unexpected second \`${text}\` in \`changes\` of step \`${key}\`, expected each target once`);
      continue;
    }
    changes.push({ ref: { root: match[1] as 'state' | 'environment', name: match[2]!, path: [], text }, span: item.span });
  }
  return changes;
}
