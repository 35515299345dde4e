import { CODES } from '../diagnostics/codes.js';
import type { BundleCode } from '../diagnostics/codes/bundle.js';

export interface BundleError {
  code: BundleCode;
  /** `BND-n`. */
  rule: string;
  /** Names what did not match: "Unexpected …, expected …". */
  message: string;
}

/** Thrown inside the loader and turned into its `{ok: false, error}` result. */
export class Refused {
  constructor(readonly error: BundleError) {}
}

export function refuse(code: BundleCode, message: string): Refused {
  return new Refused({ code, rule: CODES[code].rule, message });
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function kindOf(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'list';
  if (typeof value === 'object') return 'object';
  if (typeof value === 'string') return JSON.stringify(abbreviate(value, 40));
  return String(value);
}

export function abbreviate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
