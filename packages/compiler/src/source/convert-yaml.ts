import type { Node as YamlNode, Scalar } from 'yaml';
import type { Reporter, Span } from '../diagnostics/reporter.js';
import { firstLoneSurrogate } from '../text/first-lone-surrogate.js';
import { MAX_YAML_DEPTH } from './yaml-depth.js';
import { yamlModule } from './yaml-module.js';
import { EntryNode, MapNode, ScalarNode, SeqNode, type YEntry, type YNode, type YScalar, type ScalarStyle } from './yaml-tree.js';

const SCALAR_STYLES: Record<string, ScalarStyle> = {
  PLAIN: 'plain',
  QUOTE_SINGLE: 'single',
  QUOTE_DOUBLE: 'double',
  BLOCK_LITERAL: 'literal',
  BLOCK_FOLDED: 'folded',
} satisfies Record<Scalar.Type, ScalarStyle>;

/** Ends a conversion whose depth was reported: like a syntax error, a tree cut short is not checked. */
export class TooDeep extends Error {}

/**
 * The yaml library's document to the located tree of yaml-tree.ts, enforcing on the way what
 * the tree cannot express (SRC-2 anchors, aliases, tags and keys; SRC-5 style warnings).
 */
export class Converter {
  private readonly yaml = yamlModule();

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
      this.reporter.report(
        'BP1010',
        nodeSpan.end > nodeSpan.start ? nodeSpan : { start: nodeSpan.start, end: nodeSpan.start + 1 },
        `Unexpected nesting deeper than ${MAX_YAML_DEPTH} levels, expected a shallower frontmatter`,
        {
          hint: 'flatten the structure',
        },
      );
      throw new TooDeep();
    }
    if (this.yaml.isAlias(node)) {
      this.reporter.report('BP1012', nodeSpan, `Unexpected alias \`*${node.source}\`, expected a value written out`, {
        hint: 'anchors and aliases are not part of the Berry profile; repeat the value',
      });
      return new ScalarNode(nodeSpan.start, nodeSpan.end, null, 'plain', false, false);
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
      if (!(isRef && this.yaml.isScalar(node))) {
        this.reporter.report('BP1014', tagSpan, `Unexpected tag \`${tag}\`, expected no tag (only \`!ref name\` on a scalar is allowed)`, {
          hint: isRef ? '`!ref` takes a source name: `!ref notes.compose`' : 'remove the tag; quote the value if it must be a string',
        });
      }
    }
    if (this.yaml.isScalar(node)) return this.scalar(node, span, isRef);
    if (this.yaml.isMap(node)) {
      const indent = this.checkIndent(node.flow ?? false, node.items[0]?.key as YamlNode | undefined, parentIndent);
      if (node.flow && node.items.length > 0) this.flowWarning(span, 'mapping');
      const entries: YEntry[] = [];
      const seen = new Map<string, YEntry>();
      for (const pair of node.items) {
        if (!this.yaml.isPair(pair)) continue;
        const keyNode = pair.key as YamlNode | null;
        const keySpan = this.span(keyNode, span);
        const key = this.key(keyNode, keySpan);
        const valueNode = pair.value as YamlNode | null;
        const value: YNode =
          valueNode === null || (this.yaml.isScalar(valueNode) && valueNode.range?.[0] === valueNode.range?.[1] && valueNode.value === null)
            ? this.emptyValue(keySpan)
            : this.convert(valueNode, indent, depth + 1);
        const e = new EntryNode(key, keySpan.start, keySpan.end, value);
        if (key === '<<' && keyNode && this.yaml.isScalar(keyNode) && keyNode.type === 'PLAIN') {
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
      return new MapNode(span.start, span.end, node.flow ?? false, entries);
    }
    if (this.yaml.isSeq(node)) {
      const indent = this.checkIndent(node.flow ?? false, node.items[0] as YamlNode | undefined, parentIndent, true);
      if (node.flow && node.items.length > 0) this.flowWarning(span, 'list');
      const items = node.items.map((item) =>
        item === null ? new ScalarNode(span.start, span.end, null, 'plain', false, true) : this.convert(item as YamlNode, indent, depth + 1),
      );
      return new SeqNode(span.start, span.end, node.flow ?? false, items);
    }
    return new ScalarNode(span.start, span.end, null, 'plain', false, false);
  }

  private scalar(node: Scalar, span: Span, ref: boolean): YScalar {
    const style = SCALAR_STYLES[node.type ?? 'PLAIN'] ?? 'plain';
    let value = node.value;
    if (typeof value === 'number' && !Number.isFinite(value)) {
      this.reporter.report('BP1016', span, `Unexpected \`${node.source ?? String(value)}\`, expected a value JSON can hold`, {
        hint: 'JSON has no infinity or NaN; use a finite number or a quoted string',
      });
      value = null;
    } else if (typeof value === 'bigint') value = Number(value);
    else if (typeof value === 'string') value = this.wellFormed(value, span);
    if (ref && typeof value !== 'string') value = String(node.source ?? value);
    return new ScalarNode(span.start, span.end, value as YScalar['value'], style, ref, false);
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
    this.reporter.report(
      'BP1016',
      span,
      `Unexpected lone surrogate U+${unit.toString(16).toUpperCase()} in a string, expected well-formed Unicode that JSON can hold`,
      {
        hint: 'write the whole character (a high surrogate escape followed by a low one), or the character itself',
      },
    );
    return value.toWellFormed();
  }

  private key(keyNode: YamlNode | null, keySpan: Span): string {
    if (keyNode !== null && this.yaml.isScalar(keyNode) && typeof keyNode.value === 'string') return this.wellFormed(keyNode.value, keySpan);
    const text = keyNode !== null && this.yaml.isScalar(keyNode) ? String(keyNode.source ?? keyNode.value) : keyNode === null ? '' : String(keyNode);
    this.reporter.report(
      'BP1015',
      keySpan,
      `Unexpected ${keyNode !== null && this.yaml.isScalar(keyNode) ? (keyNode.value === null ? 'null' : typeof keyNode.value) : 'non-scalar'} key \`${text}\`, expected a string`,
      {
        hint: `quote the key: \`'${text}':\``,
      },
    );
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
      this.reporter.report(
        'BP1040',
        { start: lineStart, end: lineStart + column + 1 },
        `Unexpected indentation of ${column - parentIndent} spaces, expected 2`,
        {
          hint: 'indent nested mappings and lists by two spaces',
        },
      );
    }
    return column;
  }

  /** The missing value of `key:`, just after the `:`. */
  private emptyValue(keySpan: Span): YScalar {
    const text = this.reporter.lines.text;
    const colon = text.indexOf(':', keySpan.end);
    const at = colon !== -1 && colon - keySpan.end < 3 ? colon + 1 : keySpan.end;
    return new ScalarNode(at, at, null, 'plain', false, true);
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
