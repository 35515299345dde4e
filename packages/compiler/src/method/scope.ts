import type { Span } from '../diagnostics/reporter.js';
import type { ConnectionType, DataType } from './types.js';

/**
 * Everything a reference can name, gathered before any step is checked: map order is
 * presentation, so a step may read an output declared further down. A declaration that
 * failed its own checks is still listed (type undefined) so that references to it do not
 * add a second, misleading error.
 */
export interface MethodScope {
  inputs: Map<string, { type: DataType | undefined; span: Span }>;
  state: Map<string, { type: DataType | undefined; span: Span }>;
  environment: Map<string, { type: ConnectionType | undefined; span: Span }>;
  outputs: Map<string, OutputInfo>;
  steps: Map<string, StepInfo>;
}

export interface OutputInfo {
  name: string;
  step: string;
  /** As declared; downstream it is a list when `list` is true (MTH-11). */
  type: DataType | undefined;
  list: boolean;
  keySpan: Span;
}

export interface StepInfo {
  key: string;
  keySpan: Span;
  outputs: string[];
  isEach: boolean;
}

export function emptyScope(): MethodScope {
  return { inputs: new Map(), state: new Map(), environment: new Map(), outputs: new Map(), steps: new Map() };
}

/** The type a consumer sees: an `each` step's outputs are lists of the declared type. */
export function downstreamType(output: OutputInfo): DataType | undefined {
  if (output.type === undefined) return undefined;
  return output.list ? { type: 'list', items: output.type } : output.type;
}
