import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_LIMITS, type RuntimeLimits } from '@berrypack/runtime';
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, type Node as YamlNode } from 'yaml';
import { displayPath } from './paths.js';
import { nestingBound } from '@berrypack/compiler/internal-cli';

/** The file the runtime settings of a package live in (spec: "Runtime settings belong in runtime.yaml"). */
export const RUNTIME_YAML = 'runtime.yaml';

/** The `error.code` of a run (or replay) refused because its runtime.yaml is invalid. */
export const INVALID_RUNTIME_YAML = 'invalid-runtime-yaml';

export type RuntimeYamlResult =
  | { ok: true; limits: Partial<RuntimeLimits>; /** The file read; absent when there is none. */ file?: string }
  | { ok: false; error: { code: string; message: string }; location: { file: string; line?: number; column?: number }; detail: string };

/** A runtime.yaml of mostly comments is a few hundred bytes; anything this large is not one. */
const MAX_BYTES = 64 * 1024;
/**
 * The yaml parser recurses once per nesting level and overflows the stack at about 1,250; a
 * runtime.yaml nests two levels deep. The same bound as the compiler's frontmatter.
 */
const MAX_NESTING = 256;

const UNITS: Record<keyof RuntimeLimits, string> = {
  timeoutMs: 'milliseconds',
  cpuMs: 'milliseconds',
  memoryBytes: 'bytes',
  outputBytes: 'bytes',
  calls: 'calls',
  steps: 'steps',
  concurrency: 'calls in flight',
};

/**
 * Reads `runtime.yaml` in `directory` (the manifest's or the bundle file's): a mapping whose
 * only key is `limits`, a mapping of `createRuntime({limits})` names (the keys of
 * DEFAULT_LIMITS) to positive integers in the same units. No file: no settings (the defaults).
 * Anything else is refused with the file, line and column of the offending node; `cwd` only
 * shapes the path shown.
 */
export function readRuntimeYaml(directory: string, cwd: string): RuntimeYamlResult {
  const file = path.join(directory, RUNTIME_YAML);
  const shown = displayPath(file, cwd);
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { ok: true, limits: {} };
    return refuse({ file: shown }, `Unexpected ${RUNTIME_YAML} that cannot be read (${code ?? (error as Error).message}), expected a file`);
  }
  if (bytes.length > MAX_BYTES) return refuse({ file: shown }, `Unexpected ${RUNTIME_YAML} of ${bytes.length} bytes, expected at most ${MAX_BYTES}`);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return refuse({ file: shown }, `Unexpected ${RUNTIME_YAML} that is not valid UTF-8, expected a UTF-8 text file`);
  }
  const parsed = parseRuntimeYaml(text, shown);
  return parsed.ok ? { ok: true, limits: parsed.limits, file } : parsed;
}

/** `readRuntimeYaml` on a text; `file` is the path shown in messages. A leading BOM is dropped, as from every text source. */
export function parseRuntimeYaml(source: string, file: string): RuntimeYamlResult {
  const text = source.charCodeAt(0) === 0xfeff ? source.slice(1) : source;
  const lines = new LineCounter();
  const at = (offset: number): { file: string; line: number; column: number } => {
    const { line, col } = lines.linePos(offset);
    return { file, line, column: col };
  };
  // A value's position; an empty value (`limits:` and nothing) is shown at its key.
  const valueAt = (node: YamlNode | null, key: ReturnType<typeof at>): ReturnType<typeof at> =>
    node?.range && !(isScalar(node) && node.value === null) ? at(node.range[0]) : key;
  if (nestingBound(text) > MAX_NESTING) return refuse({ file, line: 1, column: 1 }, `Unexpected nesting deeper than ${MAX_NESTING} levels, expected a mapping of \`limits\``);
  let doc;
  try {
    doc = parseDocument(text, { version: '1.2', schema: 'core', prettyErrors: false, strict: true, uniqueKeys: true, lineCounter: lines });
  } catch (error) {
    return refuse({ file, line: 1, column: 1 }, `YAML syntax error: ${error instanceof Error ? error.message : String(error)}`);
  }
  // Warnings (an unresolved tag, for one) are refused too: every value must mean what it says.
  const problem = doc.errors[0] ?? doc.warnings[0];
  if (problem) return refuse(at(problem.pos[0]), `YAML syntax error: ${firstLine(problem.message)}`);

  const root = doc.contents as YamlNode | null;
  if (!isMap(root)) return refuse(at(root?.range?.[0] ?? 0), `Unexpected ${describe(root)} in ${RUNTIME_YAML}, expected a mapping with \`limits\``);
  const names = Object.keys(DEFAULT_LIMITS) as (keyof RuntimeLimits)[];
  const limits: Partial<RuntimeLimits> = {};
  for (const pair of root.items) {
    const key = pair.key as YamlNode | null;
    const value = pair.value as YamlNode | null;
    const keyAt = at(key?.range?.[0] ?? value?.range?.[0] ?? 0);
    if (!isScalar(key) || key.value !== 'limits') {
      return refuse(keyAt, `Unexpected ${describeKey(key)} in ${RUNTIME_YAML}, expected only \`limits\` (no other runtime setting is read)`);
    }
    if (!isMap(value)) return refuse(valueAt(value, keyAt), `Unexpected ${describe(value)} as \`limits\`, expected a mapping of limits (${names.join(', ')})`);
    for (const item of value.items) {
      const name = item.key as YamlNode | null;
      const given = item.value as YamlNode | null;
      const nameAt = at(name?.range?.[0] ?? given?.range?.[0] ?? 0);
      if (!isScalar(name) || typeof name.value !== 'string' || !names.includes(name.value as keyof RuntimeLimits)) {
        return refuse(nameAt, `Unexpected limit ${describeKey(name)}, expected one of ${names.join(', ')}`);
      }
      const limit = name.value as keyof RuntimeLimits;
      if (!isScalar(given) || typeof given.value !== 'number' || !Number.isSafeInteger(given.value) || given.value <= 0) {
        return refuse(valueAt(given, nameAt), `Unexpected ${describe(given)} as limits.${limit}, expected a positive integer (${UNITS[limit]})`);
      }
      limits[limit] = given.value;
    }
  }
  return { ok: true, limits };
}

function refuse(location: { file: string; line?: number; column?: number }, message: string): RuntimeYamlResult {
  const where = location.line === undefined ? location.file : `${location.file}:${location.line}:${location.column}`;
  return { ok: false, error: { code: INVALID_RUNTIME_YAML, message: `${where}: ${message}` }, location, detail: message };
}

function describe(node: YamlNode | null): string {
  if (node === null || (isScalar(node) && node.value === null)) return 'empty value';
  if (isMap(node)) return 'mapping';
  if (isSeq(node)) return 'list';
  if (isAlias(node)) return 'alias';
  if (isScalar(node)) return typeof node.value === 'string' ? JSON.stringify(node.value) : String(node.value);
  return 'value';
}

function describeKey(node: YamlNode | null): string {
  if (isScalar(node) && typeof node.value === 'string') return `\`${node.value}\``;
  return `key ${describe(node)}`;
}

function firstLine(text: string): string {
  return text.split('\n')[0]!;
}

