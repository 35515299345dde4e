import type { Diagnostic } from '@berrypack/compiler';
import type { MethodRun } from '@berrypack/runtime';
import type { CliIo } from '../io.js';
import { createColors } from '../output/colors.js';
import { terminalSafe as safe } from '../terminal-safe.js';

/** `method run|resume|confirm|status --json` (CONTRACTS.md): `result` only when completed, `error` only when failed. */
export interface MethodReport {
  runId: string | null;
  status: MethodRun['status'];
  steps: MethodRun['steps'];
  pending: MethodRun['pending'];
  diagnostics: Diagnostic[];
  result?: unknown;
  error?: { code: string; message: string };
}

export function reportOf(run: MethodRun, diagnostics: Diagnostic[] = []): MethodReport {
  return {
    runId: run.runId,
    status: run.status,
    steps: run.steps,
    pending: run.pending,
    diagnostics,
    ...(run.status === 'completed' ? { result: run.result ?? null } : {}),
    ...(run.status === 'failed' && run.error ? { error: run.error } : {}),
  };
}

const MARKS: Readonly<Record<string, string>> = {
  passed: '✔',
  unchecked: '○',
  ambiguous: '?',
  skipped: '–',
  failed: '✖',
  stopped: '✖',
  waiting: '…',
  uncertain: '!',
  pending: '·',
  running: '▸',
  checking: '▸',
};

const TITLES: Readonly<Record<MethodRun['pending'][number]['kind'], string>> = {
  ask: 'Waiting for a response',
  uncertain: 'Uncertain',
  interrupted: 'Interrupted',
  'missing-output': 'Waiting for outputs',
};

/** Exit 0 for completed and needs_attention (and a live run's status), 1 for failed. */
export function printMethodReport(io: CliIo, json: boolean, report: MethodReport, dataDir: string): number {
  if (json) {
    io.stdout.write(`${JSON.stringify(report)}\n`);
    return report.status === 'failed' ? 1 : 0;
  }
  const colors = createColors(io.stdout, io.env);
  // Step keys, requests, results and errors come from the method document and its run: every
  // one is escaped for the terminal before the CLI's own colours are added.
  const width = Math.max(0, ...Object.keys(report.steps).map((k) => safe(k).length));
  for (const [key, status] of Object.entries(report.steps)) io.stdout.write(`${MARKS[status] ?? ' '} ${safe(key).padEnd(width)}  ${safe(status)}\n`);
  for (const p of report.pending) {
    const item = p.item === undefined ? '' : ` --item ${p.item}`;
    io.stdout.write(`\n${colors.yellow(TITLES[p.kind])}: ${safe(p.step)}${p.item === undefined ? '' : ` (item ${safe(p.item)})`}\n`);
    io.stdout.write(`${indent(safe(p.request, { multiline: true }))}\n`);
    const next =
      p.kind === 'ask'
        ? `berrypack method resume ${report.runId} --data-dir ${dataDir} --step ${p.step}${item} --response TEXT (or --response-json VALUE)`
        : p.kind === 'uncertain' || p.kind === 'missing-output'
          ? `berrypack method confirm ${report.runId} --data-dir ${dataDir} --step ${p.step}${item} --done --response-json OUTPUTS | --redo`
          : `berrypack method resume ${report.runId} --data-dir ${dataDir}`;
    io.stdout.write(`${colors.dim(`  → ${safe(next)}`)}\n`);
  }
  if (report.status === 'completed') io.stdout.write(`\n${safe(JSON.stringify(report.result, null, 2), { multiline: true })}\n`);
  if (report.error) io.stdout.write(`\n${colors.red('✖')} ${safe(report.error.code)}: ${safe(report.error.message)}\n`);
  const count = Object.keys(report.steps).length;
  io.stdout.write(`${safe(report.status)} · ${count} step${count === 1 ? '' : 's'} · ${safe(report.runId ?? 'no run')}\n`);
  return report.status === 'failed' ? 1 : 0;
}

function indent(text: string): string {
  return text
    .trimEnd()
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}
