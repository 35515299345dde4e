import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { failure } from '../errors.js';
import { isPlainObject, jsonDigest, own } from '../json.js';
import { ajvSafe, documentSchema } from './document-schema.js';
import { NativeSchemaError, translateNativeSchema, type RefValue } from './native-schema.js';

export type Validation = { ok: true } | { ok: false; errors: string[] };

/** How many problems a message lists before it says "and N more". */
const SHOWN_ERRORS = 5;

/**
 * Exact validation (RUN-2, SCH-11) of values against declared `input`/`output` schemas: the
 * native profile translated to JSON Schema 2020-12, or an independent `{document}` as it is.
 * ajv never coerces, fills defaults or removes extra fields here. Compiling costs about a
 * millisecond per schema (research/perf-baseline.md), so validators are compiled on first use
 * and cached by the digest of the schema they were compiled from.
 */
export class SchemaValidator {
  private readonly ajv = createAjv();
  private readonly compiled = new Map<string, ValidateFunction>();
  /** Compilations so far (the cache's misses): tests and benchmarks read it. */
  compilations = 0;

  /** Validates `value` against a declared schema; `undefined` (no schema) accepts anything. */
  validate(declared: unknown, value: unknown, refValue?: RefValue): Validation {
    if (declared === undefined) return { ok: true };
    const validate = this.compile(declared, refValue);
    if (validate(value)) return { ok: true };
    return { ok: false, errors: (validate.errors ?? []).map((e) => describeError(e, value)) };
  }

  /** The JSON Schema 2020-12 a declared schema validates with (used for structured model output). */
  jsonSchema(declared: unknown, refValue?: RefValue): unknown {
    return toJsonSchema(declared, refValue);
  }

  private compile(declared: unknown, refValue: RefValue | undefined): ValidateFunction {
    const schema = toJsonSchema(declared, refValue);
    const key = jsonDigest(schema);
    const cached = this.compiled.get(key);
    if (cached) return cached;
    let validate: ValidateFunction;
    try {
      validate = this.ajv.compile(schema as object);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (!/already exists/.test(message)) throw failure('invalid-schema', `Unexpected schema that cannot be compiled: ${message}`);
      // Two different documents may share an `$id`; each compiles in an instance of its own.
      validate = createAjv().compile(schema as object);
    }
    this.compilations++;
    this.compiled.set(key, validate);
    return validate;
  }
}

function createAjv(): Ajv2020 {
  return new Ajv2020({
    strict: false,
    allErrors: true,
    coerceTypes: false,
    useDefaults: false,
    removeAdditional: false,
    // Formats are annotations in 2020-12 unless a vocabulary asserts them; the native profile has none.
    validateFormats: false,
    logger: false,
    // Data is JSON: `__proto__`, `constructor` or `toString` are names like any other, never inherited members.
    ownProperties: true,
  });
}

function toJsonSchema(declared: unknown, refValue: RefValue | undefined): unknown {
  if (isPlainObject(declared) && Object.hasOwn(declared, 'document')) {
    const document = own(declared, 'document');
    if (typeof document !== 'string') throw failure('invalid-schema', 'Unexpected `document` that is not a string, expected JSON text');
    try {
      return documentSchema(document);
    } catch (error) {
      throw failure('invalid-schema', `Unexpected schema document: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  try {
    return ajvSafe(translateNativeSchema(declared, refValue));
  } catch (error) {
    if (error instanceof NativeSchemaError) throw failure('invalid-schema', error.message);
    throw error;
  }
}

/** `$.a[0] must be string`, with the offending property named where ajv knows it. */
function describeError(error: ErrorObject, value: unknown): string {
  const at = pointerToPath(error.instancePath, value);
  const params = error.params as Record<string, unknown>;
  let detail = error.message ?? 'is invalid';
  if (typeof params['additionalProperty'] === 'string') detail += ` (${JSON.stringify(params['additionalProperty'])})`;
  if (Array.isArray(params['allowedValues'])) detail += `: ${params['allowedValues'].map((v) => JSON.stringify(v)).join(', ')}`;
  return `${at} ${detail}`;
}

export function formatErrors(errors: readonly string[]): string {
  const shown = errors.slice(0, SHOWN_ERRORS).join('; ');
  return errors.length > SHOWN_ERRORS ? `${shown}; and ${errors.length - SHOWN_ERRORS} more` : shown;
}

function pointerToPath(pointer: string, value: unknown): string {
  if (pointer === '') return '$';
  let out = '$';
  let current = value;
  for (const raw of pointer.slice(1).split('/')) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(current) && /^\d+$/.test(token)) {
      out += `[${token}]`;
      current = current[Number(token)];
    } else {
      out += /^[A-Za-z_][A-Za-z0-9_]*$/.test(token) ? `.${token}` : `[${JSON.stringify(token)}]`;
      current = own(current, token);
    }
  }
  return out;
}
