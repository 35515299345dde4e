import type { Span } from '../diagnostics/reporter.js';
import { entry, type YMap, type YNode } from '../source/yaml-tree.js';
import type { RoutineContext } from './context.js';
import { andList, mapAt, scalarAt, schemaRoot, seqAt, stringAt, stringsOf } from './model-schema-view.js';

const VOICE_INPUT_HINT =
  'write `input` as `type: object` with `required: [audio]` and `properties.audio`, which is `type: object` with ' +
  '`required: [call, milliseconds]` and `properties` `call` (`type: string`) and `milliseconds` (`type: integer`)';

/**
 * MDL-7: the audio session profile needs both routine ports and takes exactly
 * `{audio: {call, milliseconds}}`. `at` is the `trigger: voice_activity` value, where a
 * missing field is reported.
 */
export function checkVoiceSession(ctx: RoutineContext, at: YNode): void {
  const r = ctx.reporter;
  const portEntry = entry(ctx.frontmatter, 'port');
  if (!portEntry) {
    r.report('BP1360', at, 'Unexpected audio session profile without `port`, expected `port.input: true` and `port.output: true`', {
      hint: 'add `port` with `input: true`, `output: true` and `limits`: the routine receives and sends audio events through its ports',
    });
  } else {
    for (const side of ['input', 'output'] as const) {
      if (ctx.port[side]) continue;
      const flag = portEntry.value.kind === 'map' ? entry(portEntry.value, side) : undefined;
      // A flag that is not a boolean at all is PORT-1's to report.
      if (flag && !(flag.value.kind === 'scalar' && flag.value.value === false)) continue;
      r.report(
        'BP1360',
        flag ? flag.value : portEntry.keySpan,
        `Unexpected ${flag ? `\`port.${side}: false\`` : `\`port\` without \`${side}\``}, expected \`port.${side}: true\` for the audio session profile`,
        {
          hint: 'the audio session profile requires both routine ports',
        },
      );
    }
  }

  const inputEntry = entry(ctx.frontmatter, 'input');
  if (!inputEntry) {
    r.report('BP1361', at, 'Unexpected audio session profile without `input`, expected `input` to be exactly `{audio: {call, milliseconds}}`', {
      hint: VOICE_INPUT_HINT,
    });
    return;
  }
  const root = schemaRoot(inputEntry.value);
  if (!root) return;
  const audio = exactObject(ctx, root, inputEntry.keySpan, 'input', ['audio']);
  const audioSchema = audio?.get('audio');
  if (!audioSchema) return;
  const leaves = exactObject(ctx, audioSchema.node, audioSchema.at, 'input.properties.audio', ['call', 'milliseconds']);
  if (!leaves) return;
  checkLeafType(ctx, leaves.get('call'), 'input.properties.audio.properties.call', ['string']);
  checkLeafType(ctx, leaves.get('milliseconds'), 'input.properties.audio.properties.milliseconds', ['integer', 'number']);
}

interface Located {
  node: YMap;
  at: Span;
}

/**
 * **decision**: "exactly" compares what the schema promises: `type: object`, exactly the
 * named properties, all of them required, and no schema for extra properties
 * (`additionalProperties` absent or `false`). Annotations and bounds on the leaves stay
 * free; the runtime validates call ids and durations itself.
 */
