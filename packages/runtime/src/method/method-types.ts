/**
 * The compiled method the runner executes. The runtime imports no part of the compiler but
 * its bundle and JSONPath seams, so this is a structural copy of the compiler's
 * `CompiledMethod` (packages/compiler/src/method/types.ts): what `checkMethod` returns can be
 * passed here as it is. Keep the two in step.
 */
export type ConnectionType = 'browser' | 'service' | 'desktop' | 'files' | 'tool';

export interface CompiledMethod {
  versionId: string;
  name: string;
  goal: string;
  document: unknown;
  inputs: Record<string, DataType & { default?: unknown }>;
  state: Record<string, DataType & { file: string; default?: unknown }>;
  environment: Record<string, { type: ConnectionType; description: string }>;
  steps: Record<string, CompiledStep>;
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
  name: string;
  path: (string | number)[];
  text: string;
}

export interface CompiledStep {
  key: string;
  title?: string;
  kind: 'do' | 'ask';
  text: string;
  in: Record<string, Reference>;
  each?: { alias: string; ref: Reference };
  when?: Reference;
  after: string[];
  out: Record<string, DataType>;
  check?: CheckSpec;
  changes: Reference[];
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
