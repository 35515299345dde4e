import type { Reporter } from '../diagnostics/reporter.js';
import { closest, quoteList } from '../hints/did-you-mean.js';
import { entry, type YEntry, type YMap, type YNode } from '../source/yaml-tree.js';
import { expectInteger, expectMap, expectSeq, expectString } from './expect.js';
import { andList, code, scalarAt, seqAt, stringsOf } from './model-schema-view.js';

/** MDL-2: the only keys `model.select` accepts, in the spec's order. */
export const SELECT_KEYS = [
  'operation',
  'interaction',
  'input_modalities',
  'output_modalities',
  'supported_parameters',
  'tool_choice',
  'context_length',
  'session',
  'funding',
] as const;

export const OPERATIONS = ['generation', 'classification'];
export const INTERACTIONS = ['request', 'stream', 'session'];
export const STRING_LISTS = ['input_modalities', 'output_modalities', 'supported_parameters', 'tool_choice'];

/** Capabilities binding infers from the routine itself (MDL-5). */
export const INFERRED: Readonly<Record<string, string>> = {
  structured_output: "structured output is inferred during binding from the routine's `output`; remove it",
  tools: "tool support is inferred during binding from the routine's `tools`; remove it",
};

/** MDL-2..5 and the `session` block of MDL-7 on `model.select`. */
export function checkSelect(r: Reporter, selectEntry: YEntry): void {
  const select = expectMap(r, selectEntry.value, 'BP1310', '`model.select`');
  if (!select) return;
  for (const e of select.entries) {
    const inferred = INFERRED[e.key];
    if (inferred !== undefined) {
      r.report('BP1340', e.keySpan, `Unexpected \`${e.key}\` in \`model.select\`, expected only requirements binding cannot infer`, { hint: inferred });
    } else if (!(SELECT_KEYS as readonly string[]).includes(e.key)) {
      r.report('BP1311', e.keySpan, `Unexpected \`${e.key}\` in \`model.select\`, expected one of ${quoteList(SELECT_KEYS)}`, { hint: selectKeyHint(e.key) });
    }
  }

  const operation = entry(select, 'operation');
  if (!operation) {
    r.report('BP1320', selectEntry.keySpan, 'Unexpected `model.select` without `operation`, expected `operation: generation` or `operation: classification`', {
      hint: 'add `operation: generation` (text or JSON results) or `operation: classification` (judgments)',
    });
  } else {
    checkChoice(r, operation.value, 'BP1321', '`model.select.operation`', OPERATIONS);
  }
  const interaction = entry(select, 'interaction');
  if (interaction) checkChoice(r, interaction.value, 'BP1322', '`model.select.interaction`', INTERACTIONS);

  for (const key of STRING_LISTS) {
    const e = entry(select, key);
    if (e) checkStringList(r, e.value, `\`model.select.${key}\``);
  }
  const contextLength = entry(select, 'context_length');
  if (contextLength) checkContextLength(r, contextLength.value);
  const session = entry(select, 'session');
  if (session) checkSessionBlock(r, select, session);
}

function selectKeyHint(key: string): string {
  const guess = closest(key, SELECT_KEYS);
  if (guess) return `did you mean \`${guess}\`?`;
  return `if \`${key}\` is a model setting, it goes directly inside \`model\`, beside \`select\``;
}

function checkChoice(r: Reporter, node: YNode, codeId: 'BP1321' | 'BP1322', what: string, allowed: readonly string[]): void {
  const value = expectString(r, node, codeId, what);
  if (value === undefined || allowed.includes(value)) return;
  const guess = closest(value, allowed);
  r.report(codeId, node, `Unexpected \`${value}\` for ${what}, expected ${quoteList(allowed)}`, { hint: guess ? `did you mean \`${guess}\`?` : undefined });
}

/** MDL-4: the catalog's words are unknown here, so only the shape is checked. */
function checkStringList(r: Reporter, node: YNode, what: string): void {
  if (node.kind === 'scalar' && typeof node.value === 'string' && !node.ref) {
    r.report('BP1330', node, `Unexpected a string for ${what}, expected a list of strings`, {
      hint: `write a list: \`- ${node.value}\` on the next line, indented`,
    });
    return;
  }
  const seq = expectSeq(r, node, 'BP1330', what);
  if (!seq) return;
  for (const item of seq.items) expectString(r, item, 'BP1330', `an item of ${what}`, { nonempty: true });
}

