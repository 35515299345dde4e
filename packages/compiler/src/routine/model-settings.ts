import { isOfJsonType } from '../schema/fit-type.js';
import type { Reporter } from '../diagnostics/reporter.js';
import { closest, quoteList } from '../hints/did-you-mean.js';
import { entry, toJson, type YEntry, type YMap, type YNode } from '../source/yaml-tree.js';
import { ALL_FIELDS } from './inventory.js';
import { andList } from './model-schema-view.js';
import { SELECT_KEYS } from './model-select.js';

/** One model connection of a catalog (`--catalog FILE`, see CONTRACTS.md). */
export interface CatalogModel {
  id: string;
  provider: string;
  operations?: string[];
  interactions?: string[];
  session?: boolean;
  /** A JSON Schema whose `properties` are the settings the connection accepts. */
  settings?: object;
}

export interface ModelCatalog {
  models: CatalogModel[];
}

export const STRUCTURE = ['select', 'provider', 'id'];

/** Descriptor fields describe a model in the catalog; a routine cannot set them (MDL-5). */
export const DESCRIPTORS: Readonly<Record<string, string>> = {
  structured_output: "structured output is inferred during binding from the routine's `output`; remove it",
  pricing: "pricing is part of the model catalog's descriptor, not something a routine sets; remove it",
  max_input_tokens: 'to require a context window, write `context_length:` with `minimum: N` inside `model.select`',
};

/**
 * Sorts the keys of `model` other than select/provider/id: MDL-5 descriptors, MDL-6
 * `settings`, SRC-3 keys that are plainly misplaced or misspelt, and the rest, which are
 * settings. Without a catalog the settings are accepted here and checked at preparation
 * (MDL-6 **decision**, CONTRACTS.md); this reports everything but them.
 */
export function checkModelKeys(r: Reporter, model: YMap): void {
  const anchor = entry(model, 'select') ? '`select`' : '`provider` and `id`';
  for (const e of model.entries) {
    if (STRUCTURE.includes(e.key)) continue;
    const descriptor = DESCRIPTORS[e.key];
    if (descriptor !== undefined) {
      r.report('BP1341', e.keySpan, `Unexpected \`${e.key}\` in \`model\`, expected model settings: \`${e.key}\` is a descriptor field of the model catalog`, {
        hint: descriptor,
      });
      continue;
    }
    if (e.key === 'settings') {
      const keys = e.value.kind === 'map' ? e.value.entries.map((s) => s.key) : [];
      r.report('BP1350', e.keySpan, `Unexpected \`settings\` in \`model\`, expected each setting directly inside \`model\`, beside ${anchor}`, {
        hint:
          keys.length > 0
            ? `move ${andList(keys)} up into \`model\` and remove \`settings\``
            : 'write each setting directly inside `model` and remove `settings`',
      });
      continue;
    }
    const misplaced = misplacedHint(e.key);
    if (misplaced !== undefined) {
      r.report('BP1020', e.keySpan, `Unexpected field \`${e.key}\` in \`model\`, expected \`select\`, \`provider\`, \`id\` or a model setting`, {
        hint: misplaced,
      });
    }
  }
}

/**
 * A hint when the key is certainly not a setting: a `select` requirement, a routine field,
 * or a near miss of the structural keys. `id` is matched only up to case: edits of a
 * two-letter word would catch real short setting names.
 */
function misplacedHint(key: string): string | undefined {
  if ((SELECT_KEYS as readonly string[]).includes(key)) return `\`${key}\` belongs inside \`model.select\``;
  if (ALL_FIELDS.includes(key)) return `\`${key}\` is a routine field; it belongs at the top level of the frontmatter, not inside \`model\``;
  if (key.toLowerCase() === 'id') return 'did you mean `id`?';
  const guess = closest(key, ['select', 'provider']);
  return guess ? `did you mean \`${guess}\`?` : undefined;
}

/** The entries of `model` that `checkModelKeys` leaves as settings. */
export function settingEntries(model: YMap): YEntry[] {
  return model.entries.filter(
    (e) => !STRUCTURE.includes(e.key) && DESCRIPTORS[e.key] === undefined && e.key !== 'settings' && misplacedHint(e.key) === undefined,
  );
}

/**
 * MDL-6 with a catalog: `provider`/`id` must name a catalog model, and every setting must
 * be a property of the connection's settings schema with a value it allows. With `select`
 * the connection is not chosen yet, so a setting passes when at least one catalog model
 * matching the operation and interaction accepts it. Returns the model `provider`/`id`
 * names, for checks that depend on it (a catalog session model is bounded, MDL-8).
 */
