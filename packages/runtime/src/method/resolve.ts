import { canonicalJson } from '@berrypack/compiler/bundle';
import { isPlainObject } from '../json.js';
import { isFileValue } from './data-values.js';
import type { CompiledMethod, Reference } from '@berrypack/compiler/method-types';
import type { RunRecord } from './run-record.js';

export type Resolution =
  | { ok: true; value: unknown }
  /** `skipped`: the producer was skipped and produced no value; `missing`: anything else absent. */
  | { ok: false; kind: 'skipped' | 'missing'; producer?: string; reason: string };

export interface ResolveScope {
  method: CompiledMethod;
  record: RunRecord;
  /** A state's current value; throws a `state-*` failure. */
  state(name: string): unknown;
}

/** MTH-7 at run time: a reference to its value, or why there is none ("missing references stop the operation"). */
export function resolveReference(scope: ResolveScope, ref: Reference): Resolution {
  let base: unknown;
  switch (ref.root) {
    case 'inputs':
      if (!Object.hasOwn(scope.record.inputs, ref.name)) return { ok: false, kind: 'missing', reason: `the run has no input \`${ref.name}\`` };
      base = scope.record.inputs[ref.name];
      break;
    case 'state':
      base = scope.state(ref.name);
      break;
    case 'run':
      base = scope.record.startedAt;
      break;
    case 'environment':
      return { ok: true, value: { connection: ref.name, type: scope.method.environment[ref.name]?.type } };
    case 'output': {
      const producer = scope.method.outputs[ref.name]?.step;
      const record = producer === undefined ? undefined : scope.record.steps[producer];
      if (producer === undefined || !record) return { ok: false, kind: 'missing', reason: `no step produces \`${ref.name}\`` };
      if (record.status === 'skipped')
        return {
          ok: false,
          kind: 'skipped',
          producer,
          reason: `step \`${producer}\` was skipped${record.reason ? ` (${record.reason})` : ''}, so \`${ref.name}\` has no value`,
        };
      if (!record.outputs || !Object.hasOwn(record.outputs, ref.name)) {
        const why =
          record.confirmed === 'done' || record.items?.some((i) => i.confirmed === 'done')
            ? 'was confirmed done without recorded outputs'
            : 'recorded no value for it';
        return { ok: false, kind: 'missing', producer, reason: `step \`${producer}\` ${why}, so \`${ref.name}\` has no value` };
      }
      base = record.outputs[ref.name];
      break;
    }
  }
  return walk(base, ref);
}

function walk(value: unknown, ref: Reference): Resolution {
  let current = value;
  for (let i = 0; i < ref.path.length; i++) {
    const segment = ref.path[i]!;
    const shown = [ref.root === 'output' ? ref.name : `${ref.root}.${ref.name}`, ...ref.path.slice(0, i + 1)].join('.');
    if (typeof segment === 'number') {
      if (!Array.isArray(current) || segment >= current.length) {
        return {
          ok: false,
          kind: 'missing',
          reason: `\`${shown}\` does not exist${Array.isArray(current) ? ` (the list has ${current.length} item${current.length === 1 ? '' : 's'})` : ''}`,
        };
      }
      current = current[segment];
    } else {
      if (!isPlainObject(current) || !Object.hasOwn(current, segment)) return { ok: false, kind: 'missing', reason: `\`${shown}\` does not exist` };
      current = current[segment];
    }
  }
  return { ok: true, value: current };
}

/** The same placeholder shape as the compiler's `findPlaceholders` (MTH-8). */
const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*)\s*\}\}/g;

/**
 * `{{alias}}` and `{{alias.field}}` replaced once: substituted values are never scanned again,
 * so input data cannot add instructions. Strings as they are, a file as its path, anything else
 * as canonical JSON (the caller passes a connection as its name). Throws the first placeholder
 * without a value.
 */
export function substitute(text: string, locals: Readonly<Record<string, unknown>>): string {
  return text.replace(PLACEHOLDER, (whole, dotted: string) => {
    const [alias, ...rest] = dotted.split('.');
    if (!Object.hasOwn(locals, alias!)) return whole;
    let current: unknown = locals[alias!];
    for (const segment of rest) {
      const index = /^(?:0|[1-9][0-9]{0,8})$/.test(segment) ? Number(segment) : undefined;
      if (index !== undefined && Array.isArray(current) && index < current.length) current = current[index];
      else if (index === undefined && isPlainObject(current) && Object.hasOwn(current, segment)) current = current[segment];
      else throw new MissingValue(`\`${whole}\` has no value: \`${dotted}\` does not exist`);
    }
    return render(current);
  });
}

function render(value: unknown): string {
  if (typeof value === 'string') return value;
  if (isFileValue(value)) return value.path;
  return canonicalJson(value);
}

/** A reference or placeholder without a value: the step stops (it does not fail on its own). */
export class MissingValue extends Error {
  override name = 'MissingValue';
}
