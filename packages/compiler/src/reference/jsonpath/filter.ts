import { isBlank, isDigit, isAlpha, isLowerAlpha } from './chars.js';
import { PathScanner } from './scanner.js';
import type { FunctionType, Operand, QueryShape } from './types.js';

const EXPECTED_OPERAND = 'expected a literal, a query (`@…` or `$…`) or a function call';
const COMPARABLE = 'a literal, a singular query or a function returning a value';

/** RFC 9535 section 2.4: the five functions every implementation knows; no extensions here. */
const FUNCTIONS: Record<string, { params: readonly FunctionType[]; result: FunctionType }> = {
  length: { params: ['value'], result: 'value' },
  count: { params: ['nodes'], result: 'value' },
  match: { params: ['value', 'value'], result: 'logical' },
  search: { params: ['value', 'value'], result: 'logical' },
  value: { params: ['nodes'], result: 'value' },
};

const FUNCTION_LIST = '`length`, `count`, `match`, `search` or `value`';

/**
 * The filter grammar of RFC 9535 (section 2.3.5) with its function type rules. A singular path
 * never contains a filter, but only a full parse tells a valid query that is merely not singular
 * from text that is not JSONPath, so filters are recognised here to be refused precisely.
 */
export abstract class FilterParser extends PathScanner {
  /** The segments of a query inside a filter (`@…`, `$…`), from the path grammar. */
  protected abstract parseSegments(top: boolean): QueryShape;

  // Filter expressions (RFC 9535 section 2.3.5). Each level returns what it parsed, and the
  // enclosing context checks it: a literal alone is no test, a test is no comparable, and so on.

  protected parseLogicalOr(): Operand {
    const start = this.pos;
    const first = this.parseLogicalAnd();
    if (!this.takeOperator('||')) return first;
    this.requireLogical(first, 'before `||`');
    do this.requireLogical(this.parseLogicalAnd(), 'after `||`');
    while (this.takeOperator('||'));
    return { kind: 'logical', start, end: this.pos };
  }

  protected parseLogicalAnd(): Operand {
    const start = this.pos;
    const first = this.parseBasic();
    if (!this.takeOperator('&&')) return first;
    this.requireLogical(first, 'before `&&`');
    do this.requireLogical(this.parseBasic(), 'after `&&`');
    while (this.takeOperator('&&'));
    return { kind: 'logical', start, end: this.pos };
  }

  /** Consumes `S op S` when `op` comes next. */
  protected takeOperator(op: string): boolean {
    const at = this.blankEnd(this.pos);
    if (!this.text.startsWith(op, at)) return false;
    this.pos = at + op.length;
    this.skipBlank();
    return true;
  }

  /** `basic-expr = paren-expr / comparison-expr / test-expr`. */
  protected parseBasic(): Operand {
    const { text } = this;
    const start = this.pos;
    if (text.charCodeAt(start) === 0x21 /* ! */) {
      this.pos++;
      this.skipBlank();
      if (text.charCodeAt(this.pos) === 0x28 /* ( */) this.parseParen();
      else {
        const operand = this.parseOperand();
        if (operand.kind === 'literal') {
          this.fail(
            operand.start,
            operand.end - operand.start,
            `Unexpected literal ${this.quote(operand.start, operand.end)} after \`!\`, expected a query, a function call or \`(\``,
          );
        }
        this.requireLogical(operand, 'after `!`');
      }
      return { kind: 'logical', start, end: this.pos };
    }
    if (text.charCodeAt(start) === 0x28 /* ( */) {
      this.parseParen();
      return { kind: 'logical', start, end: this.pos };
    }
    const left = this.parseOperand();
    const at = this.blankEnd(this.pos);
    const op = comparisonOperator(text, at);
    if (op === undefined) return left;
    this.requireComparable(left, `before \`${op}\``);
    this.pos = at + op.length;
    this.skipBlank();
    const code = text.charCodeAt(this.pos);
    if (code === 0x28 /* ( */ || code === 0x21 /* ! */) {
      this.fail(this.pos, 1, `Unexpected ${this.describe(this.pos)} after \`${op}\`, expected ${COMPARABLE}`);
    }
    this.requireComparable(this.parseOperand(), `after \`${op}\``);
    return { kind: 'logical', start, end: this.pos };
  }

