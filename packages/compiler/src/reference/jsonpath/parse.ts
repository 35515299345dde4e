/**
 * Parses singular absolute JSONPath (PATH-1, PATH-3).
 *
 * The accepted profile is `$` followed by name and index segments only, but the parser
 * recognises the whole of RFC 9535 (filters with their function type rules included).
 * It has to: the compiler tells a valid query that is merely not singular ("only singular
 * paths are allowed") apart from text that is not JSONPath at all, and only a full parse
 * can say which one `$..a[?@.b == 01]` is.
 */
import { isBlank, isDigit } from './chars.js';
import { FilterParser } from './filter.js';
import { ParseFailure, type NonSingular, type ParseResult, type PathSegment, type QueryShape, type Selector, type SingularPath } from './types.js';

/** I-JSON (RFC 7493) exact integers: RFC 9535 limits indices and slice bounds to them. */
const MAX_INT = 2 ** 53 - 1;
const MAX_INT_DIGITS = 16;

const EXPECTED_SINGULAR = 'expected a name or index segment (singular paths only)';
const EXPECTED_SELECTOR = 'expected a selector: a quoted name, an index, `*`, a slice or a filter';

/**
 * Parses a singular absolute JSONPath. Blank space is accepted where RFC 9535 allows it
 * (before each segment, inside brackets) but not around the whole path. Never throws;
 * runs in time linear in the length of `text`.
 */
export function parseSingularPath(text: string): ParseResult {
  const parser = new Parser(text);
  try {
    return { ok: true, path: parser.parse() };
  } catch (caught) {
    if (caught instanceof ParseFailure) return { ok: false, error: caught.error };
    throw caught;
  }
}

class Parser extends FilterParser {
  private readonly segments: PathSegment[] = [];
  private firstNonSingular: { construct: NonSingular; start: number; end: number } | undefined;

  parse(): SingularPath {
    const { text } = this;
    if (text.charCodeAt(0) !== 0x24 /* $ */) {
      if (text.length > 0 && isBlank(text.charCodeAt(0))) {
        this.fail(0, this.blankEnd(0), 'Unexpected blank space before `$`, expected the path to start with `$`');
      }
      this.fail(0, 1, `Unexpected ${this.describe(0)}, expected \`$\``);
    }
    this.pos = 1;
    this.parseSegments(true);
    if (this.pos < text.length) {
      const after = this.blankEnd(this.pos);
      if (after === text.length) {
        this.fail(this.pos, after - this.pos, 'Unexpected blank space at the end of the path, expected nothing after the last segment');
      }
      this.fail(after, 1, `Unexpected ${this.describe(after)}, expected \`.\`, \`[\` or the end of the path`);
    }
    const first = this.firstNonSingular;
    if (first !== undefined) {
      throw new ParseFailure({
        message: `Unexpected ${first.construct} ${this.quote(first.start, first.end)}, ${EXPECTED_SINGULAR}`,
        offset: first.start,
        length: first.end - first.start,
        kind: 'non-singular',
      });
    }
    return { segments: this.segments, text };
  }

  /**
   * `segments = *(S segment)`. Blank space is consumed only when a segment follows it,
   * because after a query inside a filter it belongs to the operator that comes next.
   * Returns how far the segments fit RFC 9535 `singular-query-segments`.
   */
  protected parseSegments(top: boolean): QueryShape {
    let shape: QueryShape = 'singular';
    for (;;) {
      const after = this.blankEnd(this.pos);
      const code = this.text.charCodeAt(after);
      if (code !== 0x2e /* . */ && code !== 0x5b /* [ */) return shape;
      this.pos = after;
      const start = after;
      const result = this.parseSegment();
      if (result.kind === 'singular') {
        // `singular-query` in a filter has no blank space inside brackets; PATH-1 allows it
        // at the top level because RFC 9535 allows it in any bracketed selection.
        if (result.spaced && shape === 'singular') shape = 'spaced';
        if (top) this.segments.push(result.segment);
      } else {
        shape = 'other';
        if (top && this.firstNonSingular === undefined) {
          this.firstNonSingular = { construct: result.construct, start, end: this.pos };
        }
      }
    }
  }

  protected parseSegment(): { kind: 'singular'; segment: PathSegment; spaced: boolean } | { kind: 'other'; construct: NonSingular } {
    const { text } = this;
    const start = this.pos;
    if (text.charCodeAt(start) === 0x5b /* [ */) {
      const { selectors, spaced } = this.parseBracketed();
      if (selectors.length > 1) return { kind: 'other', construct: 'union' };
      const only = selectors[0]!;
      if (only.kind === 'name') return { kind: 'singular', segment: only, spaced };
      if (only.kind === 'index') return { kind: 'singular', segment: only, spaced };
      return { kind: 'other', construct: only.kind };
    }
    if (text.charCodeAt(start + 1) === 0x2e /* .. */) {
      this.pos = start + 2;
      const code = text.charCodeAt(this.pos);
      if (code === 0x5b /* [ */) this.parseBracketed();
      else if (code === 0x2a /* * */) this.pos++;
      else if (this.isNameFirst(this.pos)) this.parseMemberName();
      else this.failAfterDot('..', 'a member name, `*` or `[`');
      return { kind: 'other', construct: 'descendant segment' };
    }
    this.pos = start + 1;
    if (text.charCodeAt(this.pos) === 0x2a /* * */) {
      this.pos++;
      return { kind: 'other', construct: 'wildcard' };
    }
    if (!this.isNameFirst(this.pos)) this.failAfterDot('.', 'a member name or `*`');
    return { kind: 'singular', segment: { kind: 'name', name: this.parseMemberName() }, spaced: false };
  }

