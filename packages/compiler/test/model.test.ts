import { describe, expect, it } from 'vitest';
import { check, diagnose, HEAD, summary } from '../../../test/support/diagnose.js';
import type { Diagnostic } from '../src/diagnostics/diagnostic.js';
import { modelCodes } from '../src/diagnostics/codes/model.js';
import { Reporter } from '../src/diagnostics/reporter.js';
import { entry } from '../src/source/yaml-tree.js';
import { checkModelSettings, type ModelCatalog } from '../src/routine/check-model.js';
import { checkSource } from '../src/routine/check-routine.js';

/** Lines 2–3 of every case: the identity every routine needs. */
const ID = 'name: notes.answer\ndescription: Answers a question.\n';
const PORTS = 'port:\n  input: true\n  output: true\n  limits:\n    bytes: 1048576\n    messages: 64\n    pending: 8\n';

function only(diagnostics: readonly Diagnostic[], rule: string): Diagnostic[] {
  return diagnostics.filter((d) => d.rule === rule);
}

function first(frontmatter: string): Diagnostic {
  const [d] = diagnose(frontmatter);
  if (!d) throw new Error('expected a diagnostic');
  return d;
}

describe('MDL-1: `select` or `provider` and `id`', () => {
  it('accepts `select` alone and `provider` with `id`', () => {
    expect(diagnose(HEAD.model)).toEqual([]);
    expect(diagnose(ID + 'model:\n  provider: acme\n  id: echo-1\n')).toEqual([]);
  });

  it('refuses a `model` that is not a mapping', () => {
    const d = diagnose(ID + 'model: fast\n');
    expect(summary(d)).toEqual(['BP1300 MDL-1 4:8']);
    expect(d[0]!.message).toBe('Unexpected a string for `model`, expected a mapping');
  });

  it('refuses `model` with neither, pointing at the mapping', () => {
    const d = diagnose(ID + 'model:\n  max_output_tokens: 800\n');
    expect(summary(d)).toEqual(['BP1301 MDL-1 5:3']);
    expect(d[0]!.message).toBe('Unexpected `model` without `select` or `provider` and `id`, expected one of them');
    expect(d[0]!.hint).toContain('add `select:` with `operation: generation`');
  });

  it('refuses both, pointing at `provider` with `select` related', () => {
    const d = diagnose(ID + 'model:\n  select:\n    operation: generation\n  provider: acme\n  id: echo-1\n');
    expect(summary(d)).toEqual(['BP1302 MDL-1 7:3']);
    expect(d[0]!.message).toBe('Unexpected `provider` beside `select`, expected either `select` or `provider` and `id`');
    expect(d[0]!.related).toEqual([{ file: '/pkg/routine.md', line: 5, column: 3, message: '`select` is here' }]);
  });

  it('refuses `provider` without `id` and `id` without `provider`', () => {
    const p = diagnose(ID + 'model:\n  provider: acme\n');
    expect(summary(p)).toEqual(['BP1303 MDL-1 5:3']);
    expect(p[0]!.message).toBe('Unexpected `provider` without `id`, expected both `provider` and `id`');
    const i = diagnose(ID + 'model:\n  id: echo-1\n');
    expect(summary(i)).toEqual(['BP1303 MDL-1 5:3']);
    expect(i[0]!.hint).toBe('add `provider:` from env.runtime.models, or use `select` instead');
  });

  it('refuses a `provider` or `id` that is not a nonempty string', () => {
    const d = diagnose(ID + "model:\n  provider: ''\n  id: 7\n");
    expect(summary(d)).toEqual(['BP1304 MDL-1 5:13', 'BP1304 MDL-1 6:7']);
    expect(d[1]!.message).toBe('Unexpected a number for `model.id`, expected a string');
    expect(d[1]!.hint).toBe("quote it to make it a string: `'7'`");
  });

  it('refuses `model:` with nothing after it as SRC-4', () => {
    expect(summary(diagnose(ID + 'model:\n'))).toEqual(['BP1030 SRC-4 4:7']);
  });
});

