import { statSync } from 'node:fs';
import path from 'node:path';
import { createCompiler, writeBundle, writeBundleAsync, type BuildResult, type Diagnostic } from '@berrypack/compiler';
import type { CliIo } from '../io.js';
import { maxWarnings, outputFormat, parse, stringOption } from '../options.js';
import type { OutputFormat } from '../output/report.js';
import { displayPath } from '../paths.js';
import { terminalSafe as safe } from '../terminal-safe.js';
import { UsageError } from '../usage-error.js';
import { compilerOptions, resolveManifestArg } from './compiler-options.js';
import { BUILD_OPTIONS } from '../option-specs.js';

// What a build uses only in some runs loads when that run needs it (start-up is a visible share of
// a small build): the persistent cache, the early worker of --parallel, --watch, and the report
// printed only when there are diagnostics or --json.
const loadReport = () => import('../output/report.js');
type Report = Awaited<ReturnType<typeof loadReport>>;

export const BUILD_HELP = `Usage: berrypack build MANIFEST [--out-dir DIR] [--json | --format text|json|github]
                       [--catalog FILE] [--store DIR] [--version SHA256] [--max-warnings N] [--watch]
                       [--no-cache] [--parallel]

Compiles the package of MANIFEST (a plugin.json or its directory) into
DIR/<plugin-name>.<first 12 hex of id>.berry.json (default DIR: dist), resources into
DIR/blobs/sha256/. Nothing is written when there are errors.

--watch  build, then rebuild after every change to the files and folders the build read,
         printing \`rebuilt FILE ID\` when the bundle changes, or the problems and
         \`✖ N errors, waiting for changes\`; stops with exit 0 on Ctrl-C (SIGINT) or SIGTERM.
         With --json, one JSON object per build, each on its own line.
--no-cache  compile even when node_modules/.cache/berrypack/builds holds a build whose
         every input (each file read, by digest; each directory listing) is unchanged;
         such a build is otherwise served from that cache, with the same bytes and messages.
--parallel  read sources on a second thread as well (the same bundle and
         messages). Off by default: on two cores the thread costs more than it saves.
         --no-parallel (one thread) is the default and still accepted.
`;

interface BuildSettings {
  io: CliIo;
  format: OutputFormat;
  limit: number | undefined;
  outDir: string;
}

export async function buildCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(args, BUILD_OPTIONS);
  if (values.help) {
    io.stdout.write(BUILD_HELP);
    return 0;
  }
  const format = outputFormat(values);
  const limit = maxWarnings(stringOption(values, 'max-warnings'));
  if (positionals.length !== 1) throw new UsageError(`Unexpected ${positionals.length} arguments, expected exactly one MANIFEST (see berrypack build --help)`);
  const manifest = resolveManifestArg(io.cwd, positionals[0]!);
  const settings: BuildSettings = { io, format, limit, outDir: path.resolve(io.cwd, stringOption(values, 'out-dir') ?? 'dist') };
  if (statSync(settings.outDir, { throwIfNoEntry: false })?.isDirectory() === false) {
    throw new UsageError(`Unexpected --out-dir ${stringOption(values, 'out-dir')}: it is a file, expected a directory (or a path to create one at)`);
  }
  const version = stringOption(values, 'version');
  const options = { ...compilerOptions(io.cwd, values), ...(values.parallel === true && values['no-parallel'] !== true ? { parallel: true } : {}) };
  // A one-shot build is served from the persistent cache when nothing it read has changed.
  const cache =
    values.watch === true || values['no-cache'] === true
      ? undefined
      : (await import('../build-cache.js')).BuildCache.open(path.resolve(io.cwd, 'node_modules/.cache/berrypack/builds'), [manifest, options, version ?? null]);
  const cached = cache?.lookup();
  // The second thread the bin started before loading the compiler, on the same condition (early-build.ts).
  const early = args.includes('--parallel') ? (await import('../early-build.js')).takeEarlyWorker(manifest) : undefined;
  if (cached) {
    early?.stop();
    const result: BuildResult = { ok: true, diagnostics: cached.diagnostics, bundle: cached.bundle, summary: undefined, files: [], directories: [] };
    if (failed(result, settings)) {
      (await loadReport()).printDiagnostics(io, format, result.diagnostics, { ok: false });
      return 1;
    }
    printBuilt(settings, result, await writeBundleAsync(settings.outDir, cached.bundle), 'built', await reportFor(settings, result), true);
    return 0;
  }
  const recorder = cache ? new (await import('@berrypack/compiler/internal-cli')).AnswerRecorder() : undefined;
  // One compiler for the whole session: a rebuild redoes only the files that changed. Without
  // --watch there is no rebuild, so it keeps nothing for one (oneShot; not part of the cache key).
  const compiler = createCompiler({
    ...options,
    ...(recorder ? { host: recorder } : {}),
    ...(early ? { checkWorker: early } : {}),
    ...(values.watch === true ? {} : { oneShot: true }),
  });
  const build = (changedFiles?: ReadonlySet<string>): BuildResult =>
    compiler.build(manifest, { ...(version === undefined ? {} : { version }), ...(changedFiles === undefined ? {} : { changedFiles }) });
  // A large package's sources are read and checked on two threads first (docs/performance.md).
  await compiler.prepare(manifest);
  if (values.watch === true) return watch(settings, manifest, build);
  const result = build();
  if (failed(result, settings)) {
    (await loadReport()).printDiagnostics(io, format, result.diagnostics, { ok: false });
    return 1;
  }
  // The blobs' and the bundle's fsyncs wait for the disk together (writeBundleAsync).
  printBuilt(settings, result, await writeBundleAsync(settings.outDir, result.bundle!), 'built', await reportFor(settings, result));
  if (cache && recorder)
    cache.store(
      result.bundle!,
      recorder.stored(),
      result.diagnostics.filter((d) => d.severity !== 'error'),
    );
  return 0;
}

