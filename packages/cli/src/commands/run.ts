import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { createCompiler, sortDiagnostics, type Diagnostic } from '@berrypack/compiler';
import {
  BundleLoadError,
  createFileJournal,
  createRuntime,
  loadBundle,
  PreparationError,
  RuntimeError,
  type Bundle,
  type CallRecord,
  type Preparation,
  type Runtime,
  type RuntimeLimits,
  type RuntimeOptions,
  type Script,
} from '@berrypack/runtime';
import type { CliIo } from '../io.js';
import { outputFormat, parse, stringOption, type ParsedArgs } from '../options.js';
import { relativize } from '../output/relativize.js';
import { createFileSessionStore } from '../session-files.js';
import { terminalSafe as safe } from '../terminal-safe.js';
import { UsageError } from '../usage-error.js';
import { compilerOptions, COMPILER_OPTIONS } from './compiler-options.js';
import { catalogOptions, CONFIG_OPTIONS, grantsOf, hostTools, preparationOptions, runSettings, targetDirectory, withConfigCatalog } from './run-config.js';

export const RUN_HELP = `Usage: berrypack run BUNDLE_OR_MANIFEST (--agent ID | --export NAME) [--input JSON|@FILE]
                     [--script FILE] [--journal FILE] [--timeout MS] [--memory MB]
                     [--env NAME=VALUE ...] [--grant NAME ...] [--config FILE] [--catalog FILE]
                     [--store DIR] [--json]

Verifies a bundle (or builds a plugin.json in memory), prepares it and runs an agent or an
export with the input. Settings come from runtime.yaml beside the manifest or the bundle file
(or --config FILE): \`models\` (bound to model routines by \`bind\`, provider+id, select, then
bind.default; API keys only from the variables \`apiKeyEnv\` names), \`tools\` (MCP servers,
JS modules), \`grants\` (--grant adds), \`user\` (served as $.user), \`limits\` (overridden by
--timeout and --memory). Without configured models, or with --script, model routines use the
embedded scripted provider: --script gives it responses by routine name
({"routine": [{"output": …} | {"text": …} | {"toolCalls": […]}]}).
--journal appends every recorded call to FILE (JSONL) for \`berrypack replay\`.
Exit 0 when the run completed, 1 when it failed, the bundle did not load or runtime.yaml is
invalid, 2 on usage errors.
`;

/** `run --json` (CONTRACTS.md): exactly these keys; `output` only when completed, `error` only when failed. */
export interface RunReport {
  executionId: string | null;
  status: 'completed' | 'failed';
  diagnostics: Diagnostic[];
  calls: CallRecord[];
  output?: unknown;
  error?: { code: string; message: string };
}

export interface LoadedTarget {
  bundle: Bundle;
  diagnostics: Diagnostic[];
  /** What the journal records, so that `replay` finds the same bundle again. */
  source: { kind: 'bundle' | 'manifest'; path: string };
}

/** A `.berry.json` bundle is verified as it is; a plugin.json (or its directory) is built in memory first. */
export async function loadTarget(cwd: string, arg: string, values: ParsedArgs['values']): Promise<LoadedTarget | { failed: RunReport }> {
  const target = path.resolve(cwd, arg);
  let directory = false;
  try {
    directory = statSync(target).isDirectory();
  } catch {
    throw new UsageError(`Unexpected BUNDLE_OR_MANIFEST ${arg}: no such file or directory`);
  }
  if (directory || path.basename(target) === 'plugin.json') {
    const manifest = directory ? path.join(target, 'plugin.json') : target;
    const built = createCompiler(compilerOptions(cwd, values)).build(manifest);
    const diagnostics = relativize(sortDiagnostics(built.diagnostics), cwd);
    if (!built.ok || !built.bundle) {
      const errors = diagnostics.filter((d) => d.severity === 'error').length;
      return {
        failed: failedReport(null, diagnostics, {
          code: 'build-failed',
          message: `Unexpected ${errors} error${errors === 1 ? '' : 's'} building ${arg}, expected a package that builds`,
        }),
      };
    }
    try {
      const bundle = await loadBundle(built.bundle.bytes, { blobs: built.bundle.blobs });
      return { bundle, diagnostics, source: { kind: 'manifest', path: manifest } };
    } catch (error) {
      return { failed: failedReport(null, diagnostics, errorOf(error)) };
    }
  }
  try {
    return { bundle: await loadBundle(target), diagnostics: [], source: { kind: 'bundle', path: target } };
  } catch (error) {
    if (error instanceof BundleLoadError) return { failed: failedReport(null, [], errorOf(error)) };
    throw error;
  }
}

