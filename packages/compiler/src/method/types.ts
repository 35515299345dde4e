import type { Diagnostic } from '../diagnostics/diagnostic.js';

export interface MethodCheckResult {
  /** Undefined when the document has errors; warnings leave it compiled. */
  method: CompiledMethod | undefined;
  diagnostics: Diagnostic[];
}

export type ConnectionType = 'browser' | 'service' | 'desktop' | 'files' | 'tool';

export interface CompiledMethod {
  /** MTH-16: `sha256-<hex>` of the canonical JSON of `document`. */
  versionId: string;
  name: string;
  goal: string;
  /** The document as JSON (what the runner reads). */
  document: unknown;
  inputs: Record<string, DataType & { default?: unknown }>;
  state: Record<string, DataType & { file: string; default?: unknown }>;
  environment: Record<string, { type: ConnectionType; description: string }>;
  /** In document order. */
  steps: Record<string, CompiledStep>;
  /** A topological order, stable: document order among ready steps. */
  order: string[];
  result: { single: Reference } | { map: Record<string, Reference> };
  outputs: Record<string, { step: string; type: DataType; list: boolean }>;
}

export type ScalarTypeName = 'text' | 'number' | 'boolean' | 'file';

export type DataType =
  | { type: ScalarTypeName; description?: string; format?: string }
  | { type: 'record'; description?: string; fields: Record<string, DataType> }
  | { type: 'list'; description?: string; items?: DataType; fields?: Record<string, DataType> };

export type ReferenceRoot = 'inputs' | 'state' | 'output' | 'run' | 'environment';

export interface Reference {
  root: ReferenceRoot;
  /** The input, state, output or connection name; `started_at` for `run`. */
  name: string;
  /** The dotted suffix: field names and list indexes. */
  path: (string | number)[];
  /** As written. */
  text: string;
}

export interface CompiledStep {
  key: string;
  title?: string;
  kind: 'do' | 'ask';
  /** The instructions (`do`) or the request (`ask`). */
  text: string;
  in: Record<string, Reference>;
  each?: { alias: string; ref: Reference };
  when?: Reference;
  after: string[];
  out: Record<string, DataType>;
  check?: CheckSpec;
  changes: Reference[];
  /** Steps this one waits for, from data references and `after`, sorted. */
  dependsOn: string[];
}

export type CheckSpec =
  | { kind: 'english'; text: string }
  | { kind: 'equals'; actual: string; expected: string }
  | { kind: 'count'; value: string; min?: number; max?: number }
  | { kind: 'present'; name: string }
  | { kind: 'file'; name: string };

/** The type of one list item: `items`, or a record of the list's `fields`. */
export function elementType(list: Extract<DataType, { type: 'list' }>): DataType {
  if (list.items !== undefined) return list.items;
  return { type: 'record', fields: list.fields ?? {} };
}
