import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createProviderExecutor, createProviderJudge, type MethodExecutor, type MethodJudge, type Script } from '@berrypack/runtime';
import { UsageError } from '../usage-error.js';

/**
 * What the CLI records in a run's `meta` so that `resume` and `confirm` in a later process do
 * the remaining steps the same way: the script file and the environment argument, as given
 * (a `@FILE` argument is kept as its path, not its content) and the runtime.yaml read.
 */
export interface CliMeta {
  script?: string;
  environment?: string;
  /** The runtime.yaml read (beside the document or `--config`), absolute. */
  config?: string;
}

export function readCliMeta(meta: Record<string, unknown> | undefined): CliMeta {
  const cli = meta?.['cli'];
  if (typeof cli !== 'object' || cli === null) return {};
  const { script, environment, config } = cli as Record<string, unknown>;
  return {
    ...(typeof script === 'string' ? { script } : {}),
    ...(typeof environment === 'string' ? { environment } : {}),
    ...(typeof config === 'string' ? { config } : {}),
  };
}

/** `JSON` or `@FILE` (relative to the working directory); `@FILE` comes back absolute, for the record. */
export function jsonArgument(cwd: string, value: string, option: string): { value: unknown; recorded: string } {
  const file = value.startsWith('@') ? path.resolve(cwd, value.slice(1)) : undefined;
  const text = file === undefined ? value : readText(file, value, option);
  try {
    return { value: JSON.parse(text) as unknown, recorded: file === undefined ? value : `@${file}` };
  } catch (error) {
    throw new UsageError(`Unexpected ${option} that is not JSON (${(error as Error).message}), expected a JSON value or @FILE`);
  }
}

export function jsonObject(cwd: string, value: string | undefined, option: string): { value: Record<string, unknown>; recorded: string } | undefined {
  if (value === undefined) return undefined;
  const parsed = jsonArgument(cwd, value, option);
  if (typeof parsed.value !== 'object' || parsed.value === null || Array.isArray(parsed.value))
    throw new UsageError(`Unexpected ${option}, expected a JSON object`);
  return parsed as { value: Record<string, unknown>; recorded: string };
}

/** `--script FILE`: `{"<step>": [{"output": {…}}, …], "<step>.check": [{"output": {"verdict", "reason"}}]}`. */
export function readScript(file: string): Script {
  let script: unknown;
  try {
    script = JSON.parse(readText(file, file, '--script'));
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`Unexpected --script ${file} that is not JSON (${(error as Error).message})`);
  }
  if (typeof script !== 'object' || script === null || Array.isArray(script) || !Object.values(script).every(Array.isArray)) {
    throw new UsageError(`Unexpected --script ${file}, expected {"step key": [response, …]}`);
  }
  return script as Script;
}

/**
 * The CLI's executor is the embedded scripted provider (responses by step key; without an
 * entry it returns the first value of the declared types); its judge decides only the checks
 * the script answers (`<step>.check`), any other plain-English check stays ambiguous.
 */
export function cliExecutor(script: Script | undefined): { executor: MethodExecutor; judge: MethodJudge } {
  const options = script ? { script } : {};
  return { executor: createProviderExecutor(options), judge: createProviderJudge(options) };
}

function readText(file: string, shown: string, option: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`Unexpected ${option} ${shown}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}
