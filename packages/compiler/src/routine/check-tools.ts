import type { Reporter, Span } from '../diagnostics/reporter.js';
import { closest } from '../hints/did-you-mean.js';
import { checkExpression, literalMapping, mappingForm } from '../reference/expression.js';
import { describeNode, entry, type YEntry, type YMap, type YNode } from '../source/yaml-tree.js';
import { andList, checkOwnKeys, checkRequiredKeys, expectCount, expectFlag, expectMapping, refuseRef } from './check-misc.js';
import type { RoutineContext } from './context.js';
import { expectSeq, expectString } from './expect.js';
import { checkName } from './names.js';

export const OPTION_KEYS = ['async', 'output', 'limits', 'presentation'] as const;
export const LIMIT_KEYS = ['calls', 'steps', 'concurrency', 'timeout'] as const;
export const PRESENTATION_KEYS = ['when', 'value'] as const;
const PRESENTATION_ROOTS = ['input', 'call', 'output', 'catalogs'] as const;
const PRESENTATION_OBJECT = ['format', 'document', 'title', 'fallback'] as const;
export const WHEN = ['accepted', 'completed'] as const;

const OPTION_HINTS: Readonly<Record<string, string>> = {
  ...Object.fromEntries(LIMIT_KEYS.map((key) => [key, `\`${key}\` belongs inside \`limits\``])),
  when: '`when` belongs inside `presentation`',
  value: '`value` belongs inside `presentation`',
};

const LIMIT_HINTS: Readonly<Record<string, string>> = Object.fromEntries(
  ['bytes', 'messages', 'pending'].map((key) => [key, `\`${key}\` is a port limit; it belongs inside \`port.limits\``]),
);

/** TOOL-1..5 on the `tools` field. */
export function checkToolsField(ctx: RoutineContext, node: YNode): void {
  const r = ctx.reporter;
  if (refuseRef(r, node, '`tools`')) return;
  if (node.kind === 'scalar' && typeof node.value === 'string') {
    r.report('BP1401', node, 'Unexpected a string for `tools`, expected a list', {
      hint: `write each connection as a list item: \`tools:\` and below it \`  - ${node.value}\``,
    });
    return;
  }
  if (node.kind === 'map') {
    r.report('BP1401', node, 'Unexpected a mapping for `tools`, expected a list', {
      hint: 'write each connection as a list item: `- name`, or `- name:` with its options indented below it',
    });
    return;
  }
  const list = expectSeq(r, node, 'BP1401', '`tools`');
  if (!list) return;
  const seen = new Map<string, Span>();
  for (const item of list.items) {
    const connection = checkConnection(ctx, item);
    if (!connection) continue;
    const first = seen.get(connection.name);
    if (first) {
      r.report('BP1402', connection.span, `Unexpected second \`${connection.name}\` in \`tools\`, expected each tool once`, {
        hint: 'merge the two entries into one',
        related: [r.locate(first, `first \`${connection.name}\` is here`)],
      });
    } else seen.set(connection.name, connection.span);
  }
}

/** TOOL-1 on one entry; the name and where it is written when it is a valid name. */
function checkConnection(ctx: RoutineContext, item: YNode): { name: string; span: Span } | undefined {
  const r = ctx.reporter;
  if (refuseRef(r, item, '`tools`')) return undefined;
  if (item.kind === 'scalar') {
    if (typeof item.value === 'string') return checkToolName(r, item.value, item.span);
    const hint = item.value === null ? (item.empty ? 'remove the empty `-` line' : undefined) : `quote it if it is a name: \`'${String(item.value)}'\``;
    r.report('BP1401', item, `Unexpected ${describeNode(item)} in \`tools\`, expected a target name or \`name: options\``, { hint });
    return undefined;
  }
  if (item.kind === 'seq') {
    r.report('BP1401', item, 'Unexpected a list in `tools`, expected a target name or `name: options`', { hint: 'write one connection per `-` item' });
    return undefined;
  }
  const [first, second] = item.entries;
  if (!first) {
    r.report('BP1401', item, 'Unexpected empty mapping in `tools`, expected a target name or `name: options`');
    return undefined;
  }
  if (second) {
    r.report(
      'BP1403',
      second.keySpan,
      `Unexpected \`${second.key}\` beside \`${first.key}\` in one \`tools\` entry, expected a single \`name: options\` mapping`,
      {
        hint: OPTION_KEYS.includes(second.key as (typeof OPTION_KEYS)[number])
          ? `write \`- ${first.key}:\` and indent its options two spaces further than \`${first.key}\``
          : 'write each connection as its own `-` item, and indent the options of one under its name',
      },
    );
    return undefined;
  }
  checkOptions(ctx, first);
  return checkToolName(r, first.key, first.keySpan);
}

