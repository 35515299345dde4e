import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Diagnostic } from '@berrypack/compiler';
import type { Catalog } from '@berrypack/compiler';
import type { ExternalTool, PrepareOptions, RuntimeLimits, RuntimeOptions, Script, SessionStore } from '@berrypack/runtime';
import type { RuntimeConfig } from '@berrypack/runtime/config';
import { createConfiguredTools, type ConfiguredTools } from '@berrypack/runtime/mcp';
import { stringOption, type ParsedArgs } from '../options.js';
import { readRuntimeYaml } from '../runtime-yaml.js';
import { UsageError } from '../usage-error.js';

/** `--config FILE`: every command that runs something takes it (CONTRACTS.md, "runtime.yaml"). */
export const CONFIG_OPTIONS = { config: { type: 'string' } } as const;

export interface RunSettings {
  config: RuntimeConfig;
  /** runtime.yaml's limits, overridden by the flags. */
  limits: Partial<RuntimeLimits>;
}

/** The directory whose runtime.yaml applies: the manifest's (or the directory given), or the bundle file's. */
export function targetDirectory(cwd: string, arg: string): string {
  const target = path.resolve(cwd, arg);
  try {
    if (statSync(target).isDirectory()) return target;
  } catch {
    // loadTarget reports the missing target
  }
  return path.dirname(target);
}

/**
 * The settings of a run: `--config FILE` or runtime.yaml in `directory`, limits overridden by
 * `--timeout`/`--memory`. An invalid file fails the run (`invalid-runtime-yaml`, its message
 * starting with file:line:column) with its BP9010 diagnostic.
 */
export function runSettings(
  cwd: string,
  directory: string,
  values: ParsedArgs['values'],
  flags: Partial<RuntimeLimits>,
): RunSettings | { failed: { code: string; message: string }; diagnostic: Diagnostic } {
  const read = readRuntimeYaml(directory, cwd, stringOption(values, 'config'));
  if (!read.ok) return { failed: read.error, diagnostic: read.diagnostic };
  return { config: read.config, limits: { ...read.config.limits, ...flags } };
}

/** runtime.yaml's `catalog` stands in for a missing `--catalog`. */
export function withConfigCatalog(values: ParsedArgs['values'], config: RuntimeConfig): ParsedArgs['values'] {
  return stringOption(values, 'catalog') === undefined && config.catalog !== undefined ? { ...values, catalog: config.catalog } : values;
}

/**
 * How a run prepares: grants from runtime.yaml and `--grant`; `--script` forces the scripted
 * provider for every model routine; otherwise runtime.yaml's models are bound in CONTRACTS.md's
 * order, with API keys from this process's environment; with no models configured, the
 * runtime's default (the scripted provider). The model catalog (`--catalog`, runtime.yaml
 * `catalog`) lends its ids, operations and settings schemas to the configured models.
 */
export function preparationOptions(
  settings: RunSettings,
  values: ParsedArgs['values'],
  env: Record<string, string>,
  script: Script | undefined,
  catalog?: Catalog,
): PrepareOptions {
  const grants = grantsOf(settings, values);
  const options: PrepareOptions = { env, grants };
  if (script) return { ...options, models: { default: { provider: 'scripted', script } } };
  const { models, bind } = settings.config;
  if (Object.keys(models).length === 0) return options;
  const read = Object.fromEntries(
    Object.entries(models).map(([key, { script: file, ...model }]) => [
      key,
      file === undefined ? model : { ...model, script: readScriptFile(file, `models.${key}.script`) },
    ]),
  );
  return { ...options, configured: { models: read, bind, ...(catalog ? { catalog: catalog.models } : {}) }, variables: process.env };
}

/** runtime.yaml's `grants` and `--grant`. */
export function grantsOf(settings: RunSettings, values: ParsedArgs['values']): string[] {
  const given = (Array.isArray(values['grant']) ? values['grant'] : []).map(String);
  return [...new Set([...settings.config.grants, ...given])];
}

/**
 * The tools the CLI host supplies: runtime.yaml's `tools` (MCP servers and JS modules, started
 * once for the run; the runtime closes them with itself) and `runtime.user.profile.read`,
 * serving runtime.yaml's `user` claims ({} when absent). Only granted tools are started:
 * nothing else could be called. `runtime.catalog.read` is the runtime's own (`catalog` option).
 */
export async function hostTools(config: RuntimeConfig, granted: readonly string[]): Promise<ConfiguredTools> {
  const wanted = Object.fromEntries(Object.entries(config.tools).filter(([name]) => granted.includes(name)));
  const configured = await createConfiguredTools(wanted, { variables: process.env });
  const user = config.user;
  const profile: ExternalTool = { description: 'The profile of the person this runtime works for (OpenID Connect claims).', invoke: () => user };
  return { tools: { ...configured.tools, 'runtime.user.profile.read': profile }, close: configured.close };
}

/**
 * What `$.runtime` reads in the CLI (docs/runtime.md, "Runtime observations"): the configured
 * tool names, the model catalog's entries, and the sessions of the CLI's file session store
 * (listed, never written, when the session readers are not granted).
 */
export function catalogOptions(config: RuntimeConfig, catalog: Catalog | undefined, sessions: SessionStore): NonNullable<RuntimeOptions['catalog']> {
  return { tools: Object.keys(config.tools), models: catalog?.models ?? [], sessions };
}

export function readScriptFile(file: string, what: string): Script {
  let script: unknown;
  try {
    script = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UsageError(`Unexpected ${what} ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  if (typeof script !== 'object' || script === null || Array.isArray(script) || !Object.values(script).every(Array.isArray)) {
    throw new UsageError(`Unexpected ${what} ${file}, expected {"routine name": [response, …]}`);
  }
  return script as Script;
}
