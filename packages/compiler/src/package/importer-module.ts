import path from 'node:path';
import { decodeSourceText } from '../source/normalize-text.js';
import type { CompilerHost } from '../host.js';
import type { PackageSummary } from './assemble-content.js';

const BERRY_EXTENSION = 'ai.strawberry.berry';

/** Options every adapter passes when it turns a build into the importer's JS module. */
export interface ModuleOptions {
  /** A JS expression for where the emitted bundle is (a URL or file name), e.g. `import.meta.ROLLUP_FILE_URL_x`. */
  fileExpression: string;
  /** Also export each field by name (off by default: one default export keeps hot reload simple). */
  namedExports?: boolean;
}

/** `import app from './plugin.json'`: `{id, name, file, agents, exports, requirements}`. */
export function renderPackageModule(summary: PackageSummary, options: ModuleOptions): string {
  const fields: [string, string][] = [
    ['id', JSON.stringify(summary.id)],
    ['name', JSON.stringify(summary.name)],
    ['fileName', JSON.stringify(summary.fileName)],
    ['file', options.fileExpression],
    ['agents', JSON.stringify(summary.agents)],
    ['exports', JSON.stringify(summary.exports)],
    ['requirements', JSON.stringify(summary.requirements)],
  ];
  return render(fields, options);
}

/** `import route from './triage/route.md'`: the routine's descriptor in the context of its package. */
export function renderRoutineModule(summary: PackageSummary, routineName: string, options: ModuleOptions): string {
  const routine = summary.routines[routineName];
  if (!routine) throw new Error(`routine ${routineName} is not in package ${summary.name}`);
  const fields: [string, string][] = [
    ['name', JSON.stringify(routineName)],
    ['kind', JSON.stringify(routine.kind)],
    ['digest', JSON.stringify(routine.digest)],
    ['visibility', JSON.stringify(routine.visibility)],
    ['input', JSON.stringify(routine.input ?? null)],
    ['output', JSON.stringify(routine.output ?? null)],
    ['bundle', `{ id: ${JSON.stringify(summary.id)}, name: ${JSON.stringify(summary.name)}, fileName: ${JSON.stringify(summary.fileName)}, file: ${options.fileExpression} }`],
  ];
  return render(fields, options);
}

function render(fields: [string, string][], options: ModuleOptions): string {
  const body = fields.map(([k, v]) => `  ${k}: ${v},`).join('\n');
  let code = `const descriptor = {\n${body}\n};\nexport default descriptor;\n`;
  if (options.namedExports) code += fields.map(([k]) => `export const ${k} = descriptor.${k};`).join('\n') + '\n';
  return code;
}

/** The routine of a package built from `file` (an absolute .md path), if it is one of its sources. */
export function routineForFile(summary: PackageSummary, manifestDir: string, file: string): string | undefined {
  const rel = path.relative(manifestDir, file).split(path.sep).join('/');
  return Object.keys(summary.routines).find((name) => summary.routines[name]!.path === rel);
}

/** Whether a plugin.json carries the Berry extension; other plugin.json files belong to other plugins. */
export function isBerryManifest(file: string, host: CompilerHost): boolean {
  try {
    const decoded = decodeSourceText(host.readFile(file));
    if (!decoded.ok) return false;
    const json = JSON.parse(decoded.text) as { extensions?: Record<string, unknown> };
    return typeof json === 'object' && json !== null && typeof json.extensions === 'object' && json.extensions !== null && BERRY_EXTENSION in json.extensions;
  } catch {
    return false;
  }
}

/** The nearest Berry plugin.json in `from` or a directory above it. */
export function findPackageManifest(from: string, host: CompilerHost): string | undefined {
  let dir = from;
  for (;;) {
    const candidate = path.join(dir, 'plugin.json');
    if (host.stat(candidate)?.kind === 'file' && isBerryManifest(candidate, host)) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}
