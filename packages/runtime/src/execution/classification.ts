import { failure } from '../errors.js';
import { isPlainObject, own } from '../json.js';
import type { ClassificationResponse } from '../providers/provider.js';

/** A named question of classification without `output` (docs/runtime.md, "Classification results"). */
export type Question = { kind: 'noul' } | { kind: 'choice'; choices: string[] } | { kind: 'score' };

const QUESTION_KINDS = ['choice', 'noul', 'score'];
const QUESTION_FIELDS: Record<string, string[]> = { noul: ['description', 'kind'], choice: ['choices', 'description', 'kind'], score: ['description', 'kind'] };

/**
 * Classification without `output` (spec: "supply {state, questions} for the current
 * observations; named noul, choice or score questions return {answers, usage, metadata}"): the
 * input must be `{state, questions}` with named questions of those kinds, checked before
 * inference. Each question is `{kind, description?}`; a `choice` names its `choices` (at least
 * two distinct nonempty strings).
 */
export function checkQuestions(routine: string, input: unknown): Map<string, Question> {
  const questions = isPlainObject(input) ? own(input, 'questions') : undefined;
  if (!isPlainObject(input) || !Object.hasOwn(input, 'state') || !isPlainObject(questions) || Object.keys(questions).length === 0) {
    throw failure(
      'invalid-input',
      `Unexpected input for classification \`${routine}\` without \`output\`, expected {state, questions} with at least one named question`,
    );
  }
  const checked = new Map<string, Question>();
  for (const name of Object.keys(questions).sort()) {
    const question = questions[name];
    const refuse = (what: string, expected: string) => {
      throw failure('invalid-input', `Unexpected ${what} in question \`${name}\` of classification \`${routine}\`, expected ${expected}`);
    };
    const kind = isPlainObject(question) ? own(question, 'kind') : undefined;
    if (!isPlainObject(question) || typeof kind !== 'string' || !QUESTION_KINDS.includes(kind))
      refuse(isPlainObject(question) ? `kind ${JSON.stringify(kind ?? null)}` : 'value', 'an object with `kind` noul, choice or score');
    const q = question as Record<string, unknown>;
    const extra = Object.keys(q).filter((k) => !QUESTION_FIELDS[kind as string]!.includes(k));
    if (extra.length > 0) refuse(`field \`${extra[0]}\``, `only ${QUESTION_FIELDS[kind as string]!.join(', ')} for a ${String(kind)} question`);
    if (Object.hasOwn(q, 'description') && typeof q['description'] !== 'string') refuse('`description`', 'a string');
    if (kind === 'choice') {
      const choices = q['choices'];
      if (!Array.isArray(choices) || choices.length < 2 || new Set(choices).size !== choices.length || !choices.every((c) => typeof c === 'string' && c !== ''))
        refuse('`choices`', 'at least two distinct nonempty strings');
      checked.set(name, { kind: 'choice', choices: [...(choices as string[])] });
    } else checked.set(name, { kind: kind as 'noul' | 'score' });
  }
  return checked;
}

/**
 * Whether an answer fits its question (decision, the spec names the kinds only): a `noul`
 * answers `true`, `false` or `null` (not known: missing evidence is not a no), a `choice` one of
 * its choices, a `score` a number from 0 to 1.
 */
function fits(question: Question, answer: unknown): boolean {
  if (question.kind === 'noul') return answer === null || typeof answer === 'boolean';
  if (question.kind === 'choice') return typeof answer === 'string' && question.choices.includes(answer);
  return typeof answer === 'number' && answer >= 0 && answer <= 1;
}

const EXPECTED: Record<Question['kind'], string> = { noul: 'true, false or null', choice: 'one of its choices', score: 'a number from 0 to 1' };

/** The spec's result shape: every question answered by its kind, with the decision's usage and metadata. */
export function questionsResult(
  routine: string,
  questions: ReadonlyMap<string, Question>,
  response: ClassificationResponse,
): { answers: Record<string, unknown>; usage: unknown; metadata: Record<string, unknown> } {
  const names = [...questions.keys()];
  const output = response.output;
  const answers = isPlainObject(output) && isPlainObject(output['answers']) ? output['answers'] : isPlainObject(output) ? output : undefined;
  const given = answers === undefined ? [] : Object.keys(answers).sort();
  if (answers === undefined || given.join('\n') !== names.join('\n')) {
    throw failure(
      'invalid-output',
      `Unexpected answers of \`${routine}\` for ${given.length === 0 ? 'no question' : given.join(', ')}, expected exactly one answer per question (${names.join(', ')})`,
    );
  }
  for (const [name, question] of questions) {
    if (!fits(question, answers[name]))
      throw failure(
        'invalid-output',
        `Unexpected answer ${JSON.stringify(answers[name])} of \`${routine}\` to ${question.kind} question \`${name}\`, expected ${question.kind === 'choice' ? `one of ${question.choices.map((c) => JSON.stringify(c)).join(', ')}` : EXPECTED[question.kind]}`,
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