  protected parseParen(): void {
    const start = this.pos;
    this.enter(start);
    this.pos++;
    this.skipBlank();
    this.requireLogical(this.parseLogicalOr(), 'in parentheses');
    this.skipBlank();
    if (this.text.charCodeAt(this.pos) !== 0x29 /* ) */) {
      this.fail(this.pos, 1, `Unexpected ${this.describe(this.pos)}, expected \`)\` to close the \`(\` at offset ${start}`);
    }
    this.pos++;
    this.depth--;
  }

  /** A literal, a query or a function call. */
  protected parseOperand(): Operand {
    const { text } = this;
    const start = this.pos;
    const code = text.charCodeAt(start);
    if (code === 0x40 /* @ */ || code === 0x24 /* $ */) {
      this.pos++;
      const shape = this.parseSegments(false);
      return { kind: 'query', shape, start, end: this.pos };
    }
    if (code === 0x27 || code === 0x22) {
      this.parseString();
      return { kind: 'literal', start, end: this.pos };
    }
    if (code === 0x2d || isDigit(code)) {
      this.parseNumber();
      return { kind: 'literal', start, end: this.pos };
    }
    if (isLowerAlpha(code)) {
      let at = start + 1;
      while (isLowerAlpha(text.charCodeAt(at)) || isDigit(text.charCodeAt(at)) || text.charCodeAt(at) === 0x5f) at++;
      const name = text.slice(start, at);
      if (text.charCodeAt(at) === 0x28 /* ( */) return this.parseFunction(name, start, at);
      if ((name === 'true' || name === 'false' || name === 'null') && !isAlpha(text.charCodeAt(at))) {
        this.pos = at;
        return { kind: 'literal', start, end: at };
      }
      if (Object.hasOwn(FUNCTIONS, name) && isBlank(text.charCodeAt(at))) {
        this.fail(at, this.blankEnd(at) - at, `Unexpected blank space after function name \`${name}\`, expected \`(\` right after it`);
      }
    }
    if (isAlpha(code)) {
      let at = start + 1;
      while (isAlpha(text.charCodeAt(at)) || isDigit(text.charCodeAt(at)) || text.charCodeAt(at) === 0x5f) at++;
      this.fail(
        start,
        at - start,
        `Unexpected ${this.quote(start, at)}, ${EXPECTED_OPERAND} (literals are \`true\`, \`false\`, \`null\`, numbers and quoted strings)`,
      );
    }
    this.fail(start, start < text.length ? 1 : 0, `Unexpected ${this.describe(start)}, ${EXPECTED_OPERAND}`);
  }

  /** `number = (int / "-0") [frac] [exp]`; no range limit applies to literals. */
  protected parseNumber(): void {
    const { text } = this;
    const start = this.pos;
    let at = start;
    if (text.charCodeAt(at) === 0x2d) at++;
    const intStart = at;
    while (isDigit(text.charCodeAt(at))) at++;
    if (at === intStart) this.fail(at, 1, `Unexpected ${this.describe(at)} after \`-\`, expected a digit right after it`);
    if (at - intStart > 1 && text.charCodeAt(intStart) === 0x30) {
      this.fail(start, at - start, `Unexpected leading zero in number ${this.quote(start, at)}, expected a number without leading zeros`);
    }
    if (text.charCodeAt(at) === 0x2e /* . */) {
      at++;
      const fracStart = at;
      while (isDigit(text.charCodeAt(at))) at++;
      if (at === fracStart) this.fail(at, 1, `Unexpected ${this.describe(at)} after the decimal point, expected a digit`);
    }
    if (text.charCodeAt(at) === 0x65 || text.charCodeAt(at) === 0x45 /* e E */) {
      at++;
      if (text.charCodeAt(at) === 0x2b || text.charCodeAt(at) === 0x2d) at++;
      const expStart = at;
      while (isDigit(text.charCodeAt(at))) at++;
      if (at === expStart) this.fail(at, 1, `Unexpected ${this.describe(at)} in the exponent, expected a digit`);
    }
    this.pos = at;
  }

