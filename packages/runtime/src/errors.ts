/**
 * Every failure the runtime reports has a stable `code`. Errors thrown by the API (a bundle
 * that does not verify, a preparation that is refused, a start that names no definition) are
 * instances of these classes; failures inside an execution are outcomes, never throws.
 */
export class RuntimeError extends Error {
  override name = 'RuntimeError';
  constructor(
    /** Stable, kebab-case (`not-granted`, `invalid-input`, …) or a `BP4xxx` bundle code. */
    readonly code: string,
    message: string,
    /** The rule of spec/rules.md the check enforces, when there is one. */
    readonly rule?: string,
  ) {
    super(message);
  }
}

/** BND-4: the bundle did not verify; nothing of it was used. `code` is the loader's `BP40xx`. */
export class BundleLoadError extends RuntimeError {
  override name = 'BundleLoadError';
  constructor(code: string, rule: string, message: string) {
    super(code, message, rule);
  }
}

/** RUN-11: `prepare` refused; `requirement` names what was not granted or bound. */
export class PreparationError extends RuntimeError {
  override name = 'PreparationError';
  constructor(
    code:
      | 'not-granted'
      | 'missing-env'
      | 'missing-model'
      | 'unknown-provider'
      | 'unsupported'
      | 'invalid-preparation'
      | 'no-model'
      | 'missing-api-key'
      | 'invalid-settings'
      | 'tool-unavailable',
    message: string,
    readonly requirement: string,
  ) {
    super(code, message, 'RUN-11');
  }
}

/** The `{code, message}` of a failed call or execution, as recorded and as `run --json` prints it. */
export interface CallError {
  code: string;
  message: string;
}

/** A failure inside an execution: it fails the call that raised it and travels to its caller. */
export class CallFailure extends Error {
  override name = 'CallFailure';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }

  toJSON(): CallError {
    return { code: this.code, message: this.message };
  }
}

export function failure(code: string, message: string): CallFailure {
  return new CallFailure(code, message);
}

/** Anything thrown, as a recordable `{code, message}`; unknown exceptions become `internal`. */
export function toCallError(error: unknown): CallError {
  if (error instanceof CallFailure) return { code: error.code, message: error.message };
  if (error instanceof RuntimeError) return { code: error.code, message: error.message };
  if (error instanceof Error) return { code: 'internal', message: error.message };
  if (isCallError(error)) return { code: error.code, message: error.message };
  return { code: 'internal', message: String(error) };
}

function isCallError(value: unknown): value is CallError {
  return typeof value === 'object' && value !== null && typeof (value as CallError).code === 'string' && typeof (value as CallError).message === 'string';
}