export function checkModelSettings(r: Reporter, modelNode: YNode, catalog: ModelCatalog): CatalogModel | undefined {
  if (modelNode.kind !== 'map') return undefined;
  const select = entry(modelNode, 'select');
  const provider = entry(modelNode, 'provider');
  const id = entry(modelNode, 'id');
  let candidates: CatalogModel[];
  let label: string;
  let named: CatalogModel | undefined;
  if (select) {
    if (provider || id || select.value.kind !== 'map') return undefined;
    const operation = scalar(entry(select.value, 'operation')?.value);
    const interaction = scalar(entry(select.value, 'interaction')?.value);
    candidates = catalog.models.filter(
      (m) =>
        (operation === undefined || !m.operations || m.operations.includes(String(operation))) &&
        (interaction === undefined || !m.interactions || m.interactions.includes(String(interaction))),
    );
    // No match is binding's refusal to make, with the whole selection in view.
    if (candidates.length === 0) return undefined;
    label = 'any catalog model matching `select`';
  } else {
    if (!provider || !id) return undefined;
    const p = scalar(provider.value);
    const i = scalar(id.value);
    if (typeof p !== 'string' || typeof i !== 'string') return undefined;
    const ofProvider = catalog.models.filter((m) => m.provider === p);
    if (ofProvider.length === 0) {
      const providers = [...new Set(catalog.models.map((m) => m.provider))];
      const guess = closest(p, providers);
      r.report('BP1351', provider.value, `Unexpected provider \`${p}\`, expected one of the catalog's providers ${quoteList(providers)}`, {
        hint: guess ? `did you mean \`${guess}\`?` : 'consult env.runtime.models; never invent providers or ids',
      });
      return undefined;
    }
    named = ofProvider.find((m) => m.id === i);
    if (!named) {
      const ids = ofProvider.map((m) => m.id);
      const guess = closest(i, ids);
      const elsewhere = catalog.models.find((m) => m.id === i);
      r.report('BP1351', id.value, `Unexpected id \`${i}\` for provider \`${p}\`, expected one of ${quoteList(ids)}`, {
        hint: elsewhere
          ? `\`${i}\` is offered by provider \`${elsewhere.provider}\``
          : guess
            ? `did you mean \`${guess}\`?`
            : 'consult env.runtime.models; a runtime connection ID is a grant name, not `model.id`',
      });
      return undefined;
    }
    candidates = [named];
    label = `\`${p}/${i}\``;
  }

  for (const setting of settingEntries(modelNode)) {
    const declaring = candidates.map((m) => properties(m)[setting.key]).filter((s): s is Record<string, unknown> => s !== undefined);
    if (declaring.length === 0) {
      const known = [...new Set(candidates.flatMap((m) => Object.keys(properties(m))))].sort();
      const guess = closest(setting.key, known);
      r.report(
        'BP1352',
        setting.keySpan,
        known.length === 0
          ? `Unexpected setting \`${setting.key}\` for ${label}, expected no settings: the connection declares none`
          : `Unexpected setting \`${setting.key}\` for ${label}, expected one of ${quoteList(known)}`,
        { hint: guess ? `did you mean \`${guess}\`?` : 'a setting the selected model does not declare is not used with it; remove it' },
      );
      continue;
    }
    const value = toJson(setting.value);
    const problems = declaring.map((schema) => valueProblem(value, schema));
    const first = problems.find((p) => p !== undefined);
    if (problems.every((p) => p !== undefined) && first !== undefined) {
      r.report('BP1353', setting.value, `Unexpected ${show(value)} for setting \`${setting.key}\`, expected ${first}`, {
        hint: "use the connection's declared default unless the task needs a measured override",
      });
    }
  }
  return named;
}

function scalar(node: YNode | undefined): unknown {
  return node?.kind === 'scalar' ? node.value : undefined;
}

function properties(model: CatalogModel): Record<string, Record<string, unknown> | undefined> {
  const props = (model.settings as { properties?: unknown } | undefined)?.properties;
  return props !== null && typeof props === 'object' ? (props as Record<string, Record<string, unknown> | undefined>) : {};
}

/**
 * A hand check of the keywords a settings property typically uses: type, enum, const and
 * numeric bounds. Anything else in the catalog's schema is left to preparation, which
 * validates with the full schema.
 */
function valueProblem(value: unknown, schema: Record<string, unknown>): string | undefined {
  const type = schema['type'];
  const types = typeof type === 'string' ? [type] : Array.isArray(type) ? type.filter((t): t is string => typeof t === 'string') : [];
  if (types.length > 0 && !types.some((t) => isOfJsonType(value, t)))
    return types.length === 1 ? `a value of type \`${types[0]}\`` : `a value of type ${quoteList(types)}`;
  const allowed = schema['enum'];
  if (Array.isArray(allowed) && !allowed.some((a) => sameJson(a, value))) return `one of ${allowed.map(show).join(', ')}`;
  if ('const' in schema && !sameJson(schema['const'], value)) return show(schema['const']);
  if (typeof value === 'number') {
    const { minimum, maximum, exclusiveMinimum, exclusiveMaximum } = schema;
    if (typeof minimum === 'number' && value < minimum)
      return `at least ${minimum}${typeof maximum === 'number' ? ` (the range is ${minimum} to ${maximum})` : ''}`;
    if (typeof maximum === 'number' && value > maximum)
      return `at most ${maximum}${typeof minimum === 'number' ? ` (the range is ${minimum} to ${maximum})` : ''}`;
    if (typeof exclusiveMinimum === 'number' && value <= exclusiveMinimum) return `more than ${exclusiveMinimum}`;
    if (typeof exclusiveMaximum === 'number' && value >= exclusiveMaximum) return `less than ${exclusiveMaximum}`;
  }
  return undefined;
}

function sameJson(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return '[' + value.map(canonical).join(',') + ']';
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    return '{' + keys.map((k) => JSON.stringify(k) + ':' + canonical((value as Record<string, unknown>)[k])).join(',') + '}';
  }
  return JSON.stringify(value);
}

function show(value: unknown): string {
  return '`' + (typeof value === 'string' ? value : JSON.stringify(value)) + '`';
}
