import { parseSingularPath, type SingularPath } from '@berrypack/compiler/jsonpath';
import type { Bundle } from '../bundle/load-bundle.js';
import { packageView, type PackageView, type RoutineRef } from '../bundle/routine-table.js';
import { PreparationError } from '../errors.js';
import { deepFreeze, isPlainObject } from '../json.js';
import { READERS, UI_PUBLISH, type ExternalTool } from '../execution/external-tool.js';
import { REDACTED } from '../journal/redact.js';
import type { ModelBinding, ModelProvider } from '../providers/provider.js';
import { ExternalSchemas } from '../validate/external-schema.js';
import { bindConfigured, type ConfiguredModels } from './bind-models.js';
import { reachableFrom } from './reachable.js';
import { checkSessionModel } from './session-profile.js';

/** An env placeholder's value; `secret` values are redacted from every journal. */
export type EnvValue = string | { value: string; secret?: boolean };

export interface PrepareOptions {
  /**
   * Names granted to this preparation: external tools and runtime readers (`runtime.context.read`,
   * `runtime.user.profile.read`, …) and `runtime.ui.publish`. Nothing is granted by default.
   */
  grants?: readonly string[];
  /**
   * Model connections by routine (its name, `alias/name` for an imported one) or `default`.
   * Omitted, every model routine uses the runtime's default connection (the scripted provider);
   * given, it must bind every model routine.
   */
  models?: Readonly<Record<string, ModelBinding>>;
  /**
   * Configured models (runtime.yaml `models` and `bind`), used when `models` is not given: each
   * model routine is bound in CONTRACTS.md's order (`bind`, `provider`+`id`, `select`,
   * `bind.default`) and refused at preparation when none fits.
   */
  configured?: ConfiguredModels;
  /** The host's environment variables: API keys (`apiKeyEnv`) come only from here. */
  variables?: Readonly<Record<string, string | undefined>>;
  /** Values of the `{{ env.NAME }}` placeholders, rendered now (TPL-6). */
  env?: Readonly<Record<string, EnvValue>>;
}

/** An immutable, bound preparation (RUN-1, RUN-11): frozen; its bindings cannot change. */
export interface Preparation {
  readonly bundleId: string;
  readonly plugin: string;
  readonly agents: Readonly<Record<string, { readonly title: string; readonly description: string; readonly entry: string }>>;
  readonly exports: readonly string[];
  readonly grants: readonly string[];
  readonly requirements: {
    readonly tools: readonly string[];
    readonly readers: readonly string[];
    readonly env: readonly string[];
    readonly models: readonly string[];
    readonly ui: boolean;
  };
}

export type TemplatePart = { text: string } | { path: string; parsed: SingularPath };

/** What the runtime keeps beside a preparation; never handed out. */
export interface PreparedState {
  bundle: Bundle;
  root: PackageView;
  grants: ReadonlySet<string>;
  models: ReadonlyMap<string, ModelBinding>;
  templates: ReadonlyMap<string, readonly TemplatePart[]>;
  secrets: readonly string[];
  /** For the journal's execution entry: env values with secrets redacted, bindings without keys. */
  header: { env: Record<string, string>; models: Record<string, { provider: string; model?: string; configured?: string }> };
}

export interface PrepareContext {
  providers: ReadonlyMap<string, ModelProvider>;
  tools: ReadonlyMap<string, ExternalTool>;
  defaultModel: ModelBinding;
}

const internals = new WeakMap<Preparation, PreparedState>();

export function preparedState(preparation: Preparation): PreparedState {
  const state = internals.get(preparation);
  if (!state) throw new TypeError('Unexpected preparation, expected one returned by runtime.prepare');
  return state;
}

/**
 * Binds a verified bundle (RUN-1, RUN-11): every external tool, runtime reader and
 * `runtime.ui.publish` the reachable routines need must be granted (and implemented by the
 * runtime), every model routine bound to a registered provider, every env placeholder given.
 * Nothing runs. The result is deeply frozen; its internals are kept out of reach.
 */
