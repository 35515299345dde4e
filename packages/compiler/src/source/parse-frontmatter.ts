import { CST, isAlias, isMap, isPair, isScalar, isSeq, Lexer, parseDocument, type Node as YamlNode, Scalar } from 'yaml';
import type { Reporter, Span } from '../diagnostics/reporter.js';
import { firstLoneSurrogate } from '../text/first-lone-surrogate.js';
import type { YEntry, YNode, YScalar, ScalarStyle } from './yaml-tree.js';

const SCALAR_STYLES: Record<string, ScalarStyle> = {
  [Scalar.PLAIN]: 'plain',
  [Scalar.QUOTE_SINGLE]: 'single',
  [Scalar.QUOTE_DOUBLE]: 'double',
  [Scalar.BLOCK_LITERAL]: 'literal',
  [Scalar.BLOCK_FOLDED]: 'folded',
};

const COLON_TRAP_ERRORS = new Set(['BLOCK_AS_IMPLICIT_KEY', 'MULTILINE_IMPLICIT_KEY']);

/**
 * Parses frontmatter as YAML 1.2 (core schema) and converts it to a located tree,
 * enforcing SRC-2 (duplicates, anchors, aliases, merge keys, tags, string keys),
 * SRC-5 (style warnings) and the syntax half of SRC-6. Returns undefined on a syntax
 * error: field checks on a broken tree would only add noise.
 */
export function parseFrontmatter(yaml: string, offset: number, reporter: Reporter, options: { refuseLoneSurrogates?: boolean } = {}): YNode | undefined {
  const deepest = deepestNesting(yaml);
  if (deepest.depth > MAX_YAML_DEPTH) {
    reporter.report('BP1010', { start: offset + deepest.at, end: offset + deepest.at + 1 }, `Unexpected nesting deeper than ${MAX_YAML_DEPTH} levels, expected a shallower frontmatter`, {
      hint: 'flatten the structure',
    });
    return undefined;
  }
  let doc;
  try {
    doc = parseDocument(yaml, {
      version: '1.2',
      schema: 'core',
      uniqueKeys: false,
      prettyErrors: false,
      strict: true,
      keepSourceTokens: false,
    });
  } catch (error) {
    // The yaml parser recurses once per nesting level: deep enough input overflows the stack,
    // and some of its paths throw that instead of reporting it as a document error.
    reporter.report('BP1010', { start: offset, end: offset + 1 }, `YAML syntax error: ${error instanceof Error ? error.message : String(error)}`, {
      hint: 'the frontmatter nests too deeply to be read; flatten it',
    });
    return undefined;
  }
  if (doc.errors.length > 0) {
    reportSyntaxErrors(doc.errors, offset, reporter);
    return undefined;
  }
  const converter = new Converter(offset, reporter, options.refuseLoneSurrogates === true);
  if (doc.contents === null) return { kind: 'scalar', span: { start: offset, end: offset }, value: null, style: 'plain', ref: false, empty: true };
  try {
    return converter.convert(doc.contents, undefined, 1);
  } catch (error) {
    if (error instanceof TooDeep) return undefined;
    // A safety net behind MAX_YAML_DEPTH: a caller deep in its own stack can still run out.
    if (!(error instanceof RangeError)) throw error;
    reporter.report('BP1010', { start: offset, end: offset + 1 }, `YAML syntax error: ${error.message}`, { hint: 'the frontmatter nests too deeply to be read; flatten it' });
    return undefined;
  }
}

/**
 * The deepest frontmatter read (the deepest legitimate one, a 64-level schema, is about 130).
 * The yaml parser recurses once per level and overflows the stack at about 1,250 levels; near
 * that limit Node 20's V8 can die outright instead of throwing (a regexp compiled with almost
 * no stack left is a fatal "RegExpCompiler Allocation failed"), so deep input is refused
 * before it is parsed, far from the limit, whatever the caller's own stack.
 */
export const MAX_YAML_DEPTH = 256;

const CONTROL_TOKENS = new Set([CST.DOCUMENT, CST.FLOW_END, CST.SCALAR, CST.BOM]);

