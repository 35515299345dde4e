import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Diagnostic } from './diagnostics/diagnostic.js';
import { LineIndex } from './diagnostics/line-index.js';
import { Reporter } from './diagnostics/reporter.js';
import { checkSource, type RoutineSource } from './routine/check-routine.js';
import { finalSegment } from './routine/names.js';

export interface CheckDirectoryResult {
  routines: RoutineSource[];
  diagnostics: Diagnostic[];
  /** Every file and directory read, for watchers. */
  files: string[];
  directories: string[];
}

/**
 * Checks every `.md` source below `dir` on its own, then the names across them (SRC-9).
 * Discovery skips `node_modules`, dot-directories and nested packages (MAN-4 decision).
 */
export function checkDirectory(dir: string): CheckDirectoryResult {
  const files: string[] = [];
  const directories: string[] = [];
  walk(dir, dir, files, directories);
  files.sort();
  const diagnostics: Diagnostic[] = [];
  const routines: RoutineSource[] = [];
  for (const file of files) {
    let bytes: Uint8Array;
    try {
      bytes = readFileSync(file);
    } catch (error) {
      const r = new Reporter(file, new LineIndex(''));
      r.report('BP9001', { start: 0, end: 0 }, `Unexpected error reading the file: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
      diagnostics.push(...r.diagnostics);
      continue;
    }
    const result = checkSource(file, bytes);
    diagnostics.push(...result.diagnostics);
    if (result.routine) routines.push(result.routine);
  }
  diagnostics.push(...checkNames(routines));
  return { routines, diagnostics, files, directories };
}

/** SRC-9: names are unique; a file name that differs from the final segment is a warning. */
export function checkNames(routines: readonly RoutineSource[]): Diagnostic[] {
  const out: Diagnostic[] = [];
  const byName = new Map<string, RoutineSource>();
  for (const routine of routines) {
    if (routine.name === undefined) continue;
    const first = byName.get(routine.name);
    const base = path.basename(routine.file, '.md');
    const segment = finalSegment(routine.name);
    if (!first && base === segment) {
      byName.set(routine.name, routine);
      continue;
    }
    const r = new Reporter(routine.file, routine.lines);
    if (first) {
      const firstPos = first.lines.position(first.nameSpan.start);
      r.report('BP1090', routine.nameSpan, `Unexpected second source named \`${routine.name}\`, expected each name once`, {
        hint: 'rename one of them; names, not files, identify sources',
        related: [{ file: first.file, line: firstPos.line, column: firstPos.column, message: `\`${routine.name}\` is first declared here` }],
      });
    } else byName.set(routine.name, routine);
    if (base !== segment) {
      r.report('BP1091', routine.nameSpan, `Unexpected file name \`${path.basename(routine.file)}\` for \`${routine.name}\`, expected \`${segment}.md\``, {
        hint: 'the file name is only a convention, but matching it helps readers find the source',
      });
    }
    out.push(...r.diagnostics);
  }
  return out;
}

function walk(root: string, dir: string, files: string[], directories: string[]): void {
  directories.push(dir);
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (e.name.startsWith('.') || e.name === 'node_modules') continue;
    const full = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (full !== root && isFile(path.join(full, 'plugin.json'))) continue;
      walk(root, full, files, directories);
    } else if (e.isFile() && e.name.endsWith('.md')) files.push(full);
  }
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}