function failed(result: BuildResult, settings: BuildSettings): boolean {
  return !result.ok || !result.bundle || (settings.limit !== undefined && count(result.diagnostics, 'warning') > settings.limit);
}

/** The report when printBuilt has diagnostics or JSON to print for `result`, else undefined (nothing to load). */
function reportFor(settings: BuildSettings, result: BuildResult): Promise<Report> | undefined {
  return settings.format === 'json' || result.diagnostics.some((d) => d.severity !== 'info') ? loadReport() : undefined;
}

function printBuilt(settings: BuildSettings, result: BuildResult, file: string, verb: 'built' | 'rebuilt', report: Report | undefined, cached = false): void {
  const { io, format } = settings;
  const shown = displayPath(file, io.cwd);
  const id = result.bundle!.id;
  // JSON keeps exactly the shape of CONTRACTS.md; only the text says where the bundle came from.
  // `report` is loaded whenever one of these prints (reportFor).
  if (format === 'json') report!.printDiagnostics(io, format, result.diagnostics, { ok: true, id, file: shown });
  else {
    if (result.diagnostics.some((d) => d.severity !== 'info')) report!.printDiagnostics(io, format, result.diagnostics);
    if (format === 'text')
      io.stdout.write(
        verb === 'built' ? `built ${safe(shown)}${cached ? ' (from the cache)' : ''}\n  id ${safe(id)}\n` : `rebuilt ${safe(shown)} ${safe(id)}\n`,
      );
  }
}

/** `--watch`: rebuilds until a signal; every outcome is printed, a failure never ends the session. */
async function watch(settings: BuildSettings, manifest: string, build: (changedFiles?: ReadonlySet<string>) => BuildResult): Promise<number> {
  const { io, format, outDir } = settings;
  const [report, { watchBuild }, { changedFileBuilds }, { createColors }, { summaryLine }] = await Promise.all([
    loadReport(),
    import('../watch/watch-build.js'),
    import('../watch/changed-builds.js'),
    import('../output/colors.js'),
    import('../output/format-text.js'),
  ]);
  const builds = changedFileBuilds(manifest, build);
  const { printDiagnostics } = report;
  let last: { ok: boolean; id?: string } | undefined;
  let written: string | undefined;
  if (io.stderr.isTTY) io.stderr.write('watching for changes (Ctrl-C to stop)\n');
  return watchBuild({
    fallback: { files: [manifest], directories: [] },
    build() {
      const result = builds.build();
      if (failed(result, settings)) {
        printFailure(result.diagnostics);
        last = { ok: false };
      } else {
        // Rebuilds skip fsync (the rename is still atomic) and take over the bundle they supersede.
        const file = writeBundle(outDir, result.bundle!, { durable: last === undefined, replaces: written });
        written = result.bundle!.fileName;
        // An event that leaves the bundle as it was (a save without changes) prints nothing.
        if (last === undefined || !last.ok || last.id !== result.bundle!.id)
          printBuilt(settings, result, file, last === undefined ? 'built' : 'rebuilt', report);
        last = { ok: true, id: result.bundle!.id };
      }
      return result;
    },
    onError(error) {
      io.stderr.write(`berrypack build: internal error: ${safe((error instanceof Error ? error.message : String(error)).split('\n')[0])}\n`);
      last = { ok: false };
    },
    // The files a build writes: the bundle, its blobs and the temporary files renamed into place.
    ignore: (changed) => {
      const rel = path.relative(outDir, changed);
      if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return false;
      return rel === 'blobs' || rel.startsWith(`blobs${path.sep}`) || (!rel.includes(path.sep) && (rel.endsWith('.berry.json') || rel.endsWith('.tmp')));
    },
  }).finally(() => builds.close());

  function printFailure(diagnostics: readonly Diagnostic[]): void {
    if (format !== 'text') {
      printDiagnostics(io, format, diagnostics, { ok: false });
      return;
    }
    // The report's own summary line gives way to the watch summary.
    const colors = createColors(io.stdout, io.env);
    const summary = `${summaryLine(diagnostics, colors)}\n`;
    let report = '';
    printDiagnostics(
      { ...io, stdout: { write: (s: string) => (report += s), ...(io.stdout.isTTY === undefined ? {} : { isTTY: io.stdout.isTTY }) } },
      format,
      diagnostics,
    );
    if (report.endsWith(summary)) report = report.slice(0, -summary.length);
    const errors = count(diagnostics, 'error');
    const warnings = count(diagnostics, 'warning');
    const over = errors === 0 && settings.limit !== undefined ? `, ${plural(warnings, 'warning')} (more than --max-warnings ${settings.limit})` : '';
    io.stdout.write(`${report}${colors.red(colors.bold(`✖ ${plural(errors, 'error')}${over}, waiting for changes`))}\n`);
  }
}

function count(diagnostics: readonly Diagnostic[], severity: Diagnostic['severity']): number {
  return diagnostics.filter((d) => d.severity === severity).length;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