describe('MDL-2: the keys of `select`', () => {
  it('accepts every one of the nine keys', () => {
    const fm =
      ID +
      'model:\n  select:\n    operation: generation\n    interaction: stream\n' +
      '    input_modalities:\n      - text\n      - image\n    output_modalities:\n      - text\n' +
      '    supported_parameters:\n      - tools\n    tool_choice:\n      - auto\n' +
      '    context_length:\n      minimum: 32000\n    funding: owner\n';
    expect(diagnose(fm)).toEqual([]);
  });

  it('refuses an unknown key with did-you-mean', () => {
    const d = diagnose(HEAD.model + '    input_modality:\n      - text\n');
    expect(summary(d)).toEqual(['BP1311 MDL-2 7:5']);
    expect(d[0]!.message).toMatch(/^Unexpected `input_modality` in `model.select`, expected one of `operation`, `interaction`/);
    expect(d[0]!.hint).toBe('did you mean `input_modalities`?');
  });

  it('refuses a setting inside `select`, pointing it up into `model`', () => {
    const d = diagnose(HEAD.model + '    max_output_tokens: 800\n');
    expect(summary(d)).toEqual(['BP1311 MDL-2 7:5']);
    expect(d[0]!.hint).toBe('if `max_output_tokens` is a model setting, it goes directly inside `model`, beside `select`');
  });

  it('refuses a `select` that is not a mapping', () => {
    const d = diagnose(ID + 'model:\n  select: generation\n');
    expect(summary(d)).toEqual(['BP1310 MDL-2 5:11']);
    expect(d[0]!.message).toBe('Unexpected a string for `model.select`, expected a mapping');
  });
});

describe('MDL-3: `operation` and `interaction`', () => {
  it('accepts both operations and the three interactions', () => {
    for (const op of ['generation', 'classification']) {
      for (const interaction of ['request', 'stream']) {
        expect(diagnose(ID + `model:\n  select:\n    operation: ${op}\n    interaction: ${interaction}\n`)).toEqual([]);
      }
    }
    expect(diagnose(ID + 'model:\n  select:\n    operation: generation\n    interaction: session\n')).toEqual([]);
  });

  it('refuses a `select` without `operation`, at the `select` key', () => {
    const d = diagnose(ID + 'model:\n  select:\n    interaction: request\n');
    expect(summary(d)).toEqual(['BP1320 MDL-3 5:3']);
    expect(d[0]!.message).toBe('Unexpected `model.select` without `operation`, expected `operation: generation` or `operation: classification`');
  });

  it('refuses an unknown operation, with did-you-mean for a near miss', () => {
    const d = diagnose(ID + 'model:\n  select:\n    operation: generaton\n');
    expect(summary(d)).toEqual(['BP1321 MDL-3 6:16']);
    expect(d[0]!.message).toBe('Unexpected `generaton` for `model.select.operation`, expected `generation` or `classification`');
    expect(d[0]!.hint).toBe('did you mean `generation`?');
  });

  it('refuses an unknown interaction', () => {
    const d = diagnose(HEAD.model + '    interaction: batch\n');
    expect(summary(d)).toEqual(['BP1322 MDL-3 7:18']);
    expect(d[0]!.message).toBe('Unexpected `batch` for `model.select.interaction`, expected `request`, `stream` or `session`');
  });
});

describe('MDL-4: lists of strings and `context_length`', () => {
  it('accepts string lists and `context_length` with a positive `minimum`', () => {
    const fm = HEAD.model + '    output_modalities:\n      - text\n    context_length:\n      minimum: 1\n';
    expect(diagnose(fm)).toEqual([]);
  });

  it('refuses a single word where a list is required, with the list as the fix', () => {
    const d = diagnose(HEAD.model + '    input_modalities: text\n');
    expect(summary(d)).toEqual(['BP1330 MDL-4 7:23']);
    expect(d[0]!.message).toBe('Unexpected a string for `model.select.input_modalities`, expected a list of strings');
    expect(d[0]!.hint).toBe('write a list: `- text` on the next line, indented');
  });

  it('refuses a list item that is not a string', () => {
    const d = diagnose(HEAD.model + '    tool_choice:\n      - 1\n');
    expect(summary(d)).toEqual(['BP1330 MDL-4 8:9']);
    expect(d[0]!.message).toBe('Unexpected a number for an item of `model.select.tool_choice`, expected a string');
  });

  it('refuses a scalar `context_length` with the expanded form as hint', () => {
    const d = diagnose(HEAD.model + '    context_length: 32000\n');
    expect(summary(d)).toEqual(['BP1331 MDL-4 7:21']);
    expect(d[0]!.message).toBe('Unexpected number `32000` for `model.select.context_length`, expected a mapping with `minimum`');
    expect(d[0]!.hint).toBe('write `context_length:` with `minimum: 32000` on the next line, indented');
  });

  it('refuses a `minimum` that is not positive and a key beside it', () => {
    const d = diagnose(HEAD.model + '    context_length:\n      minimum: 0\n      maximum: 9\n');
    expect(summary(d)).toEqual(['BP1331 MDL-4 9:7', 'BP1331 MDL-4 8:16']);
    expect(d[0]!.message).toBe('Unexpected `maximum` in `model.select.context_length`, expected only `minimum`');
    expect(d[1]!.message).toBe('Unexpected `0` for `model.select.context_length.minimum`, expected a positive safe integer');
  });
});