function checkToolName(r: Reporter, name: string, span: Span): { name: string; span: Span } | undefined {
  const problem = checkName(name);
  if (!problem) return { name, span };
  r.report('BP1401', span, problem.message, { hint: problem.hint });
  return undefined;
}

/** TOOL-2..5 on the options of one connection. */
function checkOptions(ctx: RoutineContext, connection: YEntry): void {
  const r = ctx.reporter;
  const name = connection.key;
  const node = connection.value;
  const what = `the options of \`${name}\``;
  if (refuseRef(r, node, what)) return;
  if (node.kind === 'scalar') {
    if (node.value === 'async') {
      r.report('BP1412', node, `Unexpected short form \`${name}: async\`, expected the expanded \`async: true\``, {
        hint: `write \`- ${name}:\` and below it, indented, \`async: true\``,
      });
      return;
    }
    if (node.value === null) {
      r.report('BP1030', node, `Unexpected null for ${what}, expected a mapping`, {
        hint: `${node.empty ? 'a key with nothing after it is null; ' : ''}write \`- ${name}\` for a plain connection, or indent its options below it`,
      });
      return;
    }
    const guess = typeof node.value === 'string' ? closest(node.value, OPTION_KEYS) : undefined;
    r.report(
      'BP1411',
      node,
      `Unexpected ${typeof node.value === 'string' ? `\`${node.value}\`` : describeNode(node)} for ${what}, expected a mapping of ${andList(OPTION_KEYS)}`,
      {
        hint:
          guess === 'async'
            ? `did you mean \`${name}: async\`?`
            : guess
              ? `only \`async\` has a short form; write \`- ${name}:\` and below it, indented, \`${guess}: ${guess === 'limits' || guess === 'presentation' ? '…' : 'true'}\``
              : undefined,
      },
    );
    return;
  }
  if (node.kind === 'seq') {
    r.report('BP1411', node, `Unexpected a list for ${what}, expected a mapping of ${andList(OPTION_KEYS)}`);
    return;
  }
  checkOwnKeys(r, node, OPTION_KEYS, 'BP1410', what, OPTION_HINTS);
  const asyncEntry = entry(node, 'async');
  const isAsync = asyncEntry ? expectFlag(r, asyncEntry.value, 'BP1411', `\`${name}.async\``) === true : false;
  const output = entry(node, 'output');
  if (output && expectFlag(r, output.value, 'BP1411', `\`${name}.output\``) === true && !ctx.port.output) {
    r.report('BP1415', output.keySpan, `Unexpected \`output: true\` on \`${name}\` in a routine without an output port, expected \`port.output: true\``, {
      hint: 'add `port` with `output: true` (and `input` and `limits`), or remove `output: true`',
    });
  }
  const limits = entry(node, 'limits');
  if (limits) checkLimits(r, limits.value, name);
  const presentation = entry(node, 'presentation');
  if (presentation) checkPresentation(ctx, presentation, name, isAsync ? asyncEntry : undefined);
}

/** TOOL-4. */
function checkLimits(r: Reporter, node: YNode, name: string): void {
  const map = expectMapping(r, node, 'BP1421', `\`${name}.limits\``, andList(LIMIT_KEYS));
  if (!map) return;
  checkOwnKeys(r, map, LIMIT_KEYS, 'BP1420', `\`${name}.limits\``, LIMIT_HINTS);
  for (const key of LIMIT_KEYS) {
    const e = entry(map, key);
    if (e) expectCount(r, e.value, 'BP1421', key === 'timeout' ? `\`${name}.limits.timeout\` (milliseconds)` : `\`${name}.limits.${key}\``, 1);
  }
}

