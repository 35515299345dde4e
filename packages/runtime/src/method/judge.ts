import { readFileSync } from 'node:fs';
import path from 'node:path';
import { canonicalJson } from '@berrypack/compiler/bundle';
import { isPlainObject } from '../json.js';
import type { ModelBinding, ModelProvider, Script } from '../providers/provider.js';
import { createScriptedProvider } from '../providers/scripted.js';
import { isFileValue } from './data-values.js';
import type { DataType } from '@berrypack/compiler/method-types';
import type { ChangeRecord } from './run-record.js';

/** A plain-English check: the criteria and the evidence (local inputs, outputs, before/after of changes). */
export interface JudgeRequest {
  runId: string;
  step: string;
  item?: { index: number; value: unknown };
  criteria: string;
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown>;
  changes: Record<string, ChangeRecord>;
  /** The step's n-th judgement in this run, from 0. */
  sequence: number;
  /** Saved files (`{path, sha256, …}` values) are relative to it. */
  dataDir: string;
}

export interface JudgeVerdict {
  verdict: 'passed' | 'failed' | 'ambiguous';
  reason?: string;
}

export type MethodJudge = (request: JudgeRequest) => Promise<JudgeVerdict> | JudgeVerdict;

/** An `ask`: the saved request; a human callback may answer at once or leave it waiting. */
export interface HumanRequest {
  runId: string;
  step: string;
  title?: string;
  item?: { index: number; value: unknown };
  request: string;
  inputs: Record<string, unknown>;
  /** The declared `out` the response must fill. */
  outputs: Record<string, DataType>;
}

/** `{response}` answers now (validated like `resumeMethod`'s); undefined leaves the request waiting. */
export type MethodHuman = (request: HumanRequest) => Promise<{ response: unknown } | undefined> | { response: unknown } | undefined;

const VERDICT_SCHEMA = {
  type: 'object',
  properties: {
    verdict: { enum: ['passed', 'failed', 'ambiguous'], description: 'ambiguous when the evidence is not enough to decide' },
    reason: { type: 'string' },
  },
  required: ['verdict', 'reason'],
  additionalProperties: false,
};

/** Text files a judge sees inline; larger or binary files only by their hash. */
const INLINE_FILE_BYTES = 256 * 1024;

/**
 * A judge backed by a model provider: one generation per check, routine `<step>.check`, output
 * `{verdict, reason}`. Without a provider it is the embedded scripted one, which judges only
 * the checks its script answers (`script["<step>.check"]`): for any other it would synthesize
 * the first verdict, a pass no one decided, so those stay ambiguous.
 */
export function createProviderJudge(options: { provider?: ModelProvider; binding?: ModelBinding; script?: Script } = {}): MethodJudge {
  const provider = options.provider ?? createScriptedProvider(options.script ? { script: options.script } : {});
  const binding: ModelBinding = options.binding ?? { provider: 'scripted', ...(options.script ? { script: options.script } : {}) };
  const scriptOnly = options.provider === undefined;
  return async (request) => {
    if (scriptOnly && !(options.script && Object.hasOwn(options.script, `${request.step}.check`))) {
      return { verdict: 'ambiguous', reason: `no judge: the script has no \`${request.step}.check\` entry` };
    }
    const evidence = {
      inputs: request.inputs,
      outputs: request.outputs,
      changes: request.changes,
      files: fileTexts(request),
      ...(request.item ? { item: request.item } : {}),
    };
    const response = await provider.generate(
      {
        routine: `${request.step}.check`,
        sequence: request.sequence,
        connection: binding,
        instructions: `You are an independent reviewer. Decide from the evidence alone whether these criteria hold:\n\n${request.criteria}\n\nAnswer passed, failed, or ambiguous when the evidence is not enough, with a one-sentence reason.`,
        settings: {},
        output: VERDICT_SCHEMA,
        messages: [{ role: 'user', content: canonicalJson(evidence) }],
        tools: [],
      },
      new AbortController().signal,
    );
    const value = 'output' in response ? response.output : 'text' in response ? safeParse(response.text) : undefined;
    if (!isPlainObject(value) || !['passed', 'failed', 'ambiguous'].includes(value['verdict'] as string)) {
      return { verdict: 'ambiguous', reason: 'the judge gave no verdict' };
    }
    return { verdict: value['verdict'] as JudgeVerdict['verdict'], ...(typeof value['reason'] === 'string' ? { reason: value['reason'] } : {}) };
  };
}

function fileTexts(request: JudgeRequest): Record<string, string> {
  const texts: Record<string, string> = {};
  for (const [name, value] of Object.entries({ ...request.inputs, ...request.outputs })) {
    if (!isFileValue(value) || value.size > INLINE_FILE_BYTES) continue;
    try {
      const text = new TextDecoder('utf-8', { fatal: true }).decode(readFileSync(path.join(request.dataDir, ...value.path.split('/'))));
      texts[name] = text;
    } catch {
      // Binary or unreadable: the judge sees the file's hash only.
    }
  }
  return texts;
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