/** The flags of `run`; `chat` takes every one of them too (CONTRACTS "Conversations"). */
export const RUN_OPTIONS = {
  agent: { type: 'string' },
  export: { type: 'string' },
  input: { type: 'string' },
  script: { type: 'string' },
  journal: { type: 'string' },
  timeout: { type: 'string' },
  memory: { type: 'string' },
  env: { type: 'string', multiple: true },
  grant: { type: 'string', multiple: true },
  ...CONFIG_OPTIONS,
  ...COMPILER_OPTIONS,
} as const;

/** A prepared run: what `run` and `chat` do before they start the execution. */
export interface RunSetup {
  runtime: Runtime;
  preparation: Preparation;
  loaded: LoadedTarget;
  target: { agent: string } | { export: string };
  input: unknown;
}

/**
 * Reads the flags of `run`, loads the bundle or manifest, reads runtime.yaml and prepares it
 * with a runtime made with `runtimeOptions` added. Usage errors throw; a bundle, runtime.yaml
 * or preparation that fails is `{failed}`. The caller closes the runtime.
 */
export async function setUpRun(
  values: ParsedArgs['values'],
  positionals: string[],
  io: CliIo,
  command: string,
  runtimeOptions: (grants: string[]) => RuntimeOptions = () => ({}),
): Promise<RunSetup | { failed: RunReport }> {
  if (positionals.length !== 1)
    throw new UsageError(`Unexpected ${positionals.length} arguments, expected exactly one BUNDLE_OR_MANIFEST (see berrypack ${command} --help)`);
  const agent = stringOption(values, 'agent');
  const exported = stringOption(values, 'export');
  if ((agent === undefined) === (exported === undefined)) throw new UsageError('Unexpected arguments, expected exactly one of --agent ID or --export NAME');
  const input = readInput(io.cwd, stringOption(values, 'input'));
  const script = readScript(io.cwd, stringOption(values, 'script'));
  const flags = limitFlags(values);
  const env = readEnv(values['env']);
  const journalFile = stringOption(values, 'journal');

  const settings = runSettings(io.cwd, targetDirectory(io.cwd, positionals[0]!), values, flags);
  if ('failed' in settings) return { failed: failedReport(null, [settings.diagnostic], settings.failed) };
  const loaded = await loadTarget(io.cwd, positionals[0]!, withConfigCatalog(values, settings.config));
  if ('failed' in loaded) return loaded;

  const grants = grantsOf(settings, values);
  let host;
  try {
    host = await hostTools(settings.config, grants);
  } catch (error) {
    if (error instanceof PreparationError) return { failed: failedReport(null, loaded.diagnostics, errorOf(error)) };
    throw error;
  }
  // The CLI's file session store (runtime.yaml `sessions`, default .berrypack/sessions beside the
  // manifest or bundle) serves $.session when the preparation grants its readers; nothing is written otherwise.
  const sessionsDir = settings.config.sessions ?? path.join(path.dirname(loaded.source.path), '.berrypack/sessions');
  const store = createFileSessionStore(sessionsDir);
  const sessions = grants.some((g) => g === 'runtime.session.read' || g === 'runtime.session.state.read') ? { sessions: store } : {};
  const catalogFile = compilerOptions(io.cwd, withConfigCatalog(values, settings.config)).catalog;
  const catalog = catalogOptions(settings.config, catalogFile, store);
  const extra = runtimeOptions(grants);
  // The configured tools' servers close with the runtime (run and chat close it): it owns the tools it is given.
  const runtime = createRuntime({
    limits: settings.limits,
    ...(journalFile ? { journal: createFileJournal(path.resolve(io.cwd, journalFile)) } : {}),
    ...sessions,
    catalog,
    ...extra,
    tools: { ...host.tools, ...extra.tools },
  });
  try {
    const preparation = runtime.prepare(loaded.bundle, preparationOptions(settings, values, env, script, catalogFile));
    return { runtime, preparation, loaded, target: agent !== undefined ? { agent } : { export: exported! }, input };
  } catch (error) {
    await runtime.close();
    if (error instanceof PreparationError) return { failed: failedReport(null, loaded.diagnostics, errorOf(error)) };
    throw error;
  }
}

export async function runCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(args, RUN_OPTIONS);
  if (values.help) {
    io.stdout.write(RUN_HELP);
    return 0;
  }
  const json = outputFormat(values) === 'json';
  // On a terminal answers stream as they arrive, on stderr with the other progress (CONTRACTS).
  const live = io.stderr.isTTY === true && !json;
  const setup = await setUpRun(values, positionals, io, 'run', () => (live ? { stream: true } : {}));
  if ('failed' in setup) return print(io, json, setup.failed);
  const { runtime, preparation, loaded, target, input } = setup;
  try {
    let started;
    try {
      started = await runtime.start(preparation, target, input, { meta: { source: loaded.source } });
    } catch (error) {
      if (error instanceof RuntimeError) throw new UsageError(error.message);
      throw error;
    }
    // `run` sends no messages: an entry with an input port gets its --input and then a closed
    // port, so a conversation answers once and completes (`chat` holds one open).
    runtime.stop(started.executionId);
    if (live) {
      let streaming: string | undefined;
      runtime.watch(started.executionId, (event) => {
        if (event.type === 'delta') io.stderr.write(safe(event.text, { multiline: true }));
        if (event.type === 'delta') streaming = event.publication;
        else if (event.type === 'publication' && event.publication.id === streaming) io.stderr.write('\n');
      });
    }
    const outcome = await runtime.result(started.executionId);
    const report: RunReport =
      outcome.status === 'completed'
        ? { executionId: outcome.executionId, status: 'completed', diagnostics: loaded.diagnostics, calls: outcome.calls, output: outcome.output }
        : failedReport(outcome.executionId, loaded.diagnostics, outcome.error, outcome.calls);
    return print(io, json, report);
  } finally {
    await runtime.close();
  }
}