/** TOOL-5. The `runtime.ui.publish` requirement it derives is recorded by the package-wide pass. */
function checkPresentation(ctx: RoutineContext, presentation: YEntry, name: string, asyncEntry: YEntry | undefined): void {
  const r = ctx.reporter;
  if (!ctx.port.output) {
    r.report('BP1426', presentation.keySpan, `Unexpected \`presentation\` on \`${name}\` in a routine without an output port, expected \`port.output: true\``, {
      hint: "a presentation is published through the caller's output port: add `port` with `output: true` (and `input` and `limits`)",
    });
  }
  const what = `\`${name}.presentation\``;
  const map = expectMapping(r, presentation.value, 'BP1425', what, '`when` and `value`');
  if (!map) return;
  checkOwnKeys(r, map, PRESENTATION_KEYS, 'BP1425', what);
  checkRequiredKeys(r, map, PRESENTATION_KEYS, 'BP1425', what);
  const when = checkWhen(r, entry(map, 'when'), name);
  if (when === 'completed' && asyncEntry) {
    r.report('BP1427', entry(map, 'when')!.value, `Unexpected \`when: completed\` on the async connection \`${name}\`, expected \`when: accepted\``, {
      hint: 'an async call returns at admission; publish `when: accepted`, or remove `async: true` to publish the completed outcome',
      related: [r.locate(asyncEntry.keySpan, '`async: true` is here')],
    });
  }
  const value = entry(map, 'value');
  if (!value) return;
  checkExpression(r, value.value, PRESENTATION_ROOTS, '`presentation.value`', (node, path) => {
    const root = path.segments[0];
    if (when !== 'accepted' || root?.kind !== 'name' || root.name !== 'output') return;
    r.report(
      'BP1429',
      node,
      `Unexpected path \`${path.text}\` into \`output\` in a presentation published \`when: accepted\`, expected \`$.input\`, \`$.call\` or \`$.catalogs\``,
      {
        hint: 'an accepted call has no output yet; publish `when: completed` (on a synchronous connection) to read `$.output`',
      },
    );
  });
  checkPresentationObject(r, value.value);
}

function checkWhen(r: Reporter, when: YEntry | undefined, name: string): (typeof WHEN)[number] | undefined {
  if (!when || refuseRef(r, when.value, `\`${name}.presentation.when\``)) return undefined;
  const value = expectString(r, when.value, 'BP1425', `\`${name}.presentation.when\``);
  if (value === undefined) return undefined;
  const known = WHEN.find((w) => w === value);
  if (known) return known;
  const guess = closest(value, WHEN);
  r.report('BP1425', when.value, `Unexpected \`${value}\` for \`presentation.when\`, expected \`accepted\` or \`completed\``, {
    hint: guess ? `did you mean \`${guess}\`?` : undefined,
  });
  return undefined;
}

/** The published object has exactly format, document, title and fallback, where the expression shows it. */
function checkPresentationObject(r: Reporter, node: YNode): void {
  const expected = `an object of exactly ${andList(PRESENTATION_OBJECT)}`;
  if (node.kind === 'map') {
    const form = mappingForm(node);
    // A selected case is known only at run time; another rule reports a malformed `$literal`.
    const object = form === 'object' ? node : form === 'literal' ? literalMapping(node) : undefined;
    if (!object) {
      const inner = form === 'literal' && node.entries.length === 1 ? node.entries[0]!.value : undefined;
      if (inner) r.report('BP1428', inner, `Unexpected ${describeNode(inner)} for \`presentation.value\`, expected ${expected}`);
      return;
    }
    checkObjectKeys(r, object, expected);
    return;
  }
  // A path yields whatever it selects, so only its run-time value can be checked.
  if (node.kind === 'scalar' && typeof node.value === 'string' && !node.ref) return;
  r.report('BP1428', node, `Unexpected ${describeNode(node)} for \`presentation.value\`, expected ${expected}`, {
    hint: 'write `value:` and below it `format`, `document`, `title` and `fallback`, or a path to such an object',
  });
}

function checkObjectKeys(r: Reporter, object: YMap, expected: string): void {
  for (const e of object.entries) {
    if ((PRESENTATION_OBJECT as readonly string[]).includes(e.key)) continue;
    const guess = closest(e.key, PRESENTATION_OBJECT);
    r.report('BP1428', e.keySpan, `Unexpected field \`${e.key}\` in \`presentation.value\`, expected ${expected}`, {
      hint: guess ? `did you mean \`${guess}\`?` : 'a presentation declares catalog content only: no status, actions or new work',
    });
  }
  const missing = PRESENTATION_OBJECT.filter((key) => !entry(object, key));
  if (missing.length > 0) {
    r.report('BP1428', object, `Unexpected \`presentation.value\` without ${andList(missing)}, expected ${expected}`);
  }
}
