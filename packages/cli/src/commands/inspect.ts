import { existsSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadBundleFile } from '@berrypack/compiler';
import { renderInspectorPage } from '../inspect-html/render-page.js';
import type { BundleContent } from '../inspect-html/graph.js';
import { displayPath } from '../paths.js';
import type { CliIo } from '../io.js';
import { outputFormat, parse } from '../options.js';
import { terminalSafe as safe } from '../terminal-safe.js';
import { UsageError } from '../usage-error.js';

export const INSPECT_HELP = `Usage: berrypack inspect BUNDLE [--json] [--html FILE]

Verifies BUNDLE (its id and every digest) and lists its agents, exports, sources by kind,
requirements and the code-size account. Exit 1 when the bundle does not verify.

--html FILE  also write one self-contained HTML page (no network requests) with the routine
             graph and the size account as a treemap; open it in any browser.
`;

interface Content {
  plugin?: { name?: string };
  agents?: Record<string, { title?: string; entry?: string }>;
  exports?: { name: string; entry: boolean }[];
  sources?: Record<string, { kind?: string }>;
  requirements?: Record<string, unknown>;
  code?: { total: number; limit: number; entries: { path: string; size: number }[] };
  imports?: { name: string; id: string }[];
  resources?: { uri: string; size: number }[];
}

export function inspectCommand(args: string[], io: CliIo): number {
  const { values, positionals } = parse(args, { html: { type: 'string' } });
  if (values.help) {
    io.stdout.write(INSPECT_HELP);
    return 0;
  }
  const format = outputFormat(values);
  if (positionals.length !== 1) throw new UsageError(`Unexpected ${positionals.length} arguments, expected exactly one BUNDLE`);
  const file = path.resolve(io.cwd, positionals[0]!);
  // A missing file is a usage error, as in every command (exit 2); a bundle that does not verify is exit 1.
  if (!existsSync(file)) throw new UsageError(`Unexpected BUNDLE ${positionals[0]}: no such file or directory`);
  const loaded = loadBundleFile(file);
  if (!loaded.ok) {
    if (format === 'json') io.stdout.write(JSON.stringify({ ok: false, error: loaded.error }) + '\n');
    else io.stdout.write(safe(`✖ ${positionals[0]} does not verify: ${loaded.error.message} (${loaded.error.code} ${loaded.error.rule})`) + '\n');
    return 1;
  }
  const content = loaded.bundle.content as unknown as Content;
  const html = typeof values.html === 'string' ? writePage(path.resolve(io.cwd, values.html), loaded.bundle) : undefined;
  const byKind: Record<string, string[]> = {};
  for (const [name, source] of Object.entries(content.sources ?? {})) (byKind[source.kind ?? '?'] ??= []).push(name);
  const summary = {
    ok: true,
    id: loaded.bundle.id,
    format: loaded.bundle.format,
    bytes: loaded.bundle.bytes.length,
    name: content.plugin?.name,
    agents: content.agents ?? {},
    exports: content.exports ?? [],
    sources: byKind,
    imports: (content.imports ?? []).map((i) => ({ name: i.name, id: i.id })),
    resources: (content.resources ?? []).map((r) => ({ uri: r.uri, size: r.size })),
    requirements: content.requirements ?? {},
    code: content.code,
    ...(html !== undefined ? { html: displayPath(html, io.cwd) } : {}),
  };
  if (format === 'json') {
    io.stdout.write(JSON.stringify(summary) + '\n');
    return 0;
  }
  const out: string[] = [`${summary.name}  ${summary.id}`, `${summary.format}, ${fmt(summary.bytes)} bytes`, '', 'agents'];
  for (const [id, a] of Object.entries(summary.agents)) out.push(`  ${id} → ${a.entry}${a.title ? `   ${a.title}` : ''}`);
  if (Object.keys(summary.agents).length === 0) out.push('  (none: a library)');
  out.push('exports', `  ${summary.exports.map((e) => (e.entry ? `${e.name} (entry)` : e.name)).join(', ') || '(none)'}`);
  out.push('sources');
  for (const kind of ['model', 'code', 'instructions']) {
    const names = (byKind[kind] ?? []).sort();
    if (names.length) out.push(`  ${kind} (${names.length}): ${names.join(', ')}`);
  }
  if (summary.imports.length) out.push('imports', ...summary.imports.map((i) => `  ${i.name}  ${i.id}`));
  if (summary.resources.length) out.push('resources', ...summary.resources.map((r) => `  ${r.uri}  ${r.size} bytes`));
  out.push('requirements');
  for (const [key, value] of Object.entries(summary.requirements)) {
    const shown = Array.isArray(value) ? (value.length ? value.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ') : '—') : String(value);
    out.push(`  ${key}: ${shown}`);
  }
  if (summary.code) {
    out.push(`code size: ${fmt(summary.code.total)} of ${fmt(summary.code.limit)} bytes`);
    // Widths of the paths as they will be shown (escaped).
    const width = Math.max(4, ...summary.code.entries.map((e) => safe(e.path).length));
    out.push(`  ${'path'.padEnd(width)}  bytes`);
    for (const e of summary.code.entries) out.push(`  ${safe(e.path).padEnd(width)}  ${fmt(e.size).padStart(5)}`);
  }
  if (html !== undefined) out.push(`page: ${displayPath(html, io.cwd)}`);
  // Names, titles, paths and URIs come from the bundle: every line is escaped for the terminal.
  io.stdout.write(out.map((line) => safe(line)).join('\n') + '\n');
  return 0;
}

function fmt(n: number): string {
  return n.toLocaleString('en-US');
}

/** Written whole or not at all: a temporary file beside the target, then a rename. */
function writePage(file: string, bundle: { id: string; content: unknown; format: string; bytes: Uint8Array }): string {
  const page = renderInspectorPage({ id: bundle.id, content: bundle.content as BundleContent, format: bundle.format, bytes: bundle.bytes.length });
  const temp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(temp, page);
    renameSync(temp, file);
  } catch (error) {
    rmSync(temp, { force: true });
    throw new UsageError(`Cannot write --html ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  return file;
}