export function prepareBundle(bundle: Bundle, options: PrepareOptions, ctx: PrepareContext): Preparation {
  const root = packageView(bundle.id, bundle.content);
  const grants = new Set(options.grants ?? []);
  const { routines, externals } = reachableFrom(root);

  for (const [name, from] of externals) {
    if (!grants.has(name)) {
      throw new PreparationError(
        'not-granted',
        `Unexpected external tool \`${name}\` that is not granted, expected it in \`grants\` (\`${from}\` calls it)`,
        name,
      );
    }
    if (!ctx.tools.has(name)) {
      throw new PreparationError(
        'not-granted',
        `Unexpected external tool \`${name}\` that this runtime does not supply, expected an implementation in createRuntime({tools}) (\`${from}\` calls it)`,
        name,
      );
    }
  }
  const readers = new Set<string>();
  const envNames = new Set<string>();
  let ui = false;
  for (const routine of routines.values()) {
    for (const reader of routine.source.readers ?? []) readers.add(reader);
    for (const name of routine.source.env ?? []) envNames.add(name);
    if ((routine.source.tools ?? []).some((t) => isPlainObject(t.options) && t.options.presentation !== undefined)) ui = true;
  }
  for (const reader of readers) {
    if (!grants.has(reader)) {
      throw new PreparationError(
        'not-granted',
        `Unexpected runtime reader \`${reader}\` that is not granted, expected it in \`grants\` (a runtime template of ${readerUsers(routines, reader)} reads through it)`,
        reader,
      );
    }
    if (reader !== READERS.context && !ctx.tools.has(reader)) {
      throw new PreparationError(
        'not-granted',
        `Unexpected runtime reader \`${reader}\` that this runtime does not supply, expected an implementation in createRuntime({tools})`,
        reader,
      );
    }
  }
  if (ui && !grants.has(UI_PUBLISH)) {
    throw new PreparationError(
      'not-granted',
      `Unexpected \`presentation\` without the grant \`${UI_PUBLISH}\`, expected it in \`grants\` (TOOL-5)`,
      UI_PUBLISH,
    );
  }

  const env = bindEnv(envNames, options.env ?? {});
  const models = new Map<string, ModelBinding>();
  const templates = new Map<string, readonly TemplatePart[]>();
  const secrets = [...env.secrets];
  const headerModels: PreparedState['header']['models'] = {};
  const schemas = new ExternalSchemas();
  for (const routine of routines.values()) {
    if (routine.source.kind !== 'model') continue;
    const configured =
      options.models === undefined && options.configured !== undefined
        ? bindConfigured(routine, options.configured, options.variables ?? {}, schemas)
        : undefined;
    const binding = configured?.binding ?? bindModel(routine, options.models, ctx);
    checkProvider(routine, binding, ctx);
    checkSessionModel(routine, binding, ctx.providers.get(binding.provider), grants);
    models.set(routine.qualified, deepFreeze({ ...binding }));
    if (binding.apiKey) secrets.push(binding.apiKey);
    headerModels[routine.qualified] = {
      provider: binding.provider,
      ...(binding.model === undefined ? {} : { model: binding.model }),
      ...(configured ? { configured: configured.key } : {}),
    };
    templates.set(routine.qualified, renderEnv(routine, env.values));
  }

  const sorted = (values: Iterable<string>) => [...values].sort();
  const preparation: Preparation = deepFreeze({
    bundleId: bundle.id,
    plugin: bundle.content.plugin.name,
    agents: Object.fromEntries(Object.entries(bundle.content.agents).map(([id, a]) => [id, { title: a.title, description: a.description, entry: a.entry }])),
    exports: bundle.content.exports.map((e) => e.name),
    grants: sorted(grants),
    requirements: { tools: sorted(externals.keys()), readers: sorted(readers), env: sorted(envNames), models: sorted(models.keys()), ui },
  });
  internals.set(preparation, deepFreeze({ bundle, root, grants, models, templates, secrets, header: { env: env.header, models: headerModels } }));
  return preparation;
}

