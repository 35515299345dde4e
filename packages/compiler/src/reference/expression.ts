import type { Reporter, Span } from '../diagnostics/reporter.js';
import { closest, quoteList } from '../hints/did-you-mean.js';
import { checkName } from '../routine/names.js';
import { describeNode, entry, type YMap, type YNode, type YScalar } from '../source/yaml-tree.js';
import { parseSingularPath, type SingularPath } from './jsonpath.js';

/**
 * The value expressions of `next.input` (NEXT-4), reused by `presentation.value` (TOOL-5):
 *
 * - a mapping or a list builds an object or an array from its expressions;
 * - a string is a singular path (PATH-1) whose first member is one of `roots` (PATH-2);
 * - a number, a boolean or null is itself;
 * - `{$literal: value}`, alone in its mapping, is `value` as written (not inspected);
 * - `{select: path, cases: {label: expression}}` is the case whose label equals the
 *   selected string. Any mapping with a `select` key is this form, so an object that
 *   needs a `select` key is written `{$literal: {select: …}}`;
 * - `!ref name` captures a source address.
 *
 * Every other mapping is an object: `{cases: …}` without `select`, and keys such as `$ref`
 * (REF-4: a literal `{$ref: name}` is ordinary data), are members like any other.
 */

/** Called for every path that parsed and starts at an allowed root. */
export type PathVisitor = (node: YScalar, path: SingularPath) => void;

/**
 * NEXT-4 on an expression, with PATH-1/PATH-2 on its paths. `where` names the place in
 * messages (`` `next.input` ``); `onPath` lets a caller apply its own rule to each valid path.
 */
export function checkExpression(reporter: Reporter, node: YNode, roots: readonly string[], where: string, onPath?: PathVisitor): void {
  walk(reporter, node, roots, where, onPath, 0);
}

/**
 * PATH-1 and PATH-2 on a scalar that holds a path. Returns the path when both hold.
 * PATH-1 points at the offending character inside the scalar where the scalar's text
 * maps one to one onto the value, otherwise at the whole scalar.
 */
export function checkPathScalar(reporter: Reporter, node: YScalar, roots: readonly string[], where: string): SingularPath | undefined {
  return checkPath(reporter, node, roots, where, false);
}

/** `{$literal: …}` with a mapping inside: the object it stands for, when a caller wants to inspect it. */
export function literalMapping(node: YMap): YMap | undefined {
  const literal = entry(node, '$literal');
  return node.entries.length === 1 && literal?.value.kind === 'map' ? literal.value : undefined;
}

/** Which form a mapping in an expression takes. */
export function mappingForm(node: YMap): 'literal' | 'select' | 'object' {
  if (entry(node, '$literal')) return 'literal';
  if (entry(node, 'select')) return 'select';
  return 'object';
}

// YAML nests far less than this in any real file; the cap only keeps recursion bounded.
const MAX_DEPTH = 256;

function walk(r: Reporter, node: YNode, roots: readonly string[], where: string, onPath: PathVisitor | undefined, depth: number): void {
  if (depth > MAX_DEPTH) return;
  if (node.kind === 'seq') {
    for (const item of node.items) walk(r, item, roots, where, onPath, depth + 1);
    return;
  }
  if (node.kind === 'scalar') {
    if (node.ref) checkRef(r, node);
    else if (typeof node.value === 'string') {
      const path = checkPath(r, node, roots, where, true);
      if (path && onPath) onPath(node, path);
    }
    return;
  }
  const form = mappingForm(node);
  if (form === 'literal') {
    const other = node.entries.find((e) => e.key !== '$literal');
    if (other) {
      r.report('BP1445', other.keySpan, `Unexpected \`${other.key}\` beside \`$literal\` in ${where}, expected \`$literal\` alone in its mapping`, {
        hint: '`{$literal: value}` stands for exactly `value`; put the literal under a key of its own (`text: {$literal: …}`) or wrap the whole object in `$literal`',
      });
    }
    return;
  }
  if (form === 'select') {
    walkSelect(r, node, roots, where, onPath, depth);
    return;
  }
  for (const e of node.entries) walk(r, e.value, roots, where, onPath, depth + 1);
}

const SELECT_HINT = 'a mapping with `select` chooses one of its `cases` by label; an object that needs a `select` key is written `{$literal: {select: …}}`';

function walkSelect(r: Reporter, node: YMap, roots: readonly string[], where: string, onPath: PathVisitor | undefined, depth: number): void {
  const select = entry(node, 'select')!;
  for (const e of node.entries) {
    if (e.key === 'select' || e.key === 'cases') continue;
    r.report('BP1446', e.keySpan, `Unexpected \`${e.key}\` in a \`select\` expression in ${where}, expected only \`select\` and \`cases\``, {
      hint: SELECT_HINT,
    });
  }
  const path = select.value;
  if (path.kind === 'scalar' && typeof path.value === 'string' && !path.ref) {
    const parsed = checkPath(r, path, roots, where, false);
    if (parsed && onPath) onPath(path, parsed);
  } else {
    r.report('BP1446', path, `Unexpected ${describeNode(path)} for \`select\` in ${where}, expected a path such as \`$.${roots[0] ?? 'input'}.kind\``);
  }
  const cases = entry(node, 'cases');
  if (!cases) {
    r.report('BP1446', select.keySpan, `Unexpected \`select\` without \`cases\` in ${where}, expected \`cases\` mapping labels to expressions`, {
      hint: SELECT_HINT,
    });
    return;
  }
  if (cases.value.kind !== 'map') {
    r.report('BP1446', cases.value, `Unexpected ${describeNode(cases.value)} for \`cases\` in ${where}, expected a mapping of labels to expressions`);
    return;
  }
  if (cases.value.entries.length === 0) {
    r.report('BP1446', cases.value, `Unexpected empty \`cases\` in ${where}, expected at least one label`, {
      hint: 'there is no default case: list every label the selected value can take',
    });
    return;
  }
  for (const e of cases.value.entries) walk(r, e.value, roots, where, onPath, depth + 1);
}