/**
 * An upper bound of the nesting depth of a YAML text, from the yaml lexer's tokens (the
 * lexer is a loop, not a recursion): the open indentation levels of each line, the `-` and
 * `?` indicators that open a level on it, and the open flow collections. Quoted, block and
 * multi-line scalars are single tokens, so nothing inside them counts. `at` is where the
 * deepest level opens.
 */
function deepestNesting(yaml: string): { depth: number; at: number } {
  // Lexing costs about as much as parsing: do it only when a cheap bound says it may matter.
  return nestingBound(yaml) <= MAX_YAML_DEPTH ? { depth: 0, at: 0 } : lexedNesting(yaml);
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
  for (const token of new Lexer().lex(yaml)) {
    if (CONTROL_TOKENS.has(token)) continue;
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

/** Ends a conversion whose depth was reported: like a syntax error, a tree cut short is not checked. */
class TooDeep extends Error {}

function reportSyntaxErrors(errors: readonly { code: string; pos: [number, number]; message: string }[], offset: number, reporter: Reporter): void {
  const linesSeen = new Set<number>();
  for (const error of errors) {
    const span = { start: offset + error.pos[0], end: offset + Math.max(error.pos[1], error.pos[0] + 1) };
    const { line } = reporter.lines.position(span.start);
    if (linesSeen.has(line)) continue;
    linesSeen.add(line);
    const message = error.message.split('\n')[0]!.replace(/ at line \d+, column \d+.*$/, '');
    const lineText = reporter.lines.lineText(line);
    const previous = reporter.lines.lineText(line - 1);
    if (COLON_TRAP_ERRORS.has(error.code) && (/:\s.*:\s/.test(lineText + ' ') || /: /.test(lineText) || /: /.test(previous))) {
      const lineStart = reporter.lines.starts[line - 1] ?? span.start;
      // Point at the value after the first `key: `, which is what needs quoting.
      const valueAt = /^\s*(?:-\s+)?[^\s:#][^:#]*:\s+(?=\S)/.exec(lineText)?.[0].length ?? lineText.search(/\S/);
      reporter.report('BP1050', { start: lineStart + Math.max(0, valueAt), end: lineStart + lineText.length }, 'Unexpected `: ` inside an unquoted value: YAML reads it as a nested mapping', {
        hint: 'quote the whole value (`description: "Note: x"`) or write it as a block scalar after `|` or `>`',
      });
      continue;
    }
    reporter.report('BP1010', span, `YAML syntax error: ${message}`);
  }
}

class Converter {
  constructor(
    private readonly offset: number,
    private readonly reporter: Reporter,
    private readonly refuseLoneSurrogates: boolean,
  ) {}

  private span(node: { range?: [number, number, number] | null | undefined } | null | undefined, fallback: Span): Span {
    const range = node?.range;
    if (!range) return fallback;
    return { start: this.offset + range[0], end: this.offset + range[1] };
  }

  /** `parentIndent` is the column of the key or dash that owns this node (undefined at the root). */
  convert(node: YamlNode, parentIndent: number | undefined, depth: number): YNode {
    const nodeSpan = this.span(node, { start: this.offset, end: this.offset });
    if (depth > MAX_YAML_DEPTH) {
      this.reporter.report('BP1010', nodeSpan.end > nodeSpan.start ? nodeSpan : { start: nodeSpan.start, end: nodeSpan.start + 1 }, `Unexpected nesting deeper than ${MAX_YAML_DEPTH} levels, expected a shallower frontmatter`, {
        hint: 'flatten the structure',
      });
      throw new TooDeep();
    }
    if (isAlias(node)) {
      this.reporter.report('BP1012', nodeSpan, `Unexpected alias \`*${node.source}\`, expected a value written out`, {
        hint: 'anchors and aliases are not part of the Berry profile; repeat the value',
      });
      return { kind: 'scalar', span: nodeSpan, value: null, style: 'plain', ref: false, empty: false };
    }
    if (node.anchor) {
      // The node's range starts after its anchor; point at `&name` itself.
      const at = this.reporter.lines.text.lastIndexOf('&' + node.anchor, nodeSpan.start);
      const anchorSpan = at === -1 ? nodeSpan : { start: at, end: at + node.anchor.length + 1 };
      this.reporter.report('BP1012', anchorSpan, `Unexpected anchor \`&${node.anchor}\`, expected a plain value`, {
        hint: 'anchors and aliases are not part of the Berry profile; remove the anchor',
      });
    }
    const tag = node.tag;
    const isRef = tag === '!ref';
    let span = nodeSpan;
    if (tag !== undefined) {
      // The node's range starts after its tag; the tag belongs to the node's span.
      const tagSpan = this.tagSpan(nodeSpan);
      span = { start: tagSpan.start, end: nodeSpan.end };
      if (!(isRef && isScalar(node))) {
        this.reporter.report('BP1014', tagSpan, `Unexpected tag \`${tag}\`, expected no tag (only \`!ref name\` on a scalar is allowed)`, {
          hint: isRef ? '`!ref` takes a source name: `!ref notes.compose`' : 'remove the tag; quote the value if it must be a string',
        });
      }
    }
    if (isScalar(node)) return this.scalar(node, span, isRef);
    if (isMap(node)) {
      const indent = this.checkIndent(node.flow ?? false, node.items[0]?.key as YamlNode | undefined, parentIndent);
      if (node.flow && node.items.length > 0) this.flowWarning(span, 'mapping');
      const entries: YEntry[] = [];
      const seen = new Map<string, YEntry>();
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        const keyNode = pair.key as YamlNode | null;
        const keySpan = this.span(keyNode, span);
        const key = this.key(keyNode, keySpan);
        const valueNode = pair.value as YamlNode | null;
        const value: YNode =
          valueNode === null || (isScalar(valueNode) && valueNode.range?.[0] === valueNode.range?.[1] && valueNode.value === null)
            ? { kind: 'scalar', span: this.emptyValueSpan(keySpan), value: null, style: 'plain', ref: false, empty: true }
            : this.convert(valueNode, indent, depth + 1);
        const e: YEntry = { key, keySpan, value, span: { start: keySpan.start, end: Math.max(keySpan.end, value.span.end) } };
        if (key === '<<' && keyNode && isScalar(keyNode) && keyNode.type === Scalar.PLAIN) {
          this.reporter.report('BP1013', keySpan, 'Unexpected merge key `<<`, expected the fields written out', {
            hint: 'merge keys are not part of YAML 1.2; repeat the fields',
          });
        }
        const first = seen.get(key);
        if (first) {
          this.reporter.report('BP1011', keySpan, `Unexpected duplicate key \`${key}\`, expected each key once`, {
            related: [this.reporter.locate(first.keySpan, `first \`${key}\` is here`)],
          });
          continue;
        }
        seen.set(key, e);
        entries.push(e);
      }
      return { kind: 'map', span, flow: node.flow ?? false, entries };
    }
    if (isSeq(node)) {
      const indent = this.checkIndent(node.flow ?? false, node.items[0] as YamlNode | undefined, parentIndent, true);
      if (node.flow && node.items.length > 0) this.flowWarning(span, 'list');
      const items = node.items.map((item) =>
        item === null
          ? ({ kind: 'scalar', span, value: null, style: 'plain', ref: false, empty: true } satisfies YScalar)
          : this.convert(item as YamlNode, indent, depth + 1),
      );
      return { kind: 'seq', span, flow: node.flow ?? false, items };
    }
    return { kind: 'scalar', span, value: null, style: 'plain', ref: false, empty: false };
  }

  private scalar(node: Scalar, span: Span, ref: boolean): YScalar {
    const style = SCALAR_STYLES[node.type ?? Scalar.PLAIN] ?? 'plain';
    let value = node.value;
    if (typeof value === 'number' && !Number.isFinite(value)) {
      this.reporter.report('BP1016', span, `Unexpected \`${node.source ?? String(value)}\`, expected a value JSON can hold`, {
        hint: 'JSON has no infinity or NaN; use a finite number or a quoted string',
      });
      value = null;
    } else if (typeof value === 'bigint') value = Number(value);
    else if (typeof value === 'string') value = this.wellFormed(value, span);
    if (ref && typeof value !== 'string') value = String(node.source ?? value);
    return { kind: 'scalar', span, value: value as YScalar['value'], style, ref, empty: false };
  }

  /**
   * A double-quoted `"\ud800"` decodes to a lone surrogate, which no JSON document (I-JSON) and
   * so no bundle can hold: a routine source refuses it here, where it is written, and goes on
   * with a replacement character. (Method documents refuse it later, as a document without a
   * canonical form: BP6150.)
   */
  private wellFormed(value: string, span: Span): string {
    if (!this.refuseLoneSurrogates) return value;
    if (value.isWellFormed()) return value;
    const unit = value.charCodeAt(firstLoneSurrogate(value));
    this.reporter.report('BP1016', span, `Unexpected lone surrogate U+${unit.toString(16).toUpperCase()} in a string, expected well-formed Unicode that JSON can hold`, {
      hint: 'write the whole character (a high surrogate escape followed by a low one), or the character itself',
    });
    return value.toWellFormed();
  }

  private key(keyNode: YamlNode | null, keySpan: Span): string {
    if (keyNode !== null && isScalar(keyNode) && typeof keyNode.value === 'string') return this.wellFormed(keyNode.value, keySpan);
    const text = keyNode !== null && isScalar(keyNode) ? String(keyNode.source ?? keyNode.value) : keyNode === null ? '' : String(keyNode);
    this.reporter.report('BP1015', keySpan, `Unexpected ${keyNode !== null && isScalar(keyNode) ? (keyNode.value === null ? 'null' : typeof keyNode.value) : 'non-scalar'} key \`${text}\`, expected a string`, {
      hint: `quote the key: \`'${text}':\``,
    });
    return text;
  }

  private checkIndent(flow: boolean, first: YamlNode | undefined, parentIndent: number | undefined, isSeqNode = false): number | undefined {
    if (flow || !first?.range) return parentIndent;
    // A sequence's items start after `- `; the dash sits two columns before the item.
    const itemOffset = this.offset + first.range[0];
    const text = this.reporter.lines.text;
    // A sequence is indented where its dash is; the first item may carry a tag or anchor.
    const dash = isSeqNode ? text.lastIndexOf('-', itemOffset) : -1;
    const anchor = dash >= 0 && text.lastIndexOf('\n', itemOffset - 1) < dash ? dash : itemOffset;
    const column = this.reporter.lines.position(anchor).column - 1 - (isSeqNode && anchor === itemOffset ? 2 : 0);
    if (parentIndent !== undefined && column !== parentIndent + 2) {
      const lineStart = itemOffset - (this.reporter.lines.position(itemOffset).column - 1);
      this.reporter.report('BP1040', { start: lineStart, end: lineStart + column + 1 }, `Unexpected indentation of ${column - parentIndent} spaces, expected 2`, {
        hint: 'indent nested mappings and lists by two spaces',
      });
    }
    return column;
  }

  /** Just after the `:` of `key:`, where the missing value would be. */
  private emptyValueSpan(keySpan: Span): Span {
    const text = this.reporter.lines.text;
    const colon = text.indexOf(':', keySpan.end);
    const at = colon !== -1 && colon - keySpan.end < 3 ? colon + 1 : keySpan.end;
    return { start: at, end: at };
  }

  /** The node's range starts after its tag; point at the `!tag` itself. */
  private tagSpan(span: Span): Span {
    const text = this.reporter.lines.text;
    const lineStart = text.lastIndexOf('\n', span.start - 1) + 1;
    let bang = text.lastIndexOf('!', span.start);
    if (bang < lineStart) return span;
    while (text[bang - 1] === '!') bang--;
    const end = text.slice(bang).search(/[\s,\]}]/);
    return { start: bang, end: end === -1 ? text.length : bang + end };
  }

  private flowWarning(span: Span, what: string): void {
    this.reporter.report('BP1041', span, `Unexpected non-empty flow ${what}, expected it written expanded`, {
      hint: what === 'list' ? 'write one `- item` per line' : 'write one `key: value` per line',
    });
  }
}