describe('MDL-5: inferred capabilities and descriptor fields', () => {
  it('refuses `select.structured_output` and `select.tools` with the explanation', () => {
    const d = diagnose(HEAD.model + '    structured_output: true\n    tools: true\n');
    expect(summary(d)).toEqual(['BP1340 MDL-5 7:5', 'BP1340 MDL-5 8:5']);
    expect(d[0]!.message).toBe('Unexpected `structured_output` in `model.select`, expected only requirements binding cannot infer');
    expect(d[0]!.hint).toBe("structured output is inferred during binding from the routine's `output`; remove it");
    expect(d[1]!.hint).toBe("tool support is inferred during binding from the routine's `tools`; remove it");
  });

  it('refuses descriptor fields in `model`', () => {
    const d = diagnose(HEAD.model + '  structured_output: true\n  pricing: cheap\n  max_input_tokens: 32000\n');
    expect(summary(d)).toEqual(['BP1341 MDL-5 7:3', 'BP1341 MDL-5 8:3', 'BP1341 MDL-5 9:3']);
    expect(d[2]!.message).toBe(
      'Unexpected `max_input_tokens` in `model`, expected model settings: `max_input_tokens` is a descriptor field of the model catalog',
    );
    expect(d[2]!.hint).toBe('to require a context window, write `context_length:` with `minimum: N` inside `model.select`');
  });

  it('accepts structured output declared by `output` and a real setting beside `select`', () => {
    expect(diagnose(HEAD.model + '  max_output_tokens: 4000\noutput:\n  type: boolean\n')).toEqual([]);
  });
});

describe('MDL-6: settings sit directly in `model`', () => {
  it('accepts settings beside `select` and beside `provider`/`id` without a catalog (deferred)', () => {
    const settings =
      '  max_output_tokens: 4000\n  effort: high\n  temperature: 0.2\n  top_p: 0.9\n  top_k: 40\n  seed: 7\n  reasoning:\n    summary: auto\n  verbosity: low\n  stop:\n    - END\n';
    expect(diagnose(HEAD.model + settings)).toEqual([]);
    expect(diagnose(ID + 'model:\n  provider: acme\n  id: echo-1\n' + settings)).toEqual([]);
  });

  it('refuses `settings:` with the hint to move its keys up', () => {
    const d = diagnose(HEAD.model + '  settings:\n    max_output_tokens: 800\n    effort: low\n');
    expect(summary(d)).toEqual(['BP1350 MDL-6 7:3']);
    expect(d[0]!.message).toBe('Unexpected `settings` in `model`, expected each setting directly inside `model`, beside `select`');
    expect(d[0]!.hint).toBe('move `max_output_tokens` and `effort` up into `model` and remove `settings`');
  });

  it('refuses keys that are plainly not settings as SRC-3, with where they belong', () => {
    const d = diagnose(ID + 'model:\n  selct:\n    operation: generation\n  interaction: stream\n  tools: []\n');
    expect(summary(d)).toEqual(['BP1301 MDL-1 5:3', 'BP1020 SRC-3 5:3', 'BP1020 SRC-3 7:3', 'BP1020 SRC-3 8:3']);
    expect(d[1]!.message).toBe('Unexpected field `selct` in `model`, expected `select`, `provider`, `id` or a model setting');
    expect(d[1]!.hint).toBe('did you mean `select`?');
    expect(d[2]!.hint).toBe('`interaction` belongs inside `model.select`');
    expect(d[3]!.hint).toBe('`tools` is a routine field; it belongs at the top level of the frontmatter, not inside `model`');
  });
});