/** MDL-4: exactly `{minimum: N}`, so a later `maximum` or other bound cannot slip in unread. */
function checkContextLength(r: Reporter, node: YNode): void {
  if (node.kind === 'scalar' && typeof node.value === 'number') {
    r.report('BP1331', node, `Unexpected number \`${node.value}\` for \`model.select.context_length\`, expected a mapping with \`minimum\``, {
      hint: `write \`context_length:\` with \`minimum: ${node.value}\` on the next line, indented`,
    });
    return;
  }
  const map = expectMap(r, node, 'BP1331', '`model.select.context_length`');
  if (!map) return;
  for (const e of map.entries) {
    if (e.key === 'minimum') continue;
    r.report('BP1331', e.keySpan, `Unexpected \`${e.key}\` in \`model.select.context_length\`, expected only \`minimum\``, {
      hint: 'a context window is required as a lower bound only: `minimum: N`',
    });
  }
  const minimum = entry(map, 'minimum');
  if (!minimum) {
    r.report('BP1331', node, 'Unexpected `context_length` without `minimum`, expected `minimum: N` (a positive safe integer)');
    return;
  }
  expectInteger(r, minimum.value, 'BP1331', '`model.select.context_length.minimum`', 1);
}

/**
 * MDL-7: `session` exists only for the audio profile. The explicit-trigger (bounded)
 * profile is written by omitting it, so `trigger` accepts `voice_activity` alone, and the
 * profile around it is fixed.
 */
function checkSessionBlock(r: Reporter, select: YMap, session: YEntry): void {
  const block = expectMap(r, session.value, 'BP1362', '`model.select.session`');
  if (!block) return;
  for (const e of block.entries) {
    if (e.key === 'trigger') continue;
    r.report('BP1362', e.keySpan, `Unexpected \`${e.key}\` in \`model.select.session\`, expected only \`trigger\``);
  }
  const trigger = entry(block, 'trigger');
  if (!trigger) {
    r.report('BP1362', session.keySpan, 'Unexpected `session` without `trigger`, expected `trigger: voice_activity`', { hint: BOUNDED_HINT });
    return;
  }
  const value = expectString(r, trigger.value, 'BP1362', '`model.select.session.trigger`');
  if (value === undefined) return;
  if (value !== 'voice_activity') {
    r.report('BP1362', trigger.value, `Unexpected \`${value}\` for \`model.select.session.trigger\`, expected \`voice_activity\``, { hint: BOUNDED_HINT });
    return;
  }
  checkVoiceProfile(r, select, trigger.value);
}

const BOUNDED_HINT =
  'the audio session profile is `trigger: voice_activity`; for an explicit-trigger session, remove `session` and keep `interaction: session`';

const PROFILE_HINT =
  'the audio session profile is `operation: generation`, `interaction: session`, `session` with `trigger: voice_activity`, and `input_modalities` and `output_modalities` both the list `- audio`';

function checkVoiceProfile(r: Reporter, select: YMap, trigger: YNode): void {
  const interaction = scalarAt(select, 'interaction');
  if (interaction === undefined || interaction === 'request' || interaction === 'stream') {
    r.report(
      'BP1363',
      trigger,
      `Unexpected \`trigger: voice_activity\` with ${interaction === undefined ? 'no `interaction`' : code('interaction: ' + interaction)}, expected \`interaction: session\``,
      {
        hint: PROFILE_HINT,
      },
    );
  }
  const operation = entry(select, 'operation');
  if (operation?.value.kind === 'scalar' && operation.value.value === 'classification') {
    r.report('BP1363', operation.value, 'Unexpected `classification` in the audio session profile, expected `operation: generation`', { hint: PROFILE_HINT });
  }
  for (const key of ['input_modalities', 'output_modalities']) {
    const e = entry(select, key);
    if (!e) {
      r.report('BP1363', trigger, `Unexpected audio session profile without \`${key}\`, expected \`${key}\` listing only \`audio\``, { hint: PROFILE_HINT });
      continue;
    }
    const words = stringsOf(seqAt(select, key));
    // A malformed list is MDL-4's to report.
    if (words === undefined) continue;
    if (words.length !== 1 || words[0] !== 'audio') {
      r.report(
        'BP1363',
        e.value,
        `Unexpected ${words.length === 0 ? 'empty list' : andList(words)} for \`${key}\` in the audio session profile, expected only \`audio\``,
        {
          hint: PROFILE_HINT,
        },
      );
    }
  }
}
