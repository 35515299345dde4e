export type PathSegment = { kind: 'name'; name: string } | { kind: 'index'; index: number };

export interface SingularPath {
  segments: PathSegment[];
  text: string;
}

export interface PathError {
  /** "Unexpected X, expected Y". */
  message: string;
  /** 0-based UTF-16 offset into the path text of the offending segment or character. */
  offset: number;
  /** Length of the offending part, at least 1 except at the end of the text. */
  length: number;
  /**
   * `non-singular`: valid RFC 9535, but uses a wildcard, filter, slice, union or descendant
   * segment (function calls can only occur inside a filter, which is what gets reported).
   */
  kind: 'syntax' | 'non-singular';
}

export type ParseResult = { ok: true; path: SingularPath } | { ok: false; error: PathError };

export type EvalResult = { found: true; value: unknown } | { found: false; at: number };

export type NonSingular = 'wildcard' | 'filter' | 'slice' | 'union' | 'descendant segment';

export type Selector = { kind: 'name'; name: string } | { kind: 'index'; index: number } | { kind: 'wildcard' | 'slice' | 'filter' };

export type FunctionType = 'value' | 'logical' | 'nodes';

/** `spaced`: singular but for blank space inside a bracket, which RFC 9535 `singular-query` excludes. */
export type QueryShape = 'singular' | 'spaced' | 'other';

/** What an expression turned out to be, so that its context can apply the RFC 9535 type rules. */
export type Operand = { start: number; end: number } & (
  { kind: 'literal' } | { kind: 'query'; shape: QueryShape } | { kind: 'function'; name: string; result: FunctionType } | { kind: 'logical' }
);

/** Unwinding by exception keeps the recursive descent free of error plumbing; it never escapes parseSingularPath. */
export class ParseFailure {
  constructor(readonly error: PathError) {}
}
