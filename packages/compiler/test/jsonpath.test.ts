import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { requireConformance } from '../../../test/support/conformance.js';
import { evaluatePath, formatPath, parseSingularPath, type PathError, type PathSegment, type SingularPath } from '../src/reference/jsonpath.js';

function parsed(text: string): SingularPath {
  const result = parseSingularPath(text);
  if (!result.ok) throw new Error(`expected ${JSON.stringify(text)} to parse, got: ${result.error.message}`);
  return result.path;
}

function refused(text: string): PathError {
  const result = parseSingularPath(text);
  if (result.ok) throw new Error(`expected ${JSON.stringify(text)} to be refused`);
  return result.error;
}

describe('parseSingularPath: accepted paths', () => {
  it.each<[string, PathSegment[]]>([
    ['$', []],
    ['$.a', [{ kind: 'name', name: 'a' }]],
    [
      "$.a.b[0]['c d']",
      [
        { kind: 'name', name: 'a' },
        { kind: 'name', name: 'b' },
        { kind: 'index', index: 0 },
        { kind: 'name', name: 'c d' },
      ],
    ],
    ['$[-1]', [{ kind: 'index', index: -1 }]],
    ['$["x"]', [{ kind: 'name', name: 'x' }]],
    ["$[ 'a' ]", [{ kind: 'name', name: 'a' }]],
    ['$[\t0\n]', [{ kind: 'index', index: 0 }]],
    ['$ .a', [{ kind: 'name', name: 'a' }]],
    [
      "$['a'] ['b']\n.c",
      [
        { kind: 'name', name: 'a' },
        { kind: 'name', name: 'b' },
        { kind: 'name', name: 'c' },
      ],
    ],
    ["$['\\u00e9']", [{ kind: 'name', name: 'é' }]],
    ["$['\\u00E9']", [{ kind: 'name', name: 'é' }]],
    ["$['\\uD834\\uDD1E']", [{ kind: 'name', name: '𝄞' }]],
    ["$['𝄞']", [{ kind: 'name', name: '𝄞' }]],
    [
      '$.é.𝄞_1',
      [
        { kind: 'name', name: 'é' },
        { kind: 'name', name: '𝄞_1' },
      ],
    ],
    ["$['\\'\"\\b\\f\\n\\r\\t\\/\\\\']", [{ kind: 'name', name: '\'"\b\f\n\r\t/\\' }]],
    ['$["\'\\""]', [{ kind: 'name', name: '\'"' }]],
    ['$[9007199254740991]', [{ kind: 'index', index: 9007199254740991 }]],
    ['$[-9007199254740991]', [{ kind: 'index', index: -9007199254740991 }]],
  ])('%j', (text, segments) => {
    expect(parsed(text)).toEqual({ segments, text });
  });
});

