import type { Reporter, Span } from '../diagnostics/reporter.js';
import { closest, quoteList } from '../hints/did-you-mean.js';
import { describeNode, type YNode } from '../source/yaml-tree.js';
import { describeType } from './data-types.js';
import { elementType } from './types.js';
import { downstreamType, type MethodScope } from './scope.js';
import type { DataType, Reference } from './types.js';

/** What a resolved reference stands for; `type` is undefined when its declaration was refused. */
export type Resolved = { kind: 'data'; ref: Reference; type: DataType | undefined; producer: string | undefined } | { kind: 'connection'; ref: Reference };

const SEGMENT = /^[A-Za-z0-9_]+$/;
const INDEX = /^(?:0|[1-9][0-9]{0,8})$/;
const RUN_FIELDS: Readonly<Record<string, DataType>> = {
  started_at: { type: 'text', description: 'The saved start time of the run (ISO 8601)', format: 'date-time' },
};
const EXAMPLES = '`inputs.NAME`, `state.NAME`, an output name, `run.started_at` or `environment.NAME`, with an optional `.field` or `.0` suffix';

export type PathWalk = { ok: true; type: DataType } | { ok: false; index: number; message: string; hint?: string };

/** Follows a dotted suffix through a type: fields of records, numeric indexes of lists. */
export function walkPath(type: DataType, path: readonly (string | number)[], written: string): PathWalk {
  let current = type;
  for (let i = 0; i < path.length; i++) {
    const segment = path[i]!;
    const shown = `\`.${segment}\` in \`${written}\``;
    if (typeof segment === 'number') {
      if (current.type !== 'list')
        return { ok: false, index: i, message: `Unexpected index ${shown} into ${describeType(current)}, expected an index only on a list` };
      current = elementType(current);
      continue;
    }
    if (current.type === 'record') {
      const field = Object.hasOwn(current.fields, segment) ? current.fields[segment] : undefined;
      if (field !== undefined) {
        current = field;
        continue;
      }
      const guess = closest(segment, Object.keys(current.fields));
      return {
        ok: false,
        index: i,
        message: `Unexpected field ${shown}, expected ${quoteList(Object.keys(current.fields))}`,
        ...(guess ? { hint: `did you mean \`${guess}\`?` } : {}),
      };
    }
    if (current.type === 'list') {
      return {
        ok: false,
        index: i,
        message: `Unexpected field ${shown} of a list, expected an item index first`,
        hint: `select an item (\`.0\`), or use \`each\` to handle every item`,
      };
    }
    return { ok: false, index: i, message: `Unexpected field ${shown} of ${describeType(current)}, expected no suffix` };
  }
  return { ok: true, type: current };
}

/**
 * MTH-7: resolves a reference written as a string scalar, reporting BP6061 for unknown or
 * malformed references and BP6062 for a suffix that does not fit the type.
 */
