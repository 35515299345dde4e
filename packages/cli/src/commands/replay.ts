import path from 'node:path';
import { createRuntime, readJournal, RuntimeError, type JournalEntry, type ReplayReport } from '@berrypack/runtime';
import type { CliIo } from '../io.js';
import { outputFormat, parse, stringOption } from '../options.js';
import { terminalSafe as safe } from '../terminal-safe.js';
import { UsageError } from '../usage-error.js';
import { COMPILER_OPTIONS } from './compiler-options.js';
import { CONFIG_OPTIONS, runSettings, targetDirectory, withConfigCatalog } from './run-config.js';
import { limitFlags, loadTarget, summarize } from './run.js';

export const REPLAY_HELP = `Usage: berrypack replay JOURNAL [--bundle BUNDLE_OR_MANIFEST] [--execution ID]
                        [--timeout MS] [--memory MB] [--config FILE] [--json]

Re-runs a recorded execution from its journal (written by \`berrypack run --journal\`): code runs
again, every model decision and external tool call gets its recorded outcome and is not
dispatched again. Reports the first divergence (a different call at the same position, or a
different outcome), a missing recorded outcome, or an incomplete recording (a journal without
the execution's \`end\` entry, cut short by a crash: replayed up to where it ends, reported as
incomplete-recording). Without --bundle, the bundle or manifest the run recorded is used.
Without --execution, the journal's last execution is replayed. Code runs under the limits
\`run\` would use: runtime.yaml beside the bundle or manifest (or --config FILE), overridden by
--timeout and --memory (give the run's flags again).
Exit 0 when the replay matches the journal, 1 when it does not (or runtime.yaml is invalid),
2 on usage errors.
`;

export async function replayCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(args, {
    bundle: { type: 'string' },
    execution: { type: 'string' },
    timeout: { type: 'string' },
    memory: { type: 'string' },
    ...CONFIG_OPTIONS,
    ...COMPILER_OPTIONS,
  });
  if (values.help) {
    io.stdout.write(REPLAY_HELP);
    return 0;
  }
  const json = outputFormat(values) === 'json';
  if (positionals.length !== 1) throw new UsageError(`Unexpected ${positionals.length} arguments, expected exactly one JOURNAL (see berrypack replay --help)`);
  const flags = limitFlags(values);
  let entries: JournalEntry[];
  try {
    entries = readJournal(path.resolve(io.cwd, positionals[0]!));
  } catch (error) {
    if (error instanceof RuntimeError) return fail(io, json, error.code, error.message);
    throw new UsageError(`Unexpected JOURNAL ${positionals[0]}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const executionId = stringOption(values, 'execution');
  const headers = entries.filter((e) => e.type === 'execution');
  const header = executionId === undefined ? headers[headers.length - 1] : headers.find((h) => h.executionId === executionId);
  if (!header)
    return fail(
      io,
      json,
      'invalid-journal',
      executionId === undefined
        ? 'Missing an execution entry in the journal, expected one written by berrypack run --journal'
        : `Missing execution ${executionId} in the journal`,
    );
  const recorded = (header.meta?.['source'] as { path?: unknown } | undefined)?.path;
  const bundleArg = stringOption(values, 'bundle') ?? (typeof recorded === 'string' ? recorded : undefined);
  if (bundleArg === undefined) throw new UsageError('Missing --bundle, expected the bundle or manifest of the recorded run (the journal does not name one)');
  const settings = runSettings(io.cwd, targetDirectory(io.cwd, bundleArg), values, flags);
  if ('failed' in settings) return fail(io, json, settings.failed.code, settings.failed.message);
  const loaded = await loadTarget(io.cwd, bundleArg, withConfigCatalog(values, settings.config));
  if ('failed' in loaded) return fail(io, json, loaded.failed.error!.code, loaded.failed.error!.message);

  const runtime = createRuntime({ limits: settings.limits });
  try {
    let report: ReplayReport;
    try {
      report = await runtime.replay(loaded.bundle, entries, { executionId: header.executionId });
    } catch (error) {
      if (error instanceof RuntimeError) return fail(io, json, error.code, error.message);
      throw error;
    }
    if (json) io.stdout.write(`${JSON.stringify(report)}\n`);
    else {
      if (report.matches) io.stdout.write(`replay of ${safe(report.replayOf)} matches the journal (${safe(report.status)})\n`);
      else if (report.divergence) io.stdout.write(`✖ divergence at ${safe(report.divergence.at)}: ${safe(report.divergence.message)}\n`);
      else io.stdout.write(`✖ ${safe(report.error?.code)}: ${safe(report.error?.message)}\n`);
      // A cut-short recording that also diverged (or lacks an outcome): say it is incomplete too.
      if (report.incomplete && report.error?.code !== 'incomplete-recording') {
        io.stdout.write(`  the journal also ends after entry ${report.incomplete.endsAfter} without an \`end\` entry (the run was cut short)\n`);
      }
      io.stdout.write(`${safe(summarize(report))}\n`);
    }
    return report.matches ? 0 : 1;
  } finally {
    await runtime.close();
  }
}

function fail(io: CliIo, json: boolean, code: string, message: string): number {
  if (json) io.stdout.write(`${JSON.stringify({ matches: false, error: { code, message } })}\n`);
  else io.stdout.write(`✖ ${safe(code)}: ${safe(message)}\n`);
  return 1;
}