describe('MDL-6 with a catalog: checkModelSettings', () => {
  const catalog: ModelCatalog = {
    models: [
      {
        provider: 'acme',
        id: 'echo-1',
        operations: ['generation'],
        interactions: ['request', 'stream'],
        settings: {
          type: 'object',
          properties: {
            max_output_tokens: { type: 'integer', minimum: 1, maximum: 8192 },
            effort: { enum: ['low', 'medium', 'high'] },
          },
        },
      },
      {
        provider: 'acme',
        id: 'judge-1',
        operations: ['classification'],
        settings: { type: 'object', properties: { temperature: { type: 'number', minimum: 0, maximum: 2 } } },
      },
      { provider: 'other', id: 'plain-1', operations: ['generation'] },
    ],
  };

  function withCatalog(frontmatter: string): Diagnostic[] {
    const routine = check(frontmatter).routine;
    if (!routine) throw new Error('expected a routine');
    const model = entry(routine.frontmatter, 'model');
    if (!model) throw new Error('expected `model`');
    const reporter = new Reporter(routine.file, routine.lines);
    checkModelSettings(reporter, model.value, catalog);
    return reporter.diagnostics;
  }

  it('accepts declared settings within range, for `provider`/`id` and for `select`', () => {
    expect(withCatalog(ID + 'model:\n  provider: acme\n  id: echo-1\n  max_output_tokens: 8192\n  effort: low\n')).toEqual([]);
    expect(withCatalog(HEAD.classify + '  temperature: 0\n')).toEqual([]);
  });

  it('refuses an unknown provider and an unknown id, with did-you-mean', () => {
    const p = withCatalog(ID + 'model:\n  provider: acne\n  id: echo-1\n');
    expect(summary(p)).toEqual(['BP1351 MDL-6 5:13']);
    expect(p[0]!.message).toBe("Unexpected provider `acne`, expected one of the catalog's providers `acme` or `other`");
    expect(p[0]!.hint).toBe('did you mean `acme`?');
    const i = withCatalog(ID + 'model:\n  provider: acme\n  id: echo-2\n');
    expect(summary(i)).toEqual(['BP1351 MDL-6 6:7']);
    expect(i[0]!.message).toBe('Unexpected id `echo-2` for provider `acme`, expected one of `echo-1` or `judge-1`');
    expect(i[0]!.hint).toBe('did you mean `echo-1`?');
    const elsewhere = withCatalog(ID + 'model:\n  provider: acme\n  id: plain-1\n');
    expect(elsewhere[0]!.hint).toBe('`plain-1` is offered by provider `other`');
  });

  it('refuses a setting the connection does not declare', () => {
    const d = withCatalog(ID + 'model:\n  provider: acme\n  id: echo-1\n  max_tokens: 10\n  temperature: 1\n');
    expect(summary(d)).toEqual(['BP1352 MDL-6 7:3', 'BP1352 MDL-6 8:3']);
    expect(d[0]!.message).toBe('Unexpected setting `max_tokens` for `acme/echo-1`, expected one of `effort` or `max_output_tokens`');
    expect(d[1]!.hint).toBe('a setting the selected model does not declare is not used with it; remove it');
    const none = withCatalog(ID + 'model:\n  provider: other\n  id: plain-1\n  effort: low\n');
    expect(none[0]!.message).toBe('Unexpected setting `effort` for `other/plain-1`, expected no settings: the connection declares none');
  });

  it('refuses values outside the range, the enum or the type of the setting', () => {
    const d = withCatalog(ID + 'model:\n  provider: acme\n  id: echo-1\n  max_output_tokens: 9000\n  effort: extreme\n');
    expect(summary(d)).toEqual(['BP1353 MDL-6 7:22', 'BP1353 MDL-6 8:11']);
    expect(d[0]!.message).toBe('Unexpected `9000` for setting `max_output_tokens`, expected at most 8192 (the range is 1 to 8192)');
    expect(d[1]!.message).toBe('Unexpected `extreme` for setting `effort`, expected one of `low`, `medium`, `high`');
    const typed = withCatalog(ID + 'model:\n  provider: acme\n  id: echo-1\n  max_output_tokens: 10.5\n');
    expect(typed[0]!.message).toBe('Unexpected `10.5` for setting `max_output_tokens`, expected a value of type `integer`');
  });

  it('checks `select` settings against the catalog models matching the operation', () => {
    const d = withCatalog(HEAD.classify + '  temperature: 3\n  effort: low\n');
    expect(summary(d)).toEqual(['BP1353 MDL-6 7:16', 'BP1352 MDL-6 8:3']);
    expect(d[1]!.message).toBe('Unexpected setting `effort` for any catalog model matching `select`, expected one of `temperature`');
  });
});

const VOICE =
  'name: voice.talk\ndescription: Talks with the caller.\n' +
  'model:\n  select:\n    operation: generation\n    interaction: session\n    session:\n      trigger: voice_activity\n' +
  '    input_modalities:\n      - audio\n    output_modalities:\n      - audio\n';
const VOICE_INPUT =
  'input:\n  type: object\n  additionalProperties: false\n  required:\n    - audio\n  properties:\n    audio:\n      type: object\n' +
  '      required:\n        - call\n        - milliseconds\n      properties:\n' +
  '        call:\n          type: string\n        milliseconds:\n          type: integer\n          minimum: 10\n';

