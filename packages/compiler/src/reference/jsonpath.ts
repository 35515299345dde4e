/**
 * Singular absolute JSONPath (PATH-1, PATH-3), the `@berrypack/compiler/jsonpath` seam: parsed
 * (jsonpath/parse.ts, with the filter grammar it recognises only to refuse in filter.ts),
 * evaluated (evaluate.ts) and formatted (format.ts) the same way at build and at run time.
 */
export { parseSingularPath } from './jsonpath/parse.js';
export { evaluatePath } from './jsonpath/evaluate.js';
export { formatPath } from './jsonpath/format.js';
export type { EvalResult, ParseResult, PathError, PathSegment, SingularPath } from './jsonpath/types.js';
