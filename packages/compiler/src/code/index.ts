export { analyzeCodeRoutine, checkCodeBody, type CheckedCodeBody } from './analyze-code-routine.js';
export { CodeCache, type ModuleAnalysis } from './code-cache.js';
export { accountCodeSize, sizeExcessMessage, CODE_SIZE_LIMIT, type SizeAccount } from './size-account.js';
export { HOST_GLOBALS } from './check-host-globals.js';
export { PARSE_OPTIONS } from './parse-code.js';
export type { BodySourceMap } from './body-map.js';
export type { CapturedModule, CodeContext, CodeRoutineInput, CodeRoutineResult } from './types.js';