  protected failAfterDot(dot: string, expected: string): never {
    const at = this.pos;
    const code = this.text.charCodeAt(at);
    if (isBlank(code)) {
      this.fail(at, this.blankEnd(at) - at, `Unexpected blank space after \`${dot}\`, expected ${expected} right after it`);
    }
    if (isDigit(code)) {
      this.fail(at, 1, `Unexpected ${this.describe(at)} after \`${dot}\`, expected ${expected}; a name starting with a digit needs brackets, e.g. \`['1']\``);
    }
    this.fail(at, 1, `Unexpected ${this.describe(at)} after \`${dot}\`, expected ${expected}`);
  }

  /** `"[" S selector *(S "," S selector) S "]"`; `spaced` tells whether any S was present. */
  protected parseBracketed(): { selectors: Selector[]; spaced: boolean } {
    this.pos++;
    let spaced = this.skipBlank();
    const selectors: Selector[] = [];
    for (;;) {
      selectors.push(this.parseSelector());
      if (this.skipBlank()) spaced = true;
      const code = this.text.charCodeAt(this.pos);
      if (code === 0x5d /* ] */) {
        this.pos++;
        return { selectors, spaced };
      }
      if (code !== 0x2c /* , */) {
        this.fail(this.pos, 1, `Unexpected ${this.describe(this.pos)}, expected \`,\` or \`]\``);
      }
      this.pos++;
      this.skipBlank();
    }
  }

  protected parseSelector(): Selector {
    const { text } = this;
    const start = this.pos;
    const code = text.charCodeAt(start);
    if (code === 0x27 /* ' */ || code === 0x22 /* " */) return { kind: 'name', name: this.parseString() };
    if (code === 0x2a /* * */) {
      this.pos++;
      return { kind: 'wildcard' };
    }
    if (code === 0x3f /* ? */) {
      this.enter(start);
      this.pos++;
      this.skipBlank();
      this.requireLogical(this.parseLogicalOr(), 'as a filter');
      this.depth--;
      return { kind: 'filter' };
    }
    if (code === 0x2d /* - */ || isDigit(code) || code === 0x3a /* : */) return this.parseIndexOrSlice();
    if (code === 0x40 /* @ */ || code === 0x24 /* $ */) {
      this.fail(start, 1, `Unexpected ${this.describe(start)}, ${EXPECTED_SELECTOR}; a filter starts with \`?\``);
    }
    this.fail(start, 1, `Unexpected ${this.describe(start)}, ${EXPECTED_SELECTOR}`);
  }

  /** `index-selector = int`, `slice-selector = [start S] ":" S [end S] [":" [S step]]`. */
  protected parseIndexOrSlice(): Selector {
    const first = this.parseInt('index');
    const afterFirst = this.pos;
    this.skipBlank();
    if (this.text.charCodeAt(this.pos) !== 0x3a /* : */) {
      if (first === undefined) this.fail(this.pos, 1, `Unexpected ${this.describe(this.pos)}, ${EXPECTED_SELECTOR}`);
      const next = this.text.charCodeAt(afterFirst);
      if (next === 0x2e /* . */ || next === 0x65 || next === 0x45 /* e E */) {
        this.fail(
          afterFirst,
          1,
          `Unexpected ${this.describe(afterFirst)} after index \`${first}\`, expected \`,\` or \`]\`; an index is an integer without fraction or exponent`,
        );
      }
      this.pos = afterFirst;
      return { kind: 'index', index: first };
    }
    this.pos++;
    this.skipBlank();
    this.parseInt('slice bound');
    this.skipBlank();
    if (this.text.charCodeAt(this.pos) === 0x3a /* : */) {
      this.pos++;
      this.skipBlank();
      this.parseInt('slice step');
    }
    return { kind: 'slice' };
  }

  /** `int = "0" / (["-"] DIGIT1 *DIGIT)` within the I-JSON range, or undefined if absent. */
  protected parseInt(what: string): number | undefined {
    const { text } = this;
    const start = this.pos;
    let at = start;
    if (text.charCodeAt(at) === 0x2d /* - */) {
      at++;
      if (!isDigit(text.charCodeAt(at))) {
        this.fail(at, 1, `Unexpected ${this.describe(at)} after \`-\`, expected a digit right after it`);
      }
    }
    const digitsStart = at;
    while (isDigit(text.charCodeAt(at))) at++;
    if (at === digitsStart) return undefined;
    const digits = text.slice(digitsStart, at);
    if (digits.length > 1 && digits.startsWith('0')) {
      this.fail(start, at - start, `Unexpected leading zero in ${what} ${this.quote(start, at)}, expected an integer without leading zeros`);
    }
    if (digits === '0' && digitsStart > start) {
      this.fail(start, at - start, `Unexpected negative zero \`-0\` as ${what}, expected \`0\``);
    }
    if (digits.length > MAX_INT_DIGITS || Number(digits) > MAX_INT) {
      this.fail(start, at - start, `Unexpected ${what} ${this.quote(start, at)} outside the I-JSON range, expected an integer from -${MAX_INT} to ${MAX_INT}`);
    }
    this.pos = at;
    const value = Number(digits);
    return digitsStart > start ? -value : value;
  }
}
