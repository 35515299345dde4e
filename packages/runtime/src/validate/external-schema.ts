import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { isPlainObject, jsonDigest } from '../json.js';
import { ajvSafe } from './document-schema.js';
import { formatErrors, type Validation } from './validator.js';

type Draft = 'draft-07' | '2019-09' | '2020-12';

/**
 * Validation by schemas the package does not declare: an external tool's input and output
 * schemas (an MCP server's, a host's) and a configured model's settings schema. Each is read
 * by its own `$schema` (CONTRACTS.md, "Where code lives": draft-07 and 2020-12 both occur in
 * MCP servers); without one, as 2020-12. Compiled once per schema.
 */
export class ExternalSchemas {
  private readonly instances = new Map<Draft, Ajv | Ajv2019 | Ajv2020>();
  private readonly compiled = new Map<string, ValidateFunction>();

  validate(schema: unknown, value: unknown): Validation {
    const validate = this.compile(schema);
    if (validate(value)) return { ok: true };
    return { ok: false, errors: (validate.errors ?? []).map((e) => `$${e.instancePath.replace(/\//g, '.')} ${e.message ?? 'is invalid'}`) };
  }

  /** The problem with a schema that cannot be compiled, or undefined when it can. */
  check(schema: unknown): string | undefined {
    try {
      this.compile(schema);
      return undefined;
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  }

  private compile(schema: unknown): ValidateFunction {
    const key = jsonDigest(schema);
    const cached = this.compiled.get(key);
    if (cached) return cached;
    const draft = draftOf(schema);
    let ajv = this.instances.get(draft);
    if (!ajv) {
      const options = { strict: false, allErrors: true, validateFormats: false, logger: false as const, ownProperties: true };
      ajv = draft === 'draft-07' ? new Ajv(options) : draft === '2019-09' ? new Ajv2019(options) : new Ajv2020(options);
      this.instances.set(draft, ajv);
    }
    // `$schema` names the dialect chosen above; an `$id` may repeat across servers.
    const { $schema: _, $id: __, ...rest } = isPlainObject(schema) ? schema : {};
    const validate = typeof schema === 'boolean' ? ajv.compile(schema as never) : ajv.compile(ajvSafe(rest) as object);
    this.compiled.set(key, validate);
    return validate;
  }
}

function draftOf(schema: unknown): Draft {
  const declared = isPlainObject(schema) && typeof schema['$schema'] === 'string' ? schema['$schema'] : '';
  if (/draft-0[4-7]/.test(declared)) return 'draft-07';
  if (/2019-09/.test(declared)) return '2019-09';
  return '2020-12';
}

export { formatErrors };
