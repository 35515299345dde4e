import { declaredTools } from '../bundle/declared-tools.js';
import type { RoutineRef } from '../bundle/routine-table.js';
import type { ConfiguredModel } from '../config/types.js';
import { PreparationError } from '../errors.js';
import { isPlainObject } from '../json.js';
import type { ModelBinding, Script } from '../providers/provider.js';
import { ExternalSchemas, formatErrors } from '../validate/external-schema.js';

/** A configured model as a preparation takes it: a scripted model's script already read. */
export type ModelConfig = Omit<ConfiguredModel, 'script'> & { script?: Script };

/** runtime.yaml's `models` and `bind` (CONTRACTS.md, "Binding a model routine"). */
export interface ConfiguredModels {
  /** In file order: `select` takes the first that satisfies it. */
  models: Readonly<Record<string, ModelConfig>>;
  bind?: Readonly<Record<string, string>>;
  /**
   * The model catalog's entries (`--catalog`, runtime.yaml `catalog`). A configured model is
   * the entry whose `id` is its `model` (or its key): a routine's `provider`+`id` may name that
   * entry, and its `settings` schema, `operations` and `interactions` apply where the configured
   * model declares none.
   */
  catalog?: readonly CatalogEntry[];
}

/** One model of the catalog file (CONTRACTS.md, "Model and tool catalog"). */
export interface CatalogEntry {
  id: string;
  provider: string;
  operations?: readonly string[];
  interactions?: readonly string[];
  session?: unknown;
  /** JSON Schema of the settings the connection accepts. */
  settings?: object;
}

/** Fields of `model` that choose the model; everything else there is a setting. */
export const NOT_SETTINGS = new Set(['select', 'provider', 'id']);

const DEFAULT_OPERATIONS = ['generation'];
const DEFAULT_INTERACTIONS = ['request', 'stream'];

/**
 * Binds a model routine to a configured model, first match wins: `bind` by routine name;
 * `provider`+`id` equal to a configured model's `provider`+`model` (or its key, or its catalog
 * entry's `provider`+`id`); `select`
 * against each model's declared fields in file order; `bind.default`. No match is refused,
 * listing what the routine asks and what is configured. The chosen model's key comes from the
 * variable `apiKeyEnv` names (never from the file), and the routine's settings are checked
 * against the model's settings schema (its own, else its catalog entry's).
 */
export function bindConfigured(
  routine: RoutineRef,
  configured: ConfiguredModels,
  variables: Readonly<Record<string, string | undefined>>,
  schemas: ExternalSchemas,
): { key: string; binding: ModelBinding } {
  const key = chooseModel(routine, configured);
  const model = withCatalog(key, configured);
  const binding: ModelBinding = { provider: model.provider };
  if (model.model !== undefined) binding.model = model.model;
  if (model.baseUrl !== undefined) binding.baseUrl = model.baseUrl;
  if (model.script !== undefined) binding.script = model.script;
  if (model.requestTimeoutMs !== undefined) binding.requestTimeoutMs = model.requestTimeoutMs;
  if (model.retries !== undefined) binding.retries = model.retries;
  if (model.apiKeyEnv !== undefined) {
    const value = Object.hasOwn(variables, model.apiKeyEnv) ? variables[model.apiKeyEnv] : undefined;
    if (value === undefined || value === '') {
      throw new PreparationError(
        'missing-api-key',
        `Missing environment variable ${model.apiKeyEnv} (models.${key}.apiKeyEnv) for \`${routine.qualified}\`, expected it set to the API key of model \`${key}\``,
        routine.qualified,
      );
    }
    binding.apiKey = value;
  }
  const settings = Object.fromEntries(Object.entries(routine.source.model ?? {}).filter(([k]) => !NOT_SETTINGS.has(k)));
  if (model.settings !== undefined) {
    const problem = schemas.check(model.settings);
    const where = model.fromCatalog === undefined ? `model \`${key}\`` : `catalog model \`${model.fromCatalog}\` (model \`${key}\`)`;
    if (problem !== undefined) throw new PreparationError('invalid-preparation', `Unexpected settings schema of ${where}: ${problem}`, routine.qualified);
    const check = schemas.validate(model.settings, settings);
    if (!check.ok)
      throw new PreparationError(
        'invalid-settings',
        `Unexpected model settings of \`${routine.qualified}\` for ${where}: ${formatErrors(check.errors)}`,
        routine.qualified,
      );
    // "Only settings declared by that connection's settings schema are accepted", whatever its additionalProperties say.
    const declared = isPlainObject(model.settings['properties']) ? Object.keys(model.settings['properties']) : undefined;
    const undeclared = declared === undefined ? [] : Object.keys(settings).filter((k) => !declared.includes(k));
    if (undeclared.length > 0)
      throw new PreparationError(
        'invalid-settings',
        `Unexpected model setting \`${undeclared[0]}\` of \`${routine.qualified}\` for ${where}, expected one of ${declared!.join(', ') || '(none)'}`,
        routine.qualified,
      );
  }
  return { key, binding };
}

/** The catalog entry of a configured model: the one whose `id` is its `model` (or key), its own provider's first. */
function catalogEntryOf(key: string, model: ModelConfig, catalog: readonly CatalogEntry[] | undefined): CatalogEntry | undefined {
  const id = model.model ?? key;
  const same = (catalog ?? []).filter((entry) => entry.id === id);
  return same.find((entry) => entry.provider === model.provider) ?? same[0];
}

