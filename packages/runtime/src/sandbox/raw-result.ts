import type { RawResult } from './protocol.js';

export type RawFailure = Extract<RawResult, { ok: false }>;

/** A failed result, with what is known of where and why. */
export function failure(code: RawFailure['code'], message: string, extra?: Partial<RawFailure>): RawResult {
  return {
    ok: false,
    code,
    message,
    stack: extra?.stack,
    name: extra?.name,
    guestCode: extra?.guestCode,
    importer: extra?.importer,
    specifier: extra?.specifier,
  };
}

export function describeHostError(e: unknown): string {
  if (e instanceof Error) return `${e.name}: ${e.message}`;
  return String(e);
}
