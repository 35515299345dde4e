import { decodedMappings, TraceMap, traceSegment } from '@jridgewell/trace-mapping';
import type { SandboxModule } from './types.js';

export interface SourceLocation {
  file: string;
  line: number;
  column: number;
}

/** A decoded map per module map object (TraceMap decodes its VLQ mappings once). */
const traced = new WeakMap<object, TraceMap>();

/**
 * Original position of a generated 1-based line and column. The nearest segment at or
 * before the column is taken, plus the distance from it: a body cut out of its `.md` file
 * keeps every character, so that distance is the same in both files.
 */
export function originalPosition(map: NonNullable<SandboxModule['map']>, line: number, column: number): SourceLocation | undefined {
  let trace = traced.get(map);
  if (trace === undefined) {
    trace = new TraceMap({ version: 3, sources: map.sources, names: map.names ?? [], mappings: map.mappings });
    traced.set(map, trace);
  }
  const target = column - 1;
  const segments = decodedMappings(trace)[line - 1];
  const best = traceSegment(trace, line - 1, target);
  // Before the line's first segment: that segment, at its own column.
  const found = best ?? segments?.find((s) => s.length >= 4);
  if (found === undefined || found.length < 4) return undefined;
  const [generated, source, originalLine, originalColumn] = found as readonly [number, number, number, number];
  const file = map.sources[source];
  if (file === undefined) return undefined;
  const offset = best === null ? 0 : target - generated;
  return { file, line: originalLine + 1, column: originalColumn + 1 + offset };
}

const FRAME = /^\s*at (?:(.*) \()?(.+?):(\d+):(\d+)\)?\s*$/;

/** QuickJS counts columns in UTF-8 bytes; source maps and diagnostics count UTF-16 code units. */
export function utf16Column(line: string, byteColumn: number): number {
  const target = byteColumn - 1;
  let bytes = 0;
  let i = 0;
  while (i < line.length && bytes < target) {
    const c = line.charCodeAt(i);
    const pair = c >= 0xd800 && c <= 0xdbff && i + 1 < line.length && (line.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
    bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : pair ? 4 : 3;
    i += pair ? 2 : 1;
  }
  return i + 1;
}

function sourceLine(module: SandboxModule, line: number): string {
  let start = 0;
  for (let n = 1; n < line; n++) {
    const next = module.source.indexOf('\n', start);
    if (next < 0) return '';
    start = next + 1;
  }
  const end = module.source.indexOf('\n', start);
  return module.source.slice(start, end < 0 ? undefined : end);
}

/**
 * Maps QuickJS stack frames to the files the author edits. Frames outside the routine's
 * modules (the runner, native functions) are dropped; the first remaining one is where the
 * error was raised.
 */
export function mapStack(stack: string, modules: readonly SandboxModule[]): { location: SourceLocation | undefined; stack: string | undefined } {
  const byPath = new Map(modules.map((m) => [m.path, m]));
  const frames: string[] = [];
  let location: SourceLocation | undefined;
  for (const line of stack.split('\n')) {
    const m = FRAME.exec(line);
    if (m === null) continue;
    const [, fn, file = '', l = '0', c = '0'] = m;
    const module = byPath.get(file);
    if (module === undefined) continue;
    const position = { file, line: Number(l), column: utf16Column(sourceLine(module, Number(l)), Number(c)) };
    const mapped = module.map === undefined ? position : (originalPosition(module.map, position.line, position.column) ?? position);
    location ??= mapped;
    const where = `${mapped.file}:${mapped.line}:${mapped.column}`;
    frames.push(fn === undefined ? `    at ${where}` : `    at ${fn} (${where})`);
  }
  return { location, stack: frames.length > 0 ? frames.join('\n') : undefined };
}

/** Where an import that failed to resolve is written: the first quoted occurrence of its specifier. */
export function locateImport(modules: readonly SandboxModule[], importer: string, specifier: string): SourceLocation | undefined {
  const module = modules.find((m) => m.path === importer);
  if (module === undefined) return undefined;
  let at = -1;
  for (const quote of ["'", '"']) {
    const i = module.source.indexOf(quote + specifier + quote);
    if (i >= 0 && (at < 0 || i < at)) at = i;
  }
  if (at < 0) return undefined;
  const before = module.source.slice(0, at);
  const line = before.split('\n').length;
  const column = at - before.lastIndexOf('\n');
  const position = { file: importer, line, column };
  return module.map === undefined ? position : (originalPosition(module.map, line, column) ?? position);
}