describe('MDL-7: the audio session profile', () => {
  it('accepts the profile with both ports and the exact input', () => {
    expect(diagnose(VOICE + PORTS + VOICE_INPUT)).toEqual([]);
  });

  it('accepts the input written as an independent document', () => {
    const doc = JSON.stringify({
      type: 'object',
      required: ['audio'],
      properties: {
        audio: { type: 'object', required: ['milliseconds', 'call'], properties: { call: { type: 'string' }, milliseconds: { type: 'integer' } } },
      },
    });
    expect(diagnose(VOICE + PORTS + `input:\n  type: object\n  document: '${doc}'\n`)).toEqual([]);
  });

  it('refuses the profile without `port`, at the trigger', () => {
    const d = diagnose(VOICE + VOICE_INPUT);
    expect(summary(d)).toEqual(['BP1360 MDL-7 9:16']);
    expect(d[0]!.message).toBe('Unexpected audio session profile without `port`, expected `port.input: true` and `port.output: true`');
  });

  it('refuses `port.output: false`, at the flag', () => {
    const d = diagnose(VOICE + PORTS.replace('output: true', 'output: false') + VOICE_INPUT);
    expect(summary(d)).toEqual(['BP1360 MDL-7 16:11']);
    expect(d[0]!.message).toBe('Unexpected `port.output: false`, expected `port.output: true` for the audio session profile');
  });

  it('refuses a missing input and an input other than `{audio: {call, milliseconds}}`', () => {
    const missing = diagnose(VOICE + PORTS);
    expect(summary(missing)).toEqual(['BP1361 MDL-7 9:16']);
    const wrong = diagnose(VOICE + PORTS + 'input:\n  type: object\n  required:\n    - audio\n  properties:\n    audio:\n      type: string\n');
    expect(summary(wrong)).toEqual(['BP1361 MDL-7 27:13']);
    expect(wrong[0]!.message).toBe(
      'Unexpected `type: string` for `input.properties.audio`, expected `type: object` with properties exactly `call` and `milliseconds`',
    );
  });

  it('refuses an extra property, a missing `required` entry and a wrong leaf type', () => {
    const input =
      VOICE_INPUT.replace('        - milliseconds\n', '').replace('          type: string\n', '          type: boolean\n') +
      '    format:\n      type: string\n';
    const d = diagnose(VOICE + PORTS + input);
    expect(summary(d)).toEqual(['BP1361 MDL-7 37:5', 'BP1361 MDL-7 29:7', 'BP1361 MDL-7 33:17']);
    expect(d[0]!.message).toBe('Unexpected property `format` in `input`, expected exactly `audio`');
    expect(d[1]!.message).toBe('Unexpected `required` of `call`, expected `required` to list exactly `call` and `milliseconds`');
    const leaf = diagnose(VOICE + PORTS + VOICE_INPUT.replace('          type: string\n', '          type: boolean\n'));
    expect(summary(leaf)).toEqual(['BP1361 MDL-7 34:17']);
  });

  it('refuses `select.session` other than `{trigger: voice_activity}`', () => {
    const other = diagnose(ID + 'model:\n  select:\n    operation: generation\n    interaction: session\n    session:\n      trigger: push_to_talk\n');
    expect(summary(other)).toEqual(['BP1362 MDL-7 9:16']);
    expect(other[0]!.message).toBe('Unexpected `push_to_talk` for `model.select.session.trigger`, expected `voice_activity`');
    expect(other[0]!.hint).toContain('for an explicit-trigger session, remove `session` and keep `interaction: session`');
    const extra = diagnose(ID + 'model:\n  select:\n    operation: generation\n    interaction: session\n    session:\n      idle: 30\n');
    expect(summary(extra)).toEqual(['BP1362 MDL-7 9:7', 'BP1362 MDL-7 8:5']);
  });

  it('refuses `trigger: voice_activity` without the rest of the profile', () => {
    const d = diagnose(VOICE.replace('interaction: session', 'interaction: stream').replace('      - audio\n    output', '      - text\n    output'));
    expect(summary(d)).toEqual(['BP1363 MDL-7 9:16', 'BP1363 MDL-7 11:7']);
    expect(d[0]!.message).toBe('Unexpected `trigger: voice_activity` with `interaction: stream`, expected `interaction: session`');
    expect(d[1]!.message).toBe('Unexpected `text` for `input_modalities` in the audio session profile, expected only `audio`');
  });
});

