export type { Diagnostic, RelatedLocation, Severity } from './diagnostics/diagnostic.js';
export { hasErrors, sortDiagnostics } from './diagnostics/diagnostic.js';
export { CODES, type Code, type CodeInfo } from './diagnostics/codes.js';
export { codeFrame } from './diagnostics/code-frame.js';
export { LineIndex, type Position } from './diagnostics/line-index.js';
export { checkSource, type CheckSourceResult, type RoutineSource } from './routine/check-routine.js';
export type { SourceKind } from './routine/context.js';
export { checkDirectory, type CheckDirectoryResult } from './check-directory.js';
export { parseSingularPath, evaluatePath, formatPath, type PathSegment, type SingularPath } from './reference/jsonpath.js';
