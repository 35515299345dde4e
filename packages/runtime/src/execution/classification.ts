import { failure } from '../errors.js';
import { isPlainObject, own } from '../json.js';
import type { ClassificationResponse } from '../providers/provider.js';

/**
 * Classification without `output` (spec: "supply {state, questions} for the current
 * observations; named … questions return {answers, usage, metadata}"): the input must be
 * `{state, questions}` with named questions, checked before inference.
 */
export function checkQuestions(routine: string, input: unknown): string[] {
  const questions = isPlainObject(input) ? own(input, 'questions') : undefined;
  if (!isPlainObject(input) || !Object.hasOwn(input, 'state') || !isPlainObject(questions) || Object.keys(questions).length === 0) {
    throw failure(
      'invalid-input',
      `Unexpected input for classification \`${routine}\` without \`output\`, expected {state, questions} with at least one named question`,
    );
  }
  return Object.keys(questions).sort();
}

/** The spec's result shape: every question answered, with the decision's usage and metadata. */
export function questionsResult(
  routine: string,
  names: readonly string[],
  response: ClassificationResponse,
): { answers: Record<string, unknown>; usage: unknown; metadata: Record<string, unknown> } {
  const output = response.output;
  const answers = isPlainObject(output) && isPlainObject(output['answers']) ? output['answers'] : isPlainObject(output) ? output : undefined;
  const given = answers === undefined ? [] : Object.keys(answers).sort();
  if (answers === undefined || given.join('\n') !== names.join('\n')) {
    throw failure(
      'invalid-output',
      `Unexpected answers of \`${routine}\` for ${given.length === 0 ? 'no question' : given.join(', ')}, expected exactly one answer per question (${names.join(', ')})`,
    );
  }
  const metadata = isPlainObject(output) && isPlainObject(output['metadata']) ? output['metadata'] : {};
  return { answers, usage: response.usage ?? null, metadata };
}

/** A distribution (propertyNames of constants, numeric additionalProperties) gives every choice its probability. */
export function checkDistribution(routine: string, schema: unknown, value: unknown): void {
  if (!isPlainObject(schema) || !isPlainObject(value)) return;
  const extra = own(schema, 'additionalProperties');
  if (!isPlainObject(extra) || (extra['type'] !== 'number' && extra['type'] !== 'integer')) return;
  const names = own(schema, 'propertyNames');
  const enumeration = isPlainObject(names) ? own<unknown[]>(names, 'enum') : undefined;
  const oneOf = isPlainObject(names) ? own<unknown[]>(names, 'oneOf') : undefined;
  const choices = Array.isArray(enumeration) ? enumeration : Array.isArray(oneOf) ? oneOf.map((b) => (isPlainObject(b) ? b['const'] : undefined)) : [];
  const missing = choices.filter((c): c is string => typeof c === 'string' && !Object.hasOwn(value, c));
  if (missing.length > 0)
    throw failure(
      'invalid-output',
      `Unexpected distribution from \`${routine}\` without ${missing.map((m) => JSON.stringify(m)).join(', ')}, expected every choice with its probability`,
    );
}