describe('MDL-8: bounded (explicit-trigger) session models', () => {
  const BOUNDED = ID + 'model:\n  select:\n    operation: generation\n    interaction: session\n';

  it('accepts finite input, text responses and synchronous tools', () => {
    expect(diagnose(BOUNDED + 'input:\n  type: object\n  properties:\n    question:\n      type: string\ntools:\n  - notes.lookup\n')).toEqual([]);
  });

  it('refuses ports, `output`, `compaction`, `configure` and `next`, each at its field', () => {
    const fm =
      BOUNDED +
      PORTS +
      'output:\n  type: boolean\ncompaction:\n  max_tokens: 4000\n  keep_turns: 2\n' +
      'configure:\n  routine: notes.configure\n  fields:\n    - tone\nnext: notes.review\n';
    const d = diagnose(fm);
    expect(summary(only(d, 'MDL-8'))).toEqual(['BP1370 MDL-8 8:1', 'BP1370 MDL-8 15:1', 'BP1370 MDL-8 17:1', 'BP1370 MDL-8 20:1', 'BP1370 MDL-8 24:1']);
    expect(d[0]!.message).toBe('Unexpected `port` in a bounded session model, expected no routine ports');
    expect(d[1]!.message).toBe('Unexpected `output` in a bounded session model, expected no structured output (it returns text)');
    expect(d[0]!.hint).toMatch(/^an explicit-trigger session \(`interaction: session` without `session.trigger: voice_activity`\) supports finite input/);
  });

  it('refuses async and output tool connections, the short form included', () => {
    const d = diagnose(
      BOUNDED + 'tools:\n  - notes.lookup\n  - notes.search: async\n  - notes.publish:\n      output: true\n  - notes.index:\n      async: true\n',
    );
    expect(summary(only(d, 'MDL-8'))).toEqual(['BP1370 MDL-8 10:19', 'BP1370 MDL-8 12:7', 'BP1370 MDL-8 14:7']);
    expect(only(d, 'MDL-8')[0]!.message).toBe(
      'Unexpected `async` connection of `notes.search` in a bounded session model, expected a synchronous tool connection',
    );
  });

  it('leaves the same fields alone for `interaction: request`', () => {
    expect(diagnose(ID + 'model:\n  select:\n    operation: generation\n    interaction: request\noutput:\n  type: boolean\nnext: notes.review\n')).toEqual([]);
  });
});

describe('MDL-9: generation returns text without `output`, JSON with it', () => {
  it('accepts a generation routine with and without `output` (a runtime semantic, nothing to refuse)', () => {
    const without = check(HEAD.model);
    expect(without.diagnostics).toEqual([]);
    expect(without.status).toBe('source');
    const withOutput = check(HEAD.model + 'output:\n  type: object\n  properties:\n    summary:\n      type: string\n');
    expect(withOutput.diagnostics).toEqual([]);
    expect(withOutput.status).toBe('source');
  });
});

describe('CLS-1: classification has no tools, input port, configure or compaction', () => {
  it('accepts `tools: []` and an output-only port', () => {
    const ports = PORTS.replace('input: true', 'input: false');
    expect(diagnose(HEAD.classify + 'tools: []\n' + ports)).toEqual([]);
  });

  it('refuses tools and an input port', () => {
    const d = diagnose(HEAD.classify + 'tools:\n  - notes.lookup\n' + PORTS);
    expect(summary(d)).toEqual(['BP1380 CLS-1 7:1', 'BP1380 CLS-1 10:10']);
    expect(d[0]!.message).toBe('Unexpected `tools` in a classification routine, expected no tools');
    expect(d[1]!.message).toBe('Unexpected `port.input: true` in a classification routine, expected no input port');
  });

  it('refuses `configure` and `compaction`', () => {
    const d = diagnose(HEAD.classify + 'configure:\n  routine: notes.configure\n  fields:\n    - tone\ncompaction:\n  max_tokens: 4000\n  keep_turns: 2\n');
    expect(summary(only(d, 'CLS-1'))).toEqual(['BP1380 CLS-1 7:1', 'BP1380 CLS-1 11:1']);
    expect(only(d, 'CLS-1')[1]!.hint).toBe('remove `compaction`: classification preserves its complete input');
  });
});