export function resolveReference(r: Reporter, scope: MethodScope, node: YNode, what: string): Resolved | undefined {
  if (!(node.kind === 'scalar' && typeof node.value === 'string' && !node.ref)) {
    r.report('BP6061', node, `Unexpected ${describeNode(node)} for ${what}, expected a reference: ${EXAMPLES}`);
    return undefined;
  }
  const text = node.value;
  const segments = text.split('.');
  if (segments.some((s) => !SEGMENT.test(s)) || INDEX.test(segments[0]!) || /^[0-9]/.test(segments[0]!)) {
    r.report('BP6061', node, `Unexpected reference \`${text}\` for ${what}, expected ${EXAMPLES}`, {
      hint: text.trim() !== text ? 'remove the surrounding spaces' : text.includes('{{') ? 'references are written bare, without `{{ }}`' : undefined,
    });
    return undefined;
  }
  const path = segments.map((s) => (INDEX.test(s) ? Number(s) : s));
  const head = segments[0]!;
  const unknown = (message: string, hint?: string): undefined => {
    r.report('BP6061', node, message, { hint: hint ?? guessHint(scope, text) });
    return undefined;
  };
  const suffix = (base: DataType | undefined, skip: number, ref: Reference, producer: string | undefined): Resolved | undefined => {
    if (base === undefined) return { kind: 'data', ref, type: undefined, producer };
    const walked = walkPath(base, path.slice(skip), text);
    if (walked.ok) return { kind: 'data', ref, type: walked.type, producer };
    r.report('BP6062', segmentSpan(r, node, segments, skip + walked.index), walked.message, { hint: walked.hint });
    return undefined;
  };
  if (head === 'inputs' || head === 'state') {
    const name = segments[1];
    const declared = name === undefined ? undefined : (head === 'inputs' ? scope.inputs : scope.state).get(name);
    if (name === undefined || typeof path[1] === 'number' || !declared) {
      const hint =
        name !== undefined && scope.outputs.has(name) ? `\`${name}\` is an output of step \`${scope.outputs.get(name)!.step}\`; write \`${name}\`` : undefined;
      return unknown(
        `Unexpected reference \`${text}\` for ${what}, expected a declared ${head === 'inputs' ? 'input' : 'state'}${name === undefined ? ' name after the dot' : ''}`,
        hint,
      );
    }
    return suffix(declared.type, 2, { root: head, name, path: path.slice(2), text }, undefined);
  }
  if (head === 'run') {
    const field = segments[1];
    if (field === undefined || !Object.hasOwn(RUN_FIELDS, field))
      return unknown(
        `Unexpected reference \`${text}\` for ${what}, expected \`run.started_at\``,
        '`run` offers only `run.started_at`, the saved start time of the run',
      );
    if (segments.length > 2) {
      r.report('BP6062', segmentSpan(r, node, segments, 2), `Unexpected suffix on \`run.${field}\`, expected none`);
      return undefined;
    }
    return { kind: 'data', ref: { root: 'run', name: field, path: [], text }, type: RUN_FIELDS[field], producer: undefined };
  }
  if (head === 'environment') {
    const name = segments[1];
    if (name === undefined || !scope.environment.has(name))
      return unknown(`Unexpected reference \`${text}\` for ${what}, expected a declared environment connection`);
    if (segments.length > 2) {
      r.report('BP6062', segmentSpan(r, node, segments, 2), `Unexpected suffix on the connection \`environment.${name}\`, expected none`, {
        hint: 'a connection has no fields; describe what to use in the instructions',
      });
      return undefined;
    }
    return { kind: 'connection', ref: { root: 'environment', name, path: [], text } };
  }
  const output = scope.outputs.get(head);
  if (!output) return unknown(`Unexpected reference \`${text}\` for ${what}, expected ${EXAMPLES}`);
  return suffix(downstreamType(output), 1, { root: 'output', name: head, path: path.slice(1), text }, output.step);
}

function guessHint(scope: MethodScope, text: string): string | undefined {
  const segments = text.split('.');
  const head = segments[0]!;
  if (scope.inputs.has(head)) return `\`${head}\` is an input; write \`inputs.${text}\``;
  if (scope.state.has(head)) return `\`${head}\` is a state; write \`state.${text}\``;
  if (scope.environment.has(head)) return `\`${head}\` is a connection; write \`environment.${head}\``;
  const step = scope.steps.get(head);
  if (step) {
    return step.outputs.length > 0
      ? `\`${head}\` is a step; reference one of its outputs: ${quoteList(step.outputs)}`
      : `\`${head}\` is a step without outputs; to wait for it, write \`after: ${head}\``;
  }
  const candidates = [
    ...scope.outputs.keys(),
    ...[...scope.inputs.keys()].map((n) => `inputs.${n}`),
    ...[...scope.state.keys()].map((n) => `state.${n}`),
    ...[...scope.environment.keys()].map((n) => `environment.${n}`),
    'run.started_at',
  ];
  const written = segments.length >= 2 && !scope.outputs.has(head) ? segments.slice(0, 2).join('.') : head;
  const guess = closest(written, candidates) ?? closest(head, candidates);
  return guess ? `did you mean \`${guess}\`?` : undefined;
}

/** The span of segment `index` when the scalar is written as its value; else the whole scalar. */
function segmentSpan(r: Reporter, node: YNode, segments: readonly string[], index: number): Span {
  if (node.kind !== 'scalar' || typeof node.value !== 'string') return node.span;
  const source = r.lines.text.slice(node.span.start, node.span.end);
  const quoted = node.style === 'single' || node.style === 'double';
  if (!(node.style === 'plain' && source === node.value) && !(quoted && source.slice(1, -1) === node.value)) return node.span;
  const start = node.span.start + (quoted ? 1 : 0) + segments.slice(0, index).reduce((n, s) => n + s.length + 1, 0);
  return { start, end: start + (segments[index]?.length ?? 0) };
}

/** Two references to the same datum with the same suffix. */
export function sameReference(a: Reference, b: Reference): boolean {
  return a.root === b.root && a.name === b.name && a.path.length === b.path.length && a.path.every((p, i) => p === b.path[i]);
}
