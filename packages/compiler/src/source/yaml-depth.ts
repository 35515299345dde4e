import { yamlModule } from './yaml-module.js';

/**
 * The deepest frontmatter read (the deepest legitimate one, a 64-level schema, is about 130).
 * The yaml parser recurses once per level and overflows the stack at about 1,250 levels; near
 * that limit Node 20's V8 can die outright instead of throwing (a regexp compiled with almost
 * no stack left is a fatal "RegExpCompiler Allocation failed"), so deep input is refused
 * before it is parsed, far from the limit, whatever the caller's own stack.
 */
export const MAX_YAML_DEPTH = 256;

/**
 * An upper bound of the nesting depth of a YAML text, from the yaml lexer's tokens (the
 * lexer is a loop, not a recursion): the open indentation levels of each line, the `-` and
 * `?` indicators that open a level on it, and the open flow collections. Quoted, block and
 * multi-line scalars are single tokens, so nothing inside them counts. `at` is where the
 * deepest level opens.
 */
export function deepestNesting(yaml: string): { depth: number; at: number } {
  // Lexing costs about as much as parsing: do it only when a cheap bound says it may matter.
  return quickBound(yaml) <= MAX_YAML_DEPTH || nestingBound(yaml) <= MAX_YAML_DEPTH ? { depth: 0, at: 0 } : lexedNesting(yaml);
}

/** `deepestNesting` from the lexer's tokens, always (exported for the test of `nestingBound`). */
export function lexedNesting(yaml: string): { depth: number; at: number } {
  const indents: number[] = [];
  let flow = 0;
  let indicators = 0;
  let lineStart = true;
  let indent = 0;
  let header = false;
  let content = false;
  let offset = 0;
  let deepest = { depth: 0, at: 0 };
  const { CST, Lexer } = yamlModule();
  const control = new Set([CST.DOCUMENT, CST.FLOW_END, CST.SCALAR, CST.BOM]);
  for (const token of new Lexer().lex(yaml)) {
    if (control.has(token)) continue;
    const at = offset;
    offset += token.length;
    if (content) {
      // A block scalar's content, up to and including its last line break.
      content = false;
      lineStart = true;
      indent = 0;
      continue;
    }
    const type = CST.tokenType(token);
    if (type === 'newline') {
      lineStart = true;
      indent = 0;
      indicators = 0;
      content = header;
      header = false;
      continue;
    }
    if (type === 'space') {
      if (lineStart) indent = token.length;
      continue;
    }
    if (type === 'comment') continue;
    if (type === 'block-scalar-header') header = true;
    if (lineStart) {
      lineStart = false;
      if (flow === 0) {
        while (indents.length > 0 && indents[indents.length - 1]! >= indent) indents.pop();
        indents.push(indent);
      }
    }
    if (flow === 0 && (type === 'seq-item-ind' || type === 'explicit-key-ind')) indicators++;
    else if (type === 'flow-map-start' || type === 'flow-seq-start') flow++;
    else if (type === 'flow-map-end' || type === 'flow-seq-end') flow = Math.max(0, flow - 1);
    const depth = indents.length + indicators + flow;
    if (depth > deepest.depth) deepest = { depth, at };
  }
  return deepest;
}

/**
 * An upper bound of `nestingBound` from native string searches only, cheaper than its loop over
 * every character of a cold build's frontmatters: a line's indentation and its count of `-` and `?` are each at
 * most its length, and the open flow collections at most every `[` and `{`. A frontmatter
 * whose lines are shorter than about 127 characters is decided by it alone.
 */
export function quickBound(yaml: string): number {
  let longest = 0;
  for (let start = 0; start <= yaml.length;) {
    const lineEnd = yaml.indexOf('\n', start);
    const end = lineEnd === -1 ? yaml.length : lineEnd;
    if (end - start > longest) longest = end - start;
    start = end + 1;
  }
  return 2 * longest + 1 + occurrences(yaml, '[') + occurrences(yaml, '{');
}

function occurrences(text: string, char: string): number {
  let n = 0;
  for (let i = text.indexOf(char); i !== -1; i = text.indexOf(char, i + 1)) n++;
  return n;
}

/**
 * An upper bound of `deepestNesting`, in one pass over the characters: open indentation levels
 * are at most the deepest indent plus one, the `-` and `?` indicators of a line at most its
 * count of those characters, and open flow collections at most every `[` and `{` so far.
 */
export function nestingBound(yaml: string): number {
  let maxIndent = 0;
  let maxIndicators = 0;
  let flows = 0;
  let indent = 0;
  let indicators = 0;
  let leading = true;
  for (let i = 0; i < yaml.length; i++) {
    const c = yaml.charCodeAt(i);
    if (c === 0x0a || c === 0x0d) {
      if (indent > maxIndent) maxIndent = indent;
      if (indicators > maxIndicators) maxIndicators = indicators;
      indent = 0;
      indicators = 0;
      leading = true;
      continue;
    }
    if (leading && (c === 0x20 || c === 0x09)) {
      indent++;
      continue;
    }
    leading = false;
    if (c === 0x2d || c === 0x3f) indicators++;
    else if (c === 0x5b || c === 0x7b) flows++;
  }
  return Math.max(maxIndent, indent) + 1 + Math.max(maxIndicators, indicators) + flows;
}