describe('CLS-2: the judgments a classification output may declare', () => {
  it('accepts no output (the {state, questions} form)', () => {
    expect(diagnose(HEAD.classify)).toEqual([]);
  });

  it('accepts const, enum, oneOf of constants, boolean, a probability and a closed object of these', () => {
    const output =
      'output:\n  type: object\n  additionalProperties: false\n  required:\n    - kind\n    - urgent\n    - confidence\n    - verdict\n    - fixed\n    - detail\n' +
      '  properties:\n    kind:\n      enum:\n        - bug\n        - idea\n    urgent:\n      type: boolean\n' +
      '    confidence:\n      type: number\n      description: How sure the judgment is.\n      minimum: 0\n      maximum: 1\n' +
      '    verdict:\n      oneOf:\n        - const: keep\n          description: The note is still useful.\n        - const: drop\n' +
      '    fixed:\n      const:\n        version: 1\n' +
      '    detail:\n      type: object\n      additionalProperties: false\n      required:\n        - blocking\n      properties:\n        blocking:\n          type: boolean\n';
    expect(diagnose(HEAD.classify + output)).toEqual([]);
    expect(diagnose(HEAD.classify + 'output:\n  type: boolean\n')).toEqual([]);
  });

  it('refuses an integer, an untyped schema and a null type', () => {
    const d = diagnose(HEAD.classify + 'output:\n  type: integer\n');
    expect(summary(d)).toEqual(['BP1381 CLS-2 7:1']);
    expect(d[0]!.message).toMatch(/^Unexpected integer for `output`, expected a judgment: `const`, `enum`/);
    expect(d[0]!.hint).toContain('list the allowed values with `enum`');
    expect(summary(diagnose(HEAD.classify + 'output:\n  description: Anything.\n'))).toEqual(['BP1381 CLS-2 7:1']);
    expect(first(HEAD.classify + "output:\n  type: 'null'\n").hint).toBe('write `const: null` for a constant null');
  });

  it('refuses a number without description or bounds 0..1, naming what is missing', () => {
    const d = diagnose(HEAD.classify + 'output:\n  type: number\n  minimum: 0\n  maximum: 100\n');
    expect(summary(d)).toEqual(['BP1382 CLS-2 7:1']);
    expect(d[0]!.message).toBe('Unexpected number for `output` without `description`, `maximum: 1`, expected a described probability from 0 to 1');
  });

  it('refuses an open object', () => {
    const d = diagnose(
      HEAD.classify + 'output:\n  type: object\n  additionalProperties: true\n  required:\n    - urgent\n  properties:\n    urgent:\n      type: boolean\n',
    );
    expect(summary(d)).toEqual(['BP1383 CLS-2 9:3']);
    expect(d[0]!.message).toBe('Unexpected open object for `output`, expected `additionalProperties: false`');
    expect(summary(diagnose(HEAD.classify + 'output:\n  type: object\n  required:\n    - a\n  properties:\n    a:\n      type: boolean\n'))).toEqual([
      'BP1383 CLS-2 7:1',
    ]);
  });

  it('refuses a oneOf branch that is not an exact const', () => {
    const d = diagnose(HEAD.classify + 'output:\n  oneOf:\n    - const: keep\n    - type: string\n      const: drop\n');
    expect(summary(d)).toEqual(['BP1384 CLS-2 10:7']);
    expect(d[0]!.message).toBe('Unexpected `type` in `output.oneOf[1]`, expected exactly `const` and an optional `description`');
  });

  it('skips what the schema checker owns instead of throwing', () => {
    for (const output of [
      'output: judgment\n',
      'output:\n  type: 5\n',
      'output:\n  type: object\n  additionalProperties: false\n  properties: many\n',
      'output:\n  oneOf: x\n',
      "output:\n  document: '{'\n",
    ]) {
      expect(() => diagnose(HEAD.classify + output)).not.toThrow();
      expect(diagnose(HEAD.classify + output).filter((d) => d.rule.startsWith('CLS-'))).toEqual([]);
    }
  });
});

