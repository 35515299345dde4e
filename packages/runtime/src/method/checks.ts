import { readFileSync } from 'node:fs';
import path from 'node:path';
import { isPlainObject } from '../json.js';
import { isFileValue, preview, sameJson } from './data-values.js';
import type { JudgeRequest, MethodJudge } from './judge.js';
import type { CheckSpec } from '@berrypack/compiler/method-types';
import type { CheckRecord } from './run-record.js';
import { sha256 } from './atomic-file.js';

export interface CheckContext {
  /** Local inputs (`in`, `each`) and outputs by name; an absent name has no recorded value. */
  locals: Record<string, unknown>;
  dataDir: string;
  judge: MethodJudge | undefined;
  /** Everything a judge receives but the criteria. */
  evidence: Omit<JudgeRequest, 'criteria'>;
  now: () => string;
}

type Verdict = Pick<CheckRecord, 'status' | 'reason'>;

/**
 * MTH-9/MTH-18: exact forms evaluated mechanically, plain English by the judge. A name without
 * a recorded value, or no judge, is `ambiguous` (not enough evidence), never `passed`.
 */
export async function runCheck(spec: CheckSpec, context: CheckContext): Promise<CheckRecord> {
  const verdict = spec.kind === 'english' ? await judged(spec.text, context) : mechanical(spec, context);
  return { kind: spec.kind, status: verdict.status, ...(verdict.reason === undefined ? {} : { reason: verdict.reason }), at: context.now() };
}

function mechanical(spec: Exclude<CheckSpec, { kind: 'english' }>, context: CheckContext): Verdict {
  const names = spec.kind === 'equals' ? [spec.actual, spec.expected] : [spec.kind === 'count' ? spec.value : spec.name];
  const absent = names.find((n) => !Object.hasOwn(context.locals, n));
  if (absent !== undefined) return { status: 'ambiguous', reason: `\`${absent}\` has no recorded value` };
  const at = (name: string): unknown => context.locals[name];
  switch (spec.kind) {
    case 'equals': {
      const [a, b] = [at(spec.actual), at(spec.expected)];
      return sameJson(a, b)
        ? { status: 'passed', reason: `\`${spec.actual}\` equals \`${spec.expected}\`` }
        : { status: 'failed', reason: `\`${spec.actual}\` is ${preview(a)}, expected ${preview(b)} (\`${spec.expected}\`)` };
    }
    case 'count': {
      const value = at(spec.value);
      if (!Array.isArray(value)) return { status: 'failed', reason: `\`${spec.value}\` is not a list` };
      const bounds = [spec.min === undefined ? undefined : `at least ${spec.min}`, spec.max === undefined ? undefined : `at most ${spec.max}`]
        .filter(Boolean)
        .join(' and ');
      const ok = (spec.min === undefined || value.length >= spec.min) && (spec.max === undefined || value.length <= spec.max);
      return { status: ok ? 'passed' : 'failed', reason: `\`${spec.value}\` has ${value.length} item${value.length === 1 ? '' : 's'}, expected ${bounds}` };
    }
    case 'present': {
      const value = at(spec.name);
      return isPresent(value)
        ? { status: 'passed', reason: `\`${spec.name}\` is present` }
        : { status: 'failed', reason: `\`${spec.name}\` is empty (${preview(value)})` };
    }
    case 'file':
      return fileCheck(spec.name, at(spec.name), context.dataDir);
  }
}

/** Present: not null, and not an empty text, list, record or file. */
function isPresent(value: unknown): boolean {
  if (value === null || value === undefined) return false;
  if (typeof value === 'string') return value.trim() !== '';
  if (Array.isArray(value)) return value.length > 0;
  if (isFileValue(value)) return value.size > 0;
  if (isPlainObject(value)) return Object.keys(value).length > 0;
  return true;
}

/** The saved bytes are there and still hash to what was recorded; the content is not judged. */
function fileCheck(name: string, value: unknown, dataDir: string): Verdict {
  if (!isFileValue(value)) return { status: 'failed', reason: `\`${name}\` is not a saved file` };
  let bytes: Buffer;
  try {
    bytes = readFileSync(path.join(dataDir, ...value.path.split('/')));
  } catch (error) {
    return { status: 'failed', reason: `\`${name}\` (${value.path}) cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` };
  }
  const hash = sha256(bytes);
  if (hash !== value.sha256 || bytes.length !== value.size) {
    return {
      status: 'failed',
      reason: `\`${name}\` (${value.path}) has ${bytes.length} bytes with sha256 ${hash}, recorded ${value.size} bytes with sha256 ${value.sha256}`,
    };
  }
  return { status: 'passed', reason: `\`${name}\` is saved (${value.size} bytes, sha256 ${value.sha256})` };
}

async function judged(criteria: string, context: CheckContext): Promise<Verdict> {
  if (!context.judge) return { status: 'ambiguous', reason: 'no judge: a plain-English check needs a judge to decide' };
  try {
    const verdict = await context.judge({ ...context.evidence, criteria });
    if (!isPlainObject(verdict) || !['passed', 'failed', 'ambiguous'].includes(verdict.verdict)) {
      return { status: 'ambiguous', reason: `the judge returned no verdict (${preview(verdict)})` };
    }
    return { status: verdict.verdict, ...(typeof verdict.reason === 'string' ? { reason: verdict.reason } : {}) };
  } catch (error) {
    return { status: 'ambiguous', reason: `the judge failed: ${error instanceof Error ? error.message : String(error)}` };
  }
}
