export { checkMethod, METHOD_FORMAT } from './check-method.js';
export { isMethodFile } from './parse-document.js';
export { findPlaceholders, type Placeholder } from './templates.js';
export { elementType } from './types.js';
export type { CheckSpec, CompiledMethod, CompiledStep, ConnectionType, DataType, MethodCheckResult, Reference, ReferenceRoot } from './types.js';