describe('CLS-3: distributions', () => {
  const DIST =
    'output:\n  type: object\n  propertyNames:\n    enum:\n      - spam\n      - ham\n  additionalProperties:\n    type: number\n    minimum: 0\n    maximum: 1\n';

  it('accepts choices by enum and by oneOf of described constants', () => {
    expect(diagnose(HEAD.classify + DIST)).toEqual([]);
    const byOneOf = DIST.replace(
      '    enum:\n      - spam\n      - ham\n',
      '    oneOf:\n      - const: spam\n        description: Unsolicited bulk mail.\n      - const: ham\n',
    );
    expect(diagnose(HEAD.classify + byOneOf)).toEqual([]);
  });

  it('refuses a single choice', () => {
    const d = diagnose(HEAD.classify + DIST.replace('      - ham\n', ''));
    expect(summary(d)).toEqual(['BP1385 CLS-3 10:5']);
    expect(d[0]!.message).toBe('Unexpected a single choice in `output.propertyNames.enum`, expected at least two distinct choices');
  });

  it('refuses `properties`/`required` beside it and other probabilities', () => {
    const d = diagnose(HEAD.classify + DIST.replace('    maximum: 1\n', '    maximum: 100\n') + '  required:\n    - spam\n');
    expect(summary(d)).toEqual(['BP1385 CLS-3 17:3', 'BP1385 CLS-3 13:3']);
    expect(d[0]!.message).toBe('Unexpected `required` in the distribution `output`, expected only `propertyNames` and `additionalProperties`');
    expect(d[1]!.message).toBe(
      'Unexpected `additionalProperties` in `output`, expected `additionalProperties` of exactly `type: number`, `minimum: 0` and `maximum: 1`',
    );
  });

  it('refuses choices that are not nonempty string constants', () => {
    const d = diagnose(HEAD.classify + DIST.replace('      - ham\n', "      - ''\n      - ham\n"));
    expect(summary(d)).toEqual(['BP1385 CLS-3 12:9']);
    const noNames = diagnose(HEAD.classify + 'output:\n  type: object\n  additionalProperties:\n    type: number\n    minimum: 0\n    maximum: 1\n');
    expect(summary(noNames)).toEqual(['BP1385 CLS-3 7:1']);
    expect(noNames[0]!.message).toBe(
      'Unexpected distribution `output` without `propertyNames`, expected `propertyNames` with an `enum` or `oneOf` of the choices',
    );
  });
});

describe('CLS-4: free strings, arrays and optional fields', () => {
  const CLOSED = 'output:\n  type: object\n  additionalProperties: false\n  required:\n    - label\n  properties:\n    label:\n';

  it('accepts a string that lists its choices', () => {
    expect(diagnose(HEAD.classify + CLOSED + '      type: string\n      enum:\n        - bug\n        - idea\n')).toEqual([]);
  });

  it('refuses a free string, naming the generation routine as its home', () => {
    const d = diagnose(HEAD.classify + CLOSED + '      type: string\n');
    expect(summary(d)).toEqual(['BP1386 CLS-4 13:5']);
    expect(d[0]!.message).toMatch(/^Unexpected free string for `output.properties.label`, expected a judgment/);
    expect(d[0]!.hint).toBe('a free string such as a title belongs to a generation routine; for a choice among words, list them with `enum`');
  });

  it('refuses a free string inside an independent document, at the document', () => {
    const doc = JSON.stringify({ type: 'object', additionalProperties: false, required: ['title'], properties: { title: { type: 'string' } } });
    const d = diagnose(HEAD.classify + `output:\n  type: object\n  document: '${doc}'\n`);
    expect(summary(d)).toEqual(['BP1386 CLS-4 9:13']);
    expect(d[0]!.message).toMatch(/^Unexpected free string for `output.properties.title`/);
  });

  it('refuses an array', () => {
    const d = diagnose(HEAD.classify + CLOSED + '      type: array\n      items:\n        type: boolean\n');
    expect(summary(d)).toEqual(['BP1387 CLS-4 13:5']);
    expect(d[0]!.message).toMatch(/^Unexpected array for `output.properties.label`/);
  });

  it('refuses an optional property, naming it', () => {
    const d = diagnose(HEAD.classify + CLOSED + '      type: boolean\n    private:\n      type: boolean\n');
    expect(summary(d)).toEqual(['BP1388 CLS-4 15:5']);
    expect(d[0]!.message).toBe('Unexpected optional property `private` in `output`, expected every property listed in `required`');
    expect(d[0]!.hint).toBe('add `private` to `required`: a classification answers every judgment it declares');
  });
});

describe('model codes', () => {
  it('are BP13xx codes of MDL and CLS rules', () => {
    for (const [code, info] of Object.entries(modelCodes)) {
      expect(code).toMatch(/^BP13\d\d$/);
      expect(info.rule).toMatch(/^(MDL-[1-8]|CLS-[1-4])$/);
    }
  });

  it.each(Object.entries(modelCodes))('%s: its example yields it, or it says what it needs', (code, info) => {
    if (!('example' in info)) {
      expect(info.needs).toMatch(/catalog/);
      return;
    }
    expect(info.example).toMatch(/^---\n[\s\S]*\n---\n\S/);
    const { diagnostics } = checkSource('/pkg/example.md', info.example);
    expect(diagnostics.map((d) => d.code)).toContain(code);
  });
});