/** A configured model with what its catalog entry adds where it declares nothing itself. */
function withCatalog(key: string, configured: ConfiguredModels): ModelConfig & { fromCatalog?: string } {
  const model = configured.models[key]!;
  const entry = catalogEntryOf(key, model, configured.catalog);
  if (entry === undefined) return model;
  const merged: ModelConfig & { fromCatalog?: string } = { ...model };
  if (merged.operations === undefined && entry.operations) merged.operations = [...entry.operations];
  if (merged.interactions === undefined && entry.interactions) merged.interactions = [...entry.interactions];
  if (merged.settings === undefined && entry.settings !== undefined) {
    merged.settings = entry.settings as Record<string, unknown>;
    merged.fromCatalog = entry.id;
  }
  return merged;
}

function chooseModel(routine: RoutineRef, configured: ConfiguredModels): string {
  const bind = configured.bind ?? {};
  const keys = Object.keys(configured.models);
  const named = [routine.qualified, routine.name].find((n) => Object.hasOwn(bind, n));
  if (named !== undefined) return bind[named]!;
  const asked = routine.source.model ?? {};
  const provider = asked['provider'];
  const id = asked['id'];
  if (typeof provider === 'string' && typeof id === 'string') {
    const found =
      keys.find((k) => configured.models[k]!.provider === provider && (configured.models[k]!.model === id || k === id)) ??
      // A catalog id: the routine names the catalog's provider and id, the configured model serves that entry.
      keys.find((k) => {
        const entry = catalogEntryOf(k, configured.models[k]!, configured.catalog);
        return entry !== undefined && entry.provider === provider && entry.id === id;
      });
    if (found !== undefined) return found;
  }
  const select = asked['select'];
  if (isPlainObject(select)) {
    const found = keys.find((k) => satisfies(withCatalog(k, configured), select, routine));
    if (found !== undefined) return found;
  }
  if (Object.hasOwn(bind, 'default')) return bind['default']!;
  const wanted = isPlainObject(select)
    ? `select ${JSON.stringify(select)}`
    : typeof provider === 'string'
      ? `provider ${provider} with id ${String(id)}`
      : 'a model';
  const offered = keys.length === 0 ? 'no models are configured' : `configured: ${keys.map((k) => describeModel(k, withCatalog(k, configured))).join('; ')}`;
  throw new PreparationError(
    'no-model',
    `Unexpected model routine \`${routine.qualified}\` that no configured model satisfies: it asks for ${wanted}${declaredTools(routine).length > 0 ? ' with tools' : ''}${routine.source.output !== undefined ? ' with structured output' : ''}; ${offered} (add a model to runtime.yaml, or name one in \`bind\`)`,
    routine.qualified,
  );
}

/** Every `select` field must be satisfied by the model's declared fields. */
function satisfies(model: ModelConfig, select: Record<string, unknown>, routine: RoutineRef): boolean {
  const includes = (declared: readonly string[] | undefined, wanted: unknown) =>
    declared !== undefined && typeof wanted === 'string' && declared.includes(wanted);
  const covers = (declared: readonly string[] | undefined, wanted: unknown) =>
    Array.isArray(wanted) && declared !== undefined && wanted.every((w) => typeof w === 'string' && declared.includes(w));
  for (const [field, wanted] of Object.entries(select)) {
    let ok: boolean;
    switch (field) {
      case 'operation':
        ok = includes(model.operations ?? DEFAULT_OPERATIONS, wanted);
        break;
      case 'interaction':
        ok = includes(model.interactions ?? DEFAULT_INTERACTIONS, wanted);
        break;
      case 'input_modalities':
      case 'output_modalities':
      case 'supported_parameters':
      case 'tool_choice':
        ok = covers(model[field], wanted);
        break;
      case 'context_length': {
        const minimum = isPlainObject(wanted) ? wanted['minimum'] : undefined;
        ok = typeof minimum === 'number' && model.context_length !== undefined && model.context_length >= minimum;
        break;
      }
      case 'session':
        ok = model.session !== undefined && contains(model.session, wanted);
        break;
      case 'funding':
        ok = model.funding !== undefined && contains(model.funding, wanted);
        break;
      default:
        ok = false;
    }
    if (!ok) return false;
  }
  // "Generation tools and output already infer tool support and structured-output capability during binding."
  const parameters = model.supported_parameters;
  if (parameters !== undefined) {
    if (declaredTools(routine).length > 0 && !parameters.includes('tools')) return false;
    if (routine.source.output !== undefined && !parameters.some((p) => p === 'structured_outputs' || p === 'response_format')) return false;
  }
  return true;
}

/** `wanted` is `declared` or a part of it: every key it names, recursively; scalars equal. */
function contains(declared: unknown, wanted: unknown): boolean {
  if (isPlainObject(wanted)) return isPlainObject(declared) && Object.entries(wanted).every(([k, v]) => Object.hasOwn(declared, k) && contains(declared[k], v));
  if (Array.isArray(wanted)) return Array.isArray(declared) && wanted.every((w) => declared.some((d) => contains(d, w)));
  return declared === wanted;
}

function describeModel(key: string, model: ModelConfig): string {
  const fields = [`provider ${model.provider}`];
  if (model.model !== undefined) fields.push(`model ${model.model}`);
  fields.push(`operations ${(model.operations ?? DEFAULT_OPERATIONS).join('/')}`, `interactions ${(model.interactions ?? DEFAULT_INTERACTIONS).join('/')}`);
  for (const field of ['input_modalities', 'output_modalities', 'supported_parameters', 'tool_choice'] as const)
    if (model[field]) fields.push(`${field} ${model[field].join('/')}`);
  if (model.context_length !== undefined) fields.push(`context_length ${model.context_length}`);
  return `\`${key}\` (${fields.join(', ')})`;
}
