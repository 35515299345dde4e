import { readFileSync } from 'node:fs';
import path from 'node:path';
import { checkMethod, hasErrors, isMethodFile, sortDiagnostics } from '@berrypack/compiler';
import { confirmStep, MethodError, methodStatus, resumeMethod, runMethod, type MethodHostOptions } from '@berrypack/runtime';
import type { RunStores } from '@berrypack/runtime/method';
import type { CliIo } from '../io.js';
import { outputFormat, parse, stringOption, type ParsedArgs } from '../options.js';
import { relativize } from '../output/relativize.js';
import { displayPath } from '../paths.js';
import { EMPTY_CONFIG, readRuntimeYaml } from '../runtime-yaml.js';
import { UsageError } from '../usage-error.js';
import type { RuntimeConfig } from '@berrypack/runtime/config';
import { cliExecutor, jsonArgument, jsonObject, readCliMeta, readScript, type CliMeta } from './method-config.js';
import { openDatabase, recordedMeta, untilSettled, workerCommand, type OpenDatabase } from './method-database.js';
import { configuredConnections, configuredExecutor } from './method-host.js';
import { printMethodReport, reportOf } from './method-report.js';

export const METHOD_HELP = `Usage: berrypack method run FILE --data-dir DIR [--inputs JSON|@FILE] [--environment JSON|@FILE]
                           [--script FILE] [--config FILE] [--database URL] [--json]
       berrypack method resume RUN_ID --data-dir DIR [--step KEY (--response TEXT | --response-json VALUE)
                           [--item N]] [--script FILE] [--environment JSON|@FILE] [--config FILE] [--json]
       berrypack method confirm RUN_ID --data-dir DIR --step KEY (--done [--response TEXT | --response-json VALUE]
                           | --redo) [--item N] [--script FILE] [--environment JSON|@FILE] [--config FILE] [--json]
       berrypack method status RUN_ID --data-dir DIR [--json]
       berrypack method worker --database URL [--data-dir DIR] [--script FILE] [--environment JSON|@FILE] [--config FILE]

Runs a method/2 document (check it with \`berrypack check FILE\`). DIR is the method's data folder:
its state files, and runs/RUN_ID/ with each run's record and files. runtime.yaml beside FILE
(or --config) binds \`do\` steps to its models and serves connections with its MCP or module
tools (docs/methods.md). Offline, \`do\` steps go to the embedded scripted provider: --script gives it responses by step key ({"step": [{"output":
{…}}, …]}, one per invocation; "step.check" entries answer plain-English checks). An \`ask\`
leaves the run needing attention until \`resume --step KEY --response …\`; an uncertain step
(a change interrupted mid-flight) waits for \`confirm --done --response-json OUTPUTS | --redo\`. resume and confirm reuse
the run's --script, --environment and runtime.yaml unless given again.
With --database URL (or runtime.yaml's \`database\`) runs live in PostgreSQL and their steps are
run by \`berrypack method worker\` processes on any machine (docs/scale.md); run, resume and confirm
then wait until the workers have taken the run as far as it goes. DIR defaults to
.berrypack/method-data (this machine's copy of the data folder).
Exit 0 when the run completed or needs attention, 1 when it failed or FILE has errors, 2 on usage errors.
`;

type Values = ParsedArgs['values'];

export async function methodCommand(args: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help') {
    (sub === undefined ? io.stderr : io.stdout).write(METHOD_HELP);
    return sub === undefined ? 2 : 0;
  }
  const action = ACTIONS[sub];
  if (!action) throw new UsageError(`Unexpected subcommand \`${sub}\`, expected run, resume, confirm, status or worker (see berrypack method --help)`);
  const { values, positionals } = parse(rest, OPTIONS);
  if (values.help) {
    io.stdout.write(METHOD_HELP);
    return 0;
  }
  const expected = sub === 'worker' ? 0 : 1;
  if (positionals.length !== expected)
    throw new UsageError(
      `Unexpected ${positionals.length} arguments, expected ${sub === 'worker' ? 'none' : `exactly one ${sub === 'run' ? 'FILE' : 'RUN_ID'}`} (see berrypack method --help)`,
    );
  const dataDirArg =
    stringOption(values, 'data-dir') ?? (values['database'] === undefined && sub !== 'worker' && sub !== 'run' ? undefined : DATABASE_DATA_DIR);
  if (dataDirArg === undefined) throw new UsageError("Unexpected arguments without --data-dir DIR, expected the method's data folder");
  const context: ActionContext = {
    io,
    values,
    target: positionals[0] ?? '',
    dataDir: path.resolve(io.cwd, dataDirArg),
    json: outputFormat(values) === 'json',
    dataDirGiven: values['data-dir'] !== undefined,
  };
  const database = stringOption(values, 'database');
  if (database !== undefined) context.database = await openDatabase(database, context.dataDir);
  try {
    return await action(context);
  } catch (error) {
    if (error instanceof MethodError) throw new UsageError(error.message);
    throw error;
  } finally {
    await context.database?.close();
  }
}

/** With a database, this machine's copy of the data folder when --data-dir is not given. */
const DATABASE_DATA_DIR = '.berrypack/method-data';