function bindModel(routine: RoutineRef, given: PrepareOptions['models'], ctx: PrepareContext): ModelBinding {
  let binding: ModelBinding | undefined = ctx.defaultModel;
  if (given !== undefined) {
    const has = (key: string) => Object.hasOwn(given, key);
    const key = [routine.qualified, routine.name, 'default'].find(has);
    binding = key === undefined ? undefined : given[key];
    if (binding === undefined) {
      throw new PreparationError(
        'missing-model',
        `Unexpected model routine \`${routine.qualified}\` without a model connection, expected \`models[${JSON.stringify(routine.qualified)}]\` or \`models.default\` (explicit models must bind every model routine)`,
        routine.qualified,
      );
    }
  }
  return binding;
}

function checkProvider(routine: RoutineRef, binding: ModelBinding, ctx: PrepareContext): void {
  if (!isPlainObject(binding) || typeof binding.provider !== 'string') {
    throw new PreparationError(
      'invalid-preparation',
      `Unexpected model binding for \`${routine.qualified}\`, expected {provider, model?, baseUrl?, apiKey?, script?}`,
      routine.qualified,
    );
  }
  if (!ctx.providers.has(binding.provider)) {
    throw new PreparationError(
      'unknown-provider',
      `Unexpected provider \`${binding.provider}\` for \`${routine.qualified}\`, expected one of ${[...ctx.providers.keys()].join(', ')}`,
      routine.qualified,
    );
  }
}

function bindEnv(
  names: ReadonlySet<string>,
  given: Readonly<Record<string, EnvValue>>,
): { values: Map<string, string>; secrets: string[]; header: Record<string, string> } {
  const values = new Map<string, string>();
  const secrets: string[] = [];
  const header: Record<string, string> = {};
  for (const name of [...names].sort()) {
    const entry = Object.hasOwn(given, name) ? given[name] : undefined;
    const value = typeof entry === 'string' ? entry : isPlainObject(entry) && typeof entry.value === 'string' ? entry.value : undefined;
    if (value === undefined)
      throw new PreparationError(
        'missing-env',
        `Missing value for \`{{ env.${name} }}\`, expected \`env.${name}\` in the preparation (placeholders are rendered now)`,
        `env.${name}`,
      );
    const secret = typeof entry === 'object' && entry.secret === true;
    values.set(name, value);
    if (secret) secrets.push(value);
    header[name] = secret ? REDACTED : value;
  }
  return { values, secrets, header };
}

/** TPL-6: env placeholders become text now; runtime paths stay, parsed once. */
function renderEnv(routine: RoutineRef, env: ReadonlyMap<string, string>): TemplatePart[] {
  const parts: TemplatePart[] = [];
  for (const segment of routine.source.template ?? []) {
    let part: TemplatePart;
    if ('text' in segment) part = { text: segment.text };
    else if ('env' in segment) part = { text: env.get(segment.env)! };
    else {
      const parsed = parseSingularPath(segment.path);
      if (!parsed.ok)
        throw new PreparationError(
          'invalid-preparation',
          `Unexpected template path ${segment.path} in \`${routine.qualified}\`: ${parsed.error.message}`,
          routine.qualified,
        );
      part = { path: segment.path, parsed: parsed.path };
    }
    const last = parts[parts.length - 1];
    if ('text' in part && last !== undefined && 'text' in last) parts[parts.length - 1] = { text: last.text + part.text };
    else parts.push(part);
  }
  return parts;
}

function readerUsers(routines: ReadonlyMap<string, RoutineRef>, reader: string): string {
  const users = [...routines.values()].filter((r) => (r.source.readers ?? []).includes(reader)).map((r) => `\`${r.qualified}\``);
  return users.join(', ') || 'a routine';
}
