import { canonicalJson, digestOf } from '@berrypack/compiler/bundle';
import { failure } from './errors.js';

const encoder = new TextEncoder();

/**
 * Canonical JSON text of a value that must be JSON (RUN-14: messages, inputs and outputs carry
 * actual JSON). A value JSON cannot hold exactly (undefined inside, NaN, a function, a Map…)
 * fails with `not-json` naming where it is, instead of being dropped or coerced.
 */
export function jsonText(value: unknown, what: string): string {
  try {
    return canonicalJson(value);
  } catch (error) {
    throw failure('not-json', `${what}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

export function byteLength(text: string): number {
  return encoder.encode(text).length;
}

/** The cache key of a schema or any JSON value: its canonical digest. */
export function jsonDigest(value: unknown): string {
  return digestOf(canonicalJson(value));
}

/** A deep copy through canonical JSON, so a caller's later mutation cannot reach recorded data. */
export function copyJson<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(canonicalJson(value)) as T);
}

/** Strings render as exact text, everything else as canonical JSON (RUN-6). */
export function renderValue(value: unknown): string {
  return typeof value === 'string' ? value : canonicalJson(value);
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Own-property read: `__proto__` or `constructor` in data never reaches a prototype. */
export function own<T = unknown>(object: unknown, key: string): T | undefined {
  return isPlainObject(object) && Object.prototype.hasOwnProperty.call(object, key) ? (object[key] as T) : undefined;
}

export function deepFreeze<T>(value: T): T {
  // Typed arrays cannot be frozen; the bundle's bytes are never handed out for writing anyway.
  if (typeof value !== 'object' || value === null || Object.isFrozen(value) || ArrayBuffer.isView(value)) return value;
  for (const key of Reflect.ownKeys(value)) deepFreeze((value as Record<PropertyKey, unknown>)[key]);
  return Object.freeze(value);
}