describe('parseSingularPath: syntax errors', () => {
  it.each<[string, number, number, RegExp]>([
    ['$[01]', 2, 2, /^Unexpected leading zero in index `01`/],
    ['$[-0]', 2, 2, /^Unexpected negative zero `-0`/],
    ['$[-01]', 2, 3, /^Unexpected leading zero/],
    ['$[1.0]', 3, 1, /^Unexpected `\.` after index `1`, expected `,` or `\]`; an index is an integer/],
    ['$[+1]', 2, 1, /^Unexpected `\+`, expected a selector/],
    ['$[- 1]', 3, 1, /^Unexpected blank space after `-`/],
    ['$[9007199254740992]', 2, 16, /^Unexpected index `9007199254740992` outside the I-JSON range/],
    ['$[-9007199254740992]', 2, 17, /outside the I-JSON range/],
    ['$.a ', 3, 1, /^Unexpected blank space at the end of the path/],
    ['$.a \n', 3, 2, /^Unexpected blank space at the end of the path/],
    [' $.a', 0, 1, /^Unexpected blank space before `\$`/],
    ['', 0, 0, /^Unexpected end of path, expected `\$`/],
    ['a', 0, 1, /^Unexpected `a`, expected `\$`/],
    ['$. a', 2, 1, /^Unexpected blank space after `\.`/],
    ['$.1', 2, 1, /^Unexpected `1` after `\.`.*`\['1'\]`/],
    ['$a', 1, 1, /^Unexpected `a`, expected `\.`, `\[` or the end of the path/],
    ['$.a b', 4, 1, /^Unexpected `b`, expected `\.`, `\[` or the end of the path/],
    ['$[]', 2, 1, /^Unexpected `\]`, expected a selector/],
    ['$[0 1]', 4, 1, /^Unexpected `1`, expected `,` or `\]`/],
    ['$[', 2, 0, /^Unexpected end of path, expected a selector/],
    ["$['a", 2, 2, /^Unexpected end of path inside a string, expected a closing '/],
    ["$['a\nb']", 4, 1, /^Unexpected control character U\+000A in a string, expected it escaped as `\\n`$/],
    ["$['a\u0001']", 4, 1, /^Unexpected control character U\+0001 in a string, expected it escaped as `\\u0001`$/],
    ['$["\\\'"]', 3, 2, /^Unexpected escape `\\'`.*' needs no escape here/],
    ["$['\\\"']", 3, 2, /^Unexpected escape `\\"`/],
    ["$['\\uD800']", 3, 6, /^Unexpected lone high surrogate `\\uD800`/],
    ["$['\\uDC00']", 3, 6, /^Unexpected lone low surrogate `\\uDC00`/],
    ["$['\\u12G4']", 7, 1, /^Unexpected `G` in `\\u` escape/],
    ["$['\ud800']", 3, 1, /^Unexpected lone surrogate U\+D800 in a string/],
    ['$.\ud800', 2, 1, /^Unexpected lone surrogate U\+D800/],
    ['$.\udc00', 2, 1, /^Unexpected lone surrogate U\+DC00 after `\.`/],
    ['$[@.a]', 2, 1, /^Unexpected `@`, expected a selector.*`\?`/],
    ['$[?@.a==01]', 8, 2, /^Unexpected leading zero in number `01`/],
    ['$[?true]', 3, 4, /^Unexpected literal `true` as a filter, expected a test or a comparison/],
    ['$[?length(@.a)]', 3, 11, /^Unexpected `length\(@\.a\)` \(returns a value\) as a filter/],
    ['$[?match(@.a, "x") == true]', 3, 15, /^Unexpected `match\(@\.a, "x"\)` \(returns a logical result\) before `==`/],
    ['$[?@.* == 1]', 3, 3, /^Unexpected non-singular query `@\.\*` before `==`/],
    ["$[?@[ 'a' ] == 1]", 3, 8, /^Unexpected non-singular query `@\[ 'a' \]` before `==`.*no blank space inside its brackets/],
    ['$[?@[0, 1] == 1]', 3, 7, /^Unexpected non-singular query `@\[0, 1\]` before `==`, expected a literal, a singular query or a function returning a value$/],
    ['$[?count(1) > 0]', 9, 1, /^Unexpected literal `1` as argument 1 of `count`, expected a query/],
    ['$[?length(@.a, @.b) > 0]', 3, 16, /^Unexpected 2 arguments to `length`, expected 1 argument/],
    ['$[?foo(@.a)]', 3, 3, /^Unexpected unknown function `foo`/],
    ['$[?count (@.*) == 1]', 8, 1, /^Unexpected blank space after function name `count`/],
    ['$[?@.a == True]', 10, 4, /^Unexpected `True`/],
    ['$[?(@.a]', 7, 1, /^Unexpected `\]`, expected `\)` to close the `\(` at offset 3/],
    ['$..a[01]', 5, 2, /^Unexpected leading zero/],
  ])('%j', (text, offset, length, message) => {
    const error = refused(text);
    expect(error.kind).toBe('syntax');
    expect(error.message).toMatch(message);
    expect([error.offset, error.length]).toEqual([offset, length]);
  });
});

describe('parseSingularPath: valid RFC 9535 that is not singular', () => {
  it.each<[string, number, number, string]>([
    ['$..a', 1, 3, 'Unexpected descendant segment `..a`, expected a name or index segment (singular paths only)'],
    ['$.*', 1, 2, 'Unexpected wildcard `.*`, expected a name or index segment (singular paths only)'],
    ['$[*]', 1, 3, 'Unexpected wildcard `[*]`, expected a name or index segment (singular paths only)'],
    ['$[1:2]', 1, 5, 'Unexpected slice `[1:2]`, expected a name or index segment (singular paths only)'],
    ["$['a','b']", 1, 9, "Unexpected union `['a','b']`, expected a name or index segment (singular paths only)"],
    ['$[?@.a]', 1, 6, 'Unexpected filter `[?@.a]`, expected a name or index segment (singular paths only)'],
    ['$.x[?length(@.y) > 2].z', 3, 18, 'Unexpected filter `[?length(@.y) > 2]`, expected a name or index segment (singular paths only)'],
    ['$.a ..b', 4, 3, 'Unexpected descendant segment `..b`, expected a name or index segment (singular paths only)'],
  ])('%j', (text, offset, length, message) => {
    expect(refused(text)).toEqual({ kind: 'non-singular', offset, length, message });
  });

  it('reports the first non-singular segment', () => {
    expect(refused('$.a[*]..b').offset).toBe(3);
  });

  it('shortens a long segment in the message', () => {
    const error = refused(`$[?@.a == '${'x'.repeat(100)}']`);
    expect(error.kind).toBe('non-singular');
    expect(error.length).toBe(112);
    expect(error.message).toBe(`Unexpected filter \`[?@.a == '${'x'.repeat(30)}…\`, expected a name or index segment (singular paths only)`);
  });
});

describe('parseSingularPath: robustness', () => {
  it('refuses nesting beyond its limit without throwing', () => {
    for (const text of [`$[?${'('.repeat(100_000)}`, `$[?${'@[?'.repeat(100_000)}`, `$[?${'length('.repeat(100_000)}`]) {
      expect(refused(text).message).toMatch(/^Unexpected nesting deeper than \d+ levels/);
    }
    expect(parsed('$').segments).toEqual([]);
    expect(refused(`$[?${'('.repeat(30)}@.a${')'.repeat(30)}]`).kind).toBe('non-singular');
  });

  it('never throws on arbitrary input', () => {
    const alphabet = [
      '$',
      '@',
      '.',
      '..',
      '[',
      ']',
      '(',
      ')',
      '?',
      '*',
      ':',
      ',',
      "'",
      '"',
      '\\',
      'u',
      'D800',
      'a',
      '0',
      '1',
      '-',
      ' ',
      '\n',
      '=',
      '!',
      '<',
      '&&',
      '||',
      'length',
      'true',
      '\ud800',
      '𝄞',
    ];
    let seed = 42;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let i = 0; i < 20_000; i++) {
      let text = random() < 0.9 ? '$' : '';
      const n = Math.floor(random() * 12);
      for (let j = 0; j < n; j++) text += alphabet[Math.floor(random() * alphabet.length)];
      const result = parseSingularPath(text);
      if (!result.ok) {
        expect(result.error.offset).toBeGreaterThanOrEqual(0);
        expect(result.error.offset + result.error.length).toBeLessThanOrEqual(text.length);
        expect(result.error.message).toMatch(/^Unexpected /);
      }
    }
  });

  it('answers long paths without a quadratic blow-up', () => {
    const long = [
      '$' + '.a'.repeat(200_000),
      '$' + " ['a']".repeat(100_000),
      `$['${'\\u00e9'.repeat(100_000)}']`,
      `$[?${'@.a && '.repeat(100_000)}@.a]`,
      `$[?@.a${' '.repeat(500_000)}]`,
      `$[${'1'.repeat(500_000)}]`,
      `$[?${'(@.a) || '.repeat(100_000)}@.a]`,
    ];
    // Speed is measured in bench/, not asserted (CONTRACTS.md): a quadratic parser would
    // outlast the test's timeout on these. Each one is answered, a path or a refusal.
    for (const text of long) {
      const result = parseSingularPath(text);
      expect(result.ok ? result.path.segments.length : result.error.message).toBeTruthy();
    }
  });
});

describe('evaluatePath', () => {
  const document = { a: { b: [10, 20, 30], n: null }, 'c d': 'x', list: [] as unknown[] };

  it('follows names and indices, counting negative indices from the end', () => {
    expect(evaluatePath(parsed('$.a.b[-1]'), document)).toEqual({ found: true, value: 30 });
    expect(evaluatePath(parsed('$.a.b[0]'), document)).toEqual({ found: true, value: 10 });
    expect(evaluatePath(parsed("$['c d']"), document)).toEqual({ found: true, value: 'x' });
    expect(evaluatePath(parsed('$'), document)).toEqual({ found: true, value: document });
  });

  it('treats null as data', () => {
    expect(evaluatePath(parsed('$.a.n'), document)).toEqual({ found: true, value: null });
    expect(evaluatePath(parsed('$'), null)).toEqual({ found: true, value: null });
  });

  it('reports the index of the missing segment', () => {
    expect(evaluatePath(parsed('$.a.missing.x'), document)).toEqual({ found: false, at: 1 });
    expect(evaluatePath(parsed('$.a.b[3]'), document)).toEqual({ found: false, at: 2 });
    expect(evaluatePath(parsed('$.a.b[-4]'), document)).toEqual({ found: false, at: 2 });
    expect(evaluatePath(parsed('$.list[0]'), document)).toEqual({ found: false, at: 1 });
  });

  it('finds nothing through the wrong kind of value or the prototype', () => {
    expect(evaluatePath(parsed('$.a.b.length'), document)).toEqual({ found: false, at: 2 });
    expect(evaluatePath(parsed('$.a[0]'), document)).toEqual({ found: false, at: 1 });
    expect(evaluatePath(parsed('$.a.n.x'), document)).toEqual({ found: false, at: 2 });
    expect(evaluatePath(parsed("$['c d'][0]"), document)).toEqual({ found: false, at: 1 });
    expect(evaluatePath(parsed('$.constructor'), document)).toEqual({ found: false, at: 0 });
    expect(evaluatePath(parsed('$.__proto__'), document)).toEqual({ found: false, at: 0 });
  });
});

describe('formatPath', () => {
  it('writes the RFC 9535 normalized form', () => {
    expect(formatPath([])).toBe('$');
    expect(formatPath(parsed('$.a.b[0]["c d"]').segments)).toBe("$['a']['b'][0]['c d']");
    expect(formatPath([{ kind: 'name', name: "it's\\\u0000\u001f\b\t\n\f\r\u007f/é𝄞" }])).toBe("$['it\\'s\\\\\\u0000\\u001f\\b\\t\\n\\f\\r\u007f/é𝄞']");
    expect(formatPath([{ kind: 'index', index: -1 }])).toBe('$[-1]');
  });

  it('round-trips through parseSingularPath', () => {
    const segments: PathSegment[] = [
      { kind: 'name', name: 'a\'"\\\n\u0001😀' },
      { kind: 'index', index: 3 },
    ];
    expect(parsed(formatPath(segments)).segments).toEqual(segments);
  });
});

// RFC 9535 compliance test suite, read in place.

interface CtsCase {
  name: string;
  selector: string;
  document?: unknown;
  result?: unknown[];
  result_paths?: string[];
  results?: unknown[][];
  results_paths?: string[][];
  invalid_selector?: boolean;
}

/**
 * RFC 9535 `abs-singular-query`, widened by the PATH-1 decision to blank space inside the
 * brackets. Written independently of the parser, and only applied to selectors the suite
 * calls valid, so string contents need no checking here.
 */
const B = '[ \\t\\n\\r]*';
const QUOTED = `(?:'(?:[^'\\\\]|\\\\[\\s\\S])*'|"(?:[^"\\\\]|\\\\[\\s\\S])*")`;
const SHORTHAND = '[A-Za-z_\\u0080-\\uffff][A-Za-z0-9_\\u0080-\\uffff]*';
const SINGULAR = new RegExp(`^\\$(?:${B}(?:\\[${B}(?:${QUOTED}|-?[0-9]+)${B}\\]|\\.${SHORTHAND}))*$`);
const SPACED_BRACKET = new RegExp(`\\[[ \\t\\n\\r]|(?:${QUOTED}|[0-9])[ \\t\\n\\r]+\\]`);

const locating = (() => {
  try {
    return { dir: requireConformance('jsonpath') };
  } catch (error) {
    return { error };
  }
})();

if ('error' in locating) {
  it('locates the RFC 9535 compliance suite', () => {
    throw locating.error;
  });
} else if (locating.dir === undefined) {
  it.skip('RFC 9535 compliance suite (not found)', () => {});
} else {
  const suite = JSON.parse(readFileSync(path.join(locating.dir, 'cts.json'), 'utf8')) as { tests: CtsCase[] };
  const invalid = suite.tests.filter((c) => c.invalid_selector === true);
  const valid = suite.tests.filter((c) => c.invalid_selector !== true);
  const singular = valid.filter((c) => SINGULAR.test(c.selector));
  const spaced = singular.filter((c) => SPACED_BRACKET.test(c.selector));
  const nonSingular = valid.filter((c) => !SINGULAR.test(c.selector));
  const normalized = suite.tests.flatMap((c) => [
    ...(c.result_paths ?? []).map((p, i) => ({ name: c.name, path: p, document: c.document, value: c.result?.[i] })),
    ...(c.results_paths ?? []).flatMap((paths, k) => paths.map((p, i) => ({ name: c.name, path: p, document: c.document, value: c.results?.[k]?.[i] }))),
  ]);

  describe(`RFC 9535 compliance suite (${suite.tests.length} cases)`, () => {
    it('has every class of case', () => {
      expect(singular.length).toBeGreaterThan(0);
      expect(spaced.length).toBeGreaterThan(0);
      expect(nonSingular.length).toBeGreaterThan(0);
      expect(invalid.length).toBeGreaterThan(0);
      expect(normalized.length).toBeGreaterThan(0);
      expect(singular.length + nonSingular.length + invalid.length).toBe(suite.tests.length);
    });

    describe(`singular selectors (${singular.length}, ${spaced.length} with blank space inside brackets): accepted, evaluated as the suite says`, () => {
      it.each(singular)('$name: $selector', (c) => {
        const result = parseSingularPath(c.selector);
        expect(result).toMatchObject({ ok: true });
        if (!result.ok) return;
        expect(c.result, 'a singular query has one determined result').toBeDefined();
        const expected = c.result ?? [];
        expect(expected.length).toBeLessThanOrEqual(1);
        const evaluated = evaluatePath(result.path, c.document);
        if (expected.length === 0) expect(evaluated.found).toBe(false);
        else expect(evaluated).toEqual({ found: true, value: expected[0] });
      });
    });

    describe(`valid non-singular selectors (${nonSingular.length}): refused as non-singular at a segment`, () => {
      it.each(nonSingular)('$name: $selector', (c) => {
        const result = parseSingularPath(c.selector);
        expect(result).toMatchObject({ ok: false, error: { kind: 'non-singular' } });
        if (result.ok) return;
        expect(['.', '[']).toContain(c.selector[result.error.offset]);
        expect(result.error.length).toBeGreaterThan(0);
        expect(result.error.message).toMatch(/^Unexpected (wildcard|filter|slice|union|descendant segment) .*, expected a name or index segment/);
      });
    });

    describe(`invalid selectors (${invalid.length}): refused as syntax errors`, () => {
      it.each(invalid)('$name: $selector', (c) => {
        const result = parseSingularPath(c.selector);
        expect(result).toMatchObject({ ok: false, error: { kind: 'syntax' } });
        if (result.ok) return;
        expect(result.error.offset).toBeGreaterThanOrEqual(0);
        expect(result.error.offset + result.error.length).toBeLessThanOrEqual(c.selector.length);
        expect(result.error.message).toMatch(/^Unexpected .*, expected /);
      });
    });

    describe(`normalized result paths (${normalized.length}): parsed, formatted back unchanged, evaluated to their node`, () => {
      it.each(normalized)('$name: $path', (c) => {
        const path = parsed(c.path);
        expect(formatPath(path.segments)).toBe(c.path);
        expect(evaluatePath(path, c.document)).toEqual({ found: true, value: c.value });
      });
    });
  });
}
