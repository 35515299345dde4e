import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Diagnostic } from '@berrypack/compiler';
import { MAX_CONFIG_BYTES, parseRuntimeConfig, RUNTIME_YAML, type RuntimeConfig } from '@berrypack/runtime/config';
import { displayPath } from './paths.js';
import { UsageError } from './usage-error.js';

export { RUNTIME_YAML };

/** The `error.code` of a run (or replay) refused because its runtime.yaml is invalid. */
export const INVALID_RUNTIME_YAML = 'invalid-runtime-yaml';

export type RuntimeYamlResult =
  | { ok: true; config: RuntimeConfig; /** The file read; absent when there is none. */ file?: string }
  | { ok: false; error: { code: string; message: string }; diagnostic: Diagnostic };

const EMPTY: RuntimeConfig = { limits: {}, models: {}, bind: {}, tools: {}, grants: [], user: {}, environment: {} };

/**
 * Reads the runtime settings of a run: `--config FILE` (relative to `cwd`; it must exist) or
 * `runtime.yaml` in `directory` (the manifest's, bundle file's or method document's; none
 * there: no settings). The file is checked by `@berrypack/runtime/config`; a refusal keeps its
 * diagnostic (BP9010, file:line:column) and becomes the run's error.
 */
export function readRuntimeYaml(directory: string, cwd: string, configArg?: string): RuntimeYamlResult {
  const file = configArg === undefined ? path.join(directory, RUNTIME_YAML) : path.resolve(cwd, configArg);
  const shown = displayPath(file, cwd);
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (configArg !== undefined) throw new UsageError(`Unexpected --config ${configArg}: ${code ?? (error as Error).message}`);
    if (code === 'ENOENT' || code === 'ENOTDIR') return { ok: true, config: EMPTY };
    return refuse(shown, `Unexpected ${RUNTIME_YAML} that cannot be read (${code ?? (error as Error).message}), expected a file`);
  }
  if (bytes.length > MAX_CONFIG_BYTES) return refuse(shown, `Unexpected ${RUNTIME_YAML} of ${bytes.length} bytes, expected at most ${MAX_CONFIG_BYTES}`);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return refuse(shown, `Unexpected ${RUNTIME_YAML} that is not valid UTF-8, expected a UTF-8 text file`);
  }
  const parsed = parseRuntimeConfig(text, { directory: path.dirname(file), file: shown });
  if (parsed.ok) return { ok: true, config: parsed.config, file };
  const diagnostic = parsed.diagnostics[0]!;
  return { ok: false, error: { code: INVALID_RUNTIME_YAML, message: `${shown}:${diagnostic.line}:${diagnostic.column}: ${diagnostic.message}` }, diagnostic };
}

function refuse(file: string, message: string): RuntimeYamlResult {
  const diagnostic: Diagnostic = { code: 'BP9010', rule: 'RUN-4', severity: 'error', message, file, line: 1, column: 1, endLine: 1, endColumn: 2 };
  return { ok: false, error: { code: INVALID_RUNTIME_YAML, message: `${file}: ${message}` }, diagnostic };
}