function checkRef(r: Reporter, node: YScalar): void {
  const problem = checkName(String(node.value));
  if (problem) r.report('BP1447', node, problem.message, { hint: problem.hint ?? '`!ref` takes a source name: `!ref notes.style`' });
}

const TEMPLATE_ROOTS = ['calls', 'parent', 'session', 'runtime', 'user'];

function checkPath(r: Reporter, node: YScalar, roots: readonly string[], where: string, inExpression: boolean): SingularPath | undefined {
  const text = String(node.value);
  const parsed = parseSingularPath(text);
  if (!parsed.ok) {
    const { error } = parsed;
    r.report('BP1501', pathSpan(r, node, error.offset, error.offset + error.length), `${error.message}, in the path \`${clip(text)}\` of ${where}`, {
      hint: pathHint(text, error.kind, roots, inExpression),
    });
    return undefined;
  }
  const first = parsed.path.segments[0];
  const expected = quoteList(roots.map((root) => `$.${root}`));
  // The first segment follows `$` and any blank space PATH-1 allows there.
  const segmentStart = text.length - text.slice(1).trimStart().length;
  const at = pathSpan(r, node, segmentStart, text.length);
  if (!first) {
    r.report('BP1502', node, `Unexpected \`$\` alone in ${where}, expected a path starting ${expected}`, {
      hint: `\`$\` is the whole ${roots.length > 1 ? `\`{${roots.join(', ')}}\`` : 'root'}; select a member of it`,
    });
    return undefined;
  }
  if (first.kind === 'index') {
    r.report('BP1502', at, `Unexpected index \`[${first.index}]\` as the first segment in ${where}, expected a path starting ${expected}`);
    return undefined;
  }
  if (!roots.includes(first.name)) {
    const guess = closest(first.name, roots);
    r.report('BP1502', at, `Unexpected root \`${first.name}\` in ${where}, expected a path starting ${expected}`, {
      hint: guess
        ? `did you mean \`$.${guess}\`?`
        : TEMPLATE_ROOTS.includes(first.name)
          ? `\`$.${first.name}\` is a root of body templates; ${where} reads only ${expected}`
          : undefined,
    });
    return undefined;
  }
  return parsed.path;
}

function pathHint(text: string, kind: 'syntax' | 'non-singular', roots: readonly string[], inExpression: boolean): string | undefined {
  if (kind === 'non-singular') return "only `.name`, `['name']` and `[index]` segments are allowed: a path selects exactly one value";
  if (text.includes('{{')) return `there are no templates here: write the path on its own, such as \`$.${roots[0] ?? 'input'}.text\``;
  if (text.trim() !== text) return "remove the blank space around the path (a block scalar keeps its final line break: write the path on the key's line)";
  if (text.startsWith('$')) return undefined;
  if (inExpression) return `a string here is a path; write a literal string as \`{$literal: ${JSON.stringify(text)}}\``;
  return `a path starts with \`$\`, such as \`$.${roots[0] ?? 'input'}.text\``;
}

function clip(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

/**
 * The span of value offsets [from, to) of a string scalar in the file. Exact for plain,
 * single-quoted and escape-free double-quoted scalars on one line; the whole node otherwise
 * (block scalars, folded lines and escapes do not map one to one).
 */
function pathSpan(r: Reporter, node: YScalar, from: number, to: number): Span {
  const map = offsetMap(r.lines.text.slice(node.span.start, node.span.end), String(node.value), node.style);
  if (!map) return node.span;
  const start = node.span.start + map(from);
  return { start, end: Math.max(start, node.span.start + map(Math.max(from, to))) };
}

function offsetMap(raw: string, value: string, style: YScalar['style']): ((offset: number) => number) | undefined {
  if (raw.includes('\n')) return undefined;
  if (style === 'plain') return raw === value ? (offset) => offset : undefined;
  if (style === 'double') {
    return raw.length === value.length + 2 && !raw.includes('\\') ? (offset) => offset + 1 : undefined;
  }
  if (style === 'single') {
    const quotes = value.split("'").length - 1;
    if (raw.length !== value.length + 2 + quotes) return undefined;
    // `''` in the source is one `'` in the value.
    return (offset) => {
      let at = 1;
      for (let i = 0; i < offset && i < value.length; i++) at += value[i] === "'" ? 2 : 1;
      return at;
    };
  }
  return undefined;
}