/** `--timeout MS` and `--memory MB` as limits (run and replay take both). */
export function limitFlags(values: ParsedArgs['values']): Partial<RuntimeLimits> {
  const limits: Partial<RuntimeLimits> = {};
  const timeout = positiveInteger(stringOption(values, 'timeout'), '--timeout');
  const memory = positiveInteger(stringOption(values, 'memory'), '--memory');
  if (timeout !== undefined) limits.timeoutMs = timeout;
  if (memory !== undefined) limits.memoryBytes = memory * 1024 * 1024;
  return limits;
}

export function failedReport(
  executionId: string | null,
  diagnostics: Diagnostic[],
  error: { code: string; message: string },
  calls: CallRecord[] = [],
): RunReport {
  return { executionId, status: 'failed', diagnostics, calls, error: { code: error.code, message: error.message } };
}

export function errorOf(error: unknown): { code: string; message: string } {
  if (error instanceof RuntimeError) return { code: error.code, message: error.message };
  throw error;
}

function print(io: CliIo, json: boolean, report: RunReport): number {
  if (json) io.stdout.write(`${JSON.stringify(report)}\n`);
  else {
    // What the routine returned or threw is the package's: escaped for the terminal.
    if (report.status === 'completed') io.stdout.write(`${safe(JSON.stringify(report.output, null, 2), { multiline: true })}\n`);
    else io.stdout.write(`✖ ${safe(report.error!.code)}: ${safe(report.error!.message)}\n`);
    io.stdout.write(`${safe(summarize(report))}\n`);
  }
  return report.status === 'completed' ? 0 : 1;
}

/** One line: status, execution and the calls by kind and status. */
export function summarize(report: { status: string; executionId: string | null; calls: CallRecord[] }): string {
  const byKind = new Map<string, number>();
  for (const call of report.calls) byKind.set(call.kind, (byKind.get(call.kind) ?? 0) + 1);
  const failed = report.calls.filter((c) => c.status === 'failed').length;
  const kinds = [...byKind].map(([kind, n]) => `${n} ${kind}`).join(', ');
  const calls = `${report.calls.length} call${report.calls.length === 1 ? '' : 's'}${kinds ? ` (${kinds})` : ''}${failed > 0 ? `, ${failed} failed` : ''}`;
  return `${report.status} · ${calls} · ${report.executionId ?? 'no execution'}`;
}

function readInput(cwd: string, value: string | undefined): unknown {
  if (value === undefined) return undefined;
  const text = value.startsWith('@') ? readText(cwd, value.slice(1), '--input') : value;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new UsageError(`Unexpected --input that is not JSON (${(error as Error).message}), expected a JSON value or @FILE`);
  }
}

function readScript(cwd: string, file: string | undefined): Script | undefined {
  if (file === undefined) return undefined;
  let script: unknown;
  try {
    script = JSON.parse(readText(cwd, file, '--script'));
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`Unexpected --script ${file} that is not JSON (${(error as Error).message})`);
  }
  if (typeof script !== 'object' || script === null || Array.isArray(script) || !Object.values(script).every(Array.isArray)) {
    throw new UsageError(`Unexpected --script ${file}, expected {"routine name": [response, …]}`);
  }
  return script as Script;
}

function readText(cwd: string, file: string, option: string): string {
  try {
    return readFileSync(path.resolve(cwd, file), 'utf8');
  } catch (error) {
    throw new UsageError(`Unexpected ${option} ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

function positiveInteger(value: string | undefined, option: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[1-9][0-9]*$/.test(value)) throw new UsageError(`Unexpected ${option} ${value}, expected a positive integer`);
  return Number(value);
}

function readEnv(values: ParsedArgs['values'][string]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const item of Array.isArray(values) ? values : []) {
    const text = String(item);
    const at = text.indexOf('=');
    if (at <= 0) throw new UsageError(`Unexpected --env ${text}, expected NAME=VALUE`);
    env[text.slice(0, at)] = text.slice(at + 1);
  }
  return env;
}