export interface ActionContext {
  io: CliIo;
  values: Values;
  target: string;
  dataDir: string;
  json: boolean;
  dataDirGiven: boolean;
  /** `--database URL` (or, for run, runtime.yaml's `database`): runs in PostgreSQL. */
  database?: OpenDatabase;
}

const OPTIONS = {
  'data-dir': { type: 'string' },
  config: { type: 'string' },
  inputs: { type: 'string' },
  environment: { type: 'string' },
  script: { type: 'string' },
  step: { type: 'string' },
  response: { type: 'string' },
  'response-json': { type: 'string' },
  item: { type: 'string' },
  done: { type: 'boolean' },
  redo: { type: 'boolean' },
  database: { type: 'string' },
} as const;

const ACTIONS: Record<string, (c: ActionContext) => Promise<number>> = {
  async run(c) {
    only(c.values, 'run', ['inputs', 'environment', 'script', 'config', 'database']);
    const file = path.resolve(c.io.cwd, c.target);
    if (!isMethodFile(file)) throw new UsageError(`Unexpected FILE ${c.target}, expected a method document (*.method.yaml, *.method.yml or *.method.json)`);
    let bytes: Buffer;
    try {
      bytes = readFileSync(file);
    } catch (error) {
      throw new UsageError(`Unexpected FILE ${c.target}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
    const checked = checkMethod(file, bytes);
    const diagnostics = relativize(sortDiagnostics(checked.diagnostics), c.io.cwd);
    if (!checked.method || hasErrors(diagnostics)) {
      const errors = diagnostics.filter((d) => d.severity === 'error').length;
      return printMethodReport(
        c.io,
        c.json,
        {
          runId: null,
          status: 'failed',
          steps: {},
          pending: [],
          diagnostics,
          error: {
            code: 'invalid-method',
            message: `Unexpected ${errors} error${errors === 1 ? '' : 's'} in ${displayPath(file, c.io.cwd)}, expected a method document that checks clean`,
          },
        },
        shown(c),
      );
    }
    // runtime.yaml beside the document (or --config) is checked like run's; its `environment`
    // and `database` are for the method runner (docs/runtime.md, "runtime.yaml").
    const settings = readRuntimeYaml(path.dirname(file), c.io.cwd, stringOption(c.values, 'config'));
    if (!settings.ok)
      return printMethodReport(
        c.io,
        c.json,
        { runId: null, status: 'failed', steps: {}, pending: [], diagnostics: [...diagnostics, settings.diagnostic], error: settings.error },
        shown(c),
      );
    const method = checked.method;
    const inputs = jsonObject(c.io.cwd, stringOption(c.values, 'inputs'), '--inputs')?.value ?? {};
    // File inputs are paths relative to the working directory the user typed them in.
    for (const [name, declaration] of Object.entries(method.inputs)) {
      if (declaration.type === 'file' && typeof inputs[name] === 'string') inputs[name] = path.resolve(c.io.cwd, inputs[name]);
    }
    if (!c.database && settings.config.database !== undefined) c.database = await openDatabase(settings.config.database, c.dataDir);
    if (!c.database && !c.dataDirGiven) throw new UsageError("Unexpected arguments without --data-dir DIR, expected the method's data folder");
    const host = await hostOptions(c, settings.file === undefined ? {} : { config: settings.file }, settings.config);
    try {
      const run = await untilSettled(c, await runMethod(method, { ...host.options, inputs, meta: { cli: host.meta } }));
      return printMethodReport(c.io, c.json, reportOf(run, diagnostics), shown(c));
    } finally {
      await host.close();
    }
  },

  async resume(c) {
    only(c.values, 'resume', ['step', 'response', 'response-json', 'item', 'script', 'environment', 'config', 'database']);
    const step = stringOption(c.values, 'step');
    const response = responseOption(c);
    if ((step === undefined) !== (response === undefined))
      throw new UsageError(
        'Unexpected --step without a response (or a response without --step), expected --step KEY with --response TEXT or --response-json VALUE',
      );
    if (step === undefined && c.values['item'] !== undefined) throw new UsageError('Unexpected --item without --step');
    const item = itemOption(c.values);
    const host = await recordedHost(c);
    try {
      const run = await untilSettled(
        c,
        await resumeMethod(c.target, {
          ...host.options,
          ...(step === undefined ? {} : { step, response: response!.value }),
          ...(item === undefined ? {} : { item }),
        }),
      );
      return printMethodReport(c.io, c.json, reportOf(run), shown(c));
    } finally {
      await host.close();
    }
  },

  async confirm(c) {
    only(c.values, 'confirm', ['step', 'done', 'redo', 'response', 'response-json', 'item', 'script', 'environment', 'config', 'database']);
    const step = stringOption(c.values, 'step');
    if (step === undefined) throw new UsageError('Unexpected confirm without --step KEY');
    if ((c.values['done'] === true) === (c.values['redo'] === true)) throw new UsageError('Unexpected arguments, expected exactly one of --done or --redo');
    const response = responseOption(c);
    if (response !== undefined && c.values['redo'] === true)
      throw new UsageError("Unexpected a response with --redo, expected the step's outputs only with --done");
    const item = itemOption(c.values);
    const host = await recordedHost(c);
    try {
      const run = await untilSettled(
        c,
        await confirmStep(c.target, {
          ...host.options,
          step,
          decision: c.values['done'] === true ? 'done' : 'redo',
          ...(response === undefined ? {} : { response: response.value }),
          ...(item === undefined ? {} : { item }),
        }),
      );
      return printMethodReport(c.io, c.json, reportOf(run), shown(c));
    } finally {
      await host.close();
    }
  },

  async status(c) {
    only(c.values, 'status', ['database']);
    const run = await methodStatus(c.target, { dataDir: c.dataDir, ...storesOf(c) });
    return printMethodReport(c.io, c.json, reportOf(run), shown(c));
  },

  async worker(c) {
    only(c.values, 'worker', ['script', 'environment', 'config', 'database']);
    if (!c.database) throw new UsageError('Unexpected `method worker` without --database URL, expected the PostgreSQL database the runs are in');
    return workerCommand(c, async (recorded) => {
      const configArg = stringOption(c.values, 'config') ?? recorded.config;
      const settings = configArg === undefined ? undefined : readRuntimeYaml(c.io.cwd, c.io.cwd, configArg);
      if (settings && !settings.ok) throw new UsageError(settings.error.message);
      const host = await hostOptions(c, recorded, settings?.config ?? EMPTY_CONFIG);
      return { options: host.options, close: host.close };
    });
  },
};

function storesOf(c: ActionContext): { stores?: RunStores } {
  return c.database ? { stores: c.database.stores } : {};
}

/**
 * Executor, judge and environment from the options, else from what the run recorded: `--script`
 * (offline: the embedded scripted provider), else runtime.yaml's models; runtime.yaml's
 * `environment` connections served by its `tools` (MCP servers started here, closed by
 * `close`), overridden per connection by `--environment`.
 */
async function hostOptions(
  c: ActionContext,
  recorded: CliMeta,
  config: RuntimeConfig,
): Promise<{ options: MethodHostOptions; meta: CliMeta; close(): Promise<void> }> {
  const scriptArg = stringOption(c.values, 'script');
  const script = scriptArg === undefined ? recorded.script : path.resolve(c.io.cwd, scriptArg);
  const environmentArg = stringOption(c.values, 'environment') ?? recorded.environment;
  const environment = environmentArg === undefined ? undefined : jsonObject(c.io.cwd, environmentArg, '--environment');
  const { executor, judge } =
    (script === undefined ? configuredExecutor(config, process.env) : undefined) ?? cliExecutor(script === undefined ? undefined : readScript(script));
  const connections = await configuredConnections(config, process.env);
  return {
    options: { dataDir: c.dataDir, executor, judge, environment: { ...connections.environment, ...environment?.value }, ...storesOf(c) },
    meta: {
      ...(script === undefined ? {} : { script }),
      ...(environment ? { environment: environment.recorded } : {}),
      ...(recorded.config === undefined ? {} : { config: recorded.config }),
    },
    close: connections.close,
  };
}

/** resume and confirm: the runtime.yaml the run recorded (or `--config`), and the rest as hostOptions. */
async function recordedHost(c: ActionContext): Promise<{ options: MethodHostOptions; close(): Promise<void> }> {
  const recorded = readCliMeta(await recordedMeta(c));
  const configArg = stringOption(c.values, 'config') ?? recorded.config;
  const settings = configArg === undefined ? undefined : readRuntimeYaml(c.io.cwd, c.io.cwd, configArg);
  if (settings && !settings.ok) throw new UsageError(settings.error.message);
  return hostOptions(c, recorded, settings?.config ?? EMPTY_CONFIG);
}

/** `--response TEXT` or `--response-json VALUE` (JSON or @FILE), at most one. */
function responseOption(c: ActionContext): { value: unknown } | undefined {
  const text = stringOption(c.values, 'response');
  const json = stringOption(c.values, 'response-json');
  if (text !== undefined && json !== undefined) throw new UsageError('Unexpected both --response and --response-json, expected one');
  if (json !== undefined) return { value: jsonArgument(c.io.cwd, json, '--response-json').value };
  return text === undefined ? undefined : { value: text };
}

function itemOption(values: Values): number | undefined {
  const item = stringOption(values, 'item');
  if (item === undefined) return undefined;
  if (!/^(?:0|[1-9][0-9]*)$/.test(item)) throw new UsageError(`Unexpected --item ${item}, expected a nonnegative integer`);
  return Number(item);
}

/** Options of other subcommands are mistakes, not silently ignored. */
function only(values: Values, sub: string, allowed: readonly string[]): void {
  for (const name of Object.keys(OPTIONS)) {
    if (name === 'data-dir' || allowed.includes(name) || values[name] === undefined) continue;
    throw new UsageError(`Unexpected --${name} for \`method ${sub}\`${allowed.length > 0 ? `, expected ${allowed.map((a) => `--${a}`).join(', ')}` : ''}`);
  }
}

function shown(c: ActionContext): string {
  return displayPath(c.dataDir, c.io.cwd);
}