  /** `function-expr = function-name "(" S [function-argument *(S "," S function-argument)] S ")"`. */
  protected parseFunction(name: string, start: number, open: number): Operand {
    const signature = Object.hasOwn(FUNCTIONS, name) ? FUNCTIONS[name] : undefined;
    if (signature === undefined) {
      this.fail(start, open - start, `Unexpected unknown function \`${name}\`, expected ${FUNCTION_LIST}`);
    }
    this.enter(start);
    this.pos = open + 1;
    this.skipBlank();
    const args: Operand[] = [];
    if (this.text.charCodeAt(this.pos) !== 0x29 /* ) */) {
      for (;;) {
        args.push(this.parseLogicalOr());
        this.skipBlank();
        const code = this.text.charCodeAt(this.pos);
        if (code === 0x29) break;
        if (code !== 0x2c /* , */) {
          this.fail(this.pos, 1, `Unexpected ${this.describe(this.pos)} in the arguments of \`${name}\`, expected \`,\` or \`)\``);
        }
        this.pos++;
        this.skipBlank();
      }
    }
    this.pos++;
    this.depth--;
    const { params } = signature;
    if (args.length !== params.length) {
      const wanted = params.length === 1 ? '1 argument' : `${params.length} arguments`;
      this.fail(start, this.pos - start, `Unexpected ${args.length} argument${args.length === 1 ? '' : 's'} to \`${name}\`, expected ${wanted}`);
    }
    params.forEach((param, i) => {
      const arg = args[i]!;
      const where = `as argument ${i + 1} of \`${name}\``;
      if (param === 'value') this.requireComparable(arg, where);
      else if (!(arg.kind === 'query' || (arg.kind === 'function' && arg.result === 'nodes'))) {
        this.fail(arg.start, arg.end - arg.start, `Unexpected ${this.describeOperand(arg)} ${where}, expected a query (\`@…\` or \`$…\`)`);
      }
    });
    return { kind: 'function', name, result: signature.result, start, end: this.pos };
  }

  /** RFC 9535 ValueType: a literal, a singular query or a function whose result is a value. */
  protected requireComparable(operand: Operand, where: string): void {
    if (operand.kind === 'literal') return;
    if (operand.kind === 'query' && operand.shape === 'singular') return;
    if (operand.kind === 'function' && operand.result === 'value') return;
    const hint =
      operand.kind === 'query' && operand.shape === 'spaced' ? '; a singular query has no blank space inside its brackets (RFC 9535 `singular-query`)' : '';
    this.fail(operand.start, operand.end - operand.start, `Unexpected ${this.describeOperand(operand)} ${where}, expected ${COMPARABLE}${hint}`);
  }

  /** RFC 9535 LogicalType, where a query tests for existence and a value must be compared. */
  protected requireLogical(operand: Operand, where: string): void {
    if (operand.kind === 'logical' || operand.kind === 'query') return;
    if (operand.kind === 'function' && operand.result !== 'value') return;
    const example =
      operand.kind === 'literal'
        ? `e.g. \`@.a == ${this.text.slice(operand.start, operand.end)}\``
        : `e.g. \`${this.text.slice(operand.start, operand.end)} > 0\``;
    this.fail(
      operand.start,
      operand.end - operand.start,
      `Unexpected ${this.describeOperand(operand)} ${where}, expected a test or a comparison; compare it, ${operand.end - operand.start > 40 ? 'e.g. with `==`' : example}`,
    );
  }

  protected describeOperand(operand: Operand): string {
    const shown = this.quote(operand.start, operand.end);
    switch (operand.kind) {
      case 'literal':
        return `literal ${shown}`;
      case 'query':
        return `${operand.shape === 'singular' ? 'query' : 'non-singular query'} ${shown}`;
      case 'function':
        return `${shown} (returns ${operand.result === 'value' ? 'a value' : operand.result === 'logical' ? 'a logical result' : 'nodes'})`;
      case 'logical':
        return `logical expression ${shown}`;
    }
  }
}

/** `comparison-op = "==" / "!=" / "<=" / ">=" / "<" / ">"`. */
function comparisonOperator(text: string, at: number): string | undefined {
  const two = text.slice(at, at + 2);
  if (two === '==' || two === '!=' || two === '<=' || two === '>=') return two;
  const one = text[at];
  return one === '<' || one === '>' ? one : undefined;
}