function exactObject(ctx: RoutineContext, node: YMap, at: Span, path: string, names: string[]): Map<string, Located> | undefined {
  const r = ctx.reporter;
  const expected = `exactly ${andList(names)}`;
  const type = stringAt(node, 'type');
  // A `type` that is not a string is SCH-3's to report.
  if (entry(node, 'type') && type === undefined) return undefined;
  if (type !== 'object') {
    r.report(
      'BP1361',
      entry(node, 'type')?.value ?? at,
      `Unexpected ${type === undefined ? 'schema without `type`' : `\`type: ${type}\``} for \`${path}\`, expected \`type: object\` with properties ${expected}`,
      {
        hint: VOICE_INPUT_HINT,
      },
    );
    return undefined;
  }
  const props = mapAt(node, 'properties');
  // Properties that are not a mapping are SCH's to report.
  if (entry(node, 'properties') && !props) return undefined;
  const found = new Map<string, Located>();
  for (const e of props?.entries ?? []) {
    if (!names.includes(e.key)) {
      r.report('BP1361', e.keySpan, `Unexpected property \`${e.key}\` in \`${path}\`, expected ${expected}`, { hint: VOICE_INPUT_HINT });
    } else if (e.value.kind === 'map') {
      found.set(e.key, { node: e.value, at: e.keySpan });
    }
  }
  const missing = names.filter((n) => !props || !entry(props, n));
  if (missing.length > 0) {
    r.report('BP1361', entry(node, 'properties')?.keySpan ?? at, `Unexpected \`${path}\` without ${andList(missing)}, expected properties ${expected}`, {
      hint: VOICE_INPUT_HINT,
    });
  }
  const requiredEntry = entry(node, 'required');
  const required = stringsOf(seqAt(node, 'required'));
  if (!requiredEntry || (required !== undefined && (names.some((n) => !required.includes(n)) || required.some((n) => !names.includes(n))))) {
    r.report(
      'BP1361',
      requiredEntry?.keySpan ?? at,
      `Unexpected ${requiredEntry ? `\`required\` of ${required?.length ? andList(required) : 'nothing'}` : `\`${path}\` without \`required\``}, expected \`required\` to list ${expected}`,
      {
        hint: VOICE_INPUT_HINT,
      },
    );
  }
  const extra = entry(node, 'additionalProperties');
  if (extra && !(extra.value.kind === 'scalar' && extra.value.value === false)) {
    r.report('BP1361', extra.keySpan, `Unexpected \`additionalProperties\` admitting extra properties in \`${path}\`, expected none or \`false\``, {
      hint: VOICE_INPUT_HINT,
    });
  }
  return found;
}

function checkLeafType(ctx: RoutineContext, leaf: Located | undefined, path: string, types: string[]): void {
  const type = leaf && stringAt(leaf.node, 'type');
  if (!leaf || type === undefined || types.includes(type)) return;
  ctx.reporter.report('BP1361', entry(leaf.node, 'type')?.value ?? leaf.at, `Unexpected \`type: ${type}\` for \`${path}\`, expected \`type: ${types[0]}\``, {
    hint: VOICE_INPUT_HINT,
  });
}

const BOUNDED =
  'an explicit-trigger session (`interaction: session` without `session.trigger: voice_activity`) supports finite input, text responses and synchronous tools';

const BOUNDED_FIELDS: Readonly<Record<string, { expected: string; hint: string }>> = {
  port: { expected: 'no routine ports', hint: 'remove `port`; for continuous audio use the audio session profile, or use `interaction: request` or `stream`' },
  output: { expected: 'no structured output (it returns text)', hint: 'remove `output`, or use `interaction: request` or `stream` for a JSON result' },
  compaction: { expected: 'no `compaction`', hint: 'remove `compaction`; each prompt opens its own bounded provider context' },
  configure: { expected: 'no `configure`', hint: 'remove `configure`, or use `interaction: request` or `stream`' },
  next: { expected: 'no `next`', hint: 'remove `next`, or call the successor from a routine that calls this one' },
};

/** MDL-8: what an explicit-trigger session model rejects before opening. */
export function checkBoundedSession(ctx: RoutineContext): void {
  const r = ctx.reporter;
  for (const e of ctx.frontmatter.entries) {
    const rejected = BOUNDED_FIELDS[e.key];
    if (!rejected) continue;
    r.report('BP1370', e.keySpan, `Unexpected \`${e.key}\` in a bounded session model, expected ${rejected.expected}`, {
      hint: `${BOUNDED}; ${rejected.hint}`,
    });
  }
  const tools = entry(ctx.frontmatter, 'tools')?.value;
  if (tools?.kind !== 'seq') return;
  for (const item of tools.items) {
    if (item.kind !== 'map') continue;
    for (const connection of item.entries) {
      const options = connection.value;
      if (options.kind === 'scalar' && options.value === 'async') {
        reportToolMode(ctx, options, connection.key, 'async');
      } else if (options.kind === 'map') {
        for (const mode of ['async', 'output'] as const) {
          const flag = entry(options, mode);
          if (flag && scalarAt(options, mode) === true) reportToolMode(ctx, flag.keySpan, connection.key, mode);
        }
      }
    }
  }
}

function reportToolMode(ctx: RoutineContext, at: Span | YNode, name: string, mode: 'async' | 'output'): void {
  ctx.reporter.report('BP1370', at, `Unexpected \`${mode}\` connection of \`${name}\` in a bounded session model, expected a synchronous tool connection`, {
    hint: `${BOUNDED}; connect \`${name}\` by its plain name`,
  });
}
