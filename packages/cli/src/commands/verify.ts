import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createCompiler, type BuildResult } from '@berrypack/compiler';
import { firstDifference } from '@berrypack/compiler/internal-cli';
import type { CliIo } from '../io.js';
import { outputFormat, parse } from '../options.js';
import { printDiagnostics } from '../output/report.js';
import { terminalSafe as safe } from '../terminal-safe.js';
import { UsageError } from '../usage-error.js';
import { compilerOptions, COMPILER_OPTIONS, resolveManifestArg } from './compiler-options.js';

export const VERIFY_HELP = `Usage: berrypack verify MANIFEST [--json] [--catalog FILE] [--store DIR]

Builds the package twice, in two temporary copies of it and its import closure placed at
different paths (files created in different orders), and compares the bundle bytes.
Exit 0 only when they are identical; on a difference, names the first differing entry.
`;

export function verifyCommand(args: string[], io: CliIo): number {
  const { values, positionals } = parse(args, COMPILER_OPTIONS);
  if (values.help) {
    io.stdout.write(VERIFY_HELP);
    return 0;
  }
  const format = outputFormat(values);
  if (positionals.length !== 1) throw new UsageError(`Unexpected ${positionals.length} arguments, expected exactly one MANIFEST`);
  const manifest = resolveManifestArg(io.cwd, positionals[0]!);
  const options = compilerOptions(io.cwd, values);
  const first = createCompiler(options).build(manifest);
  if (!first.ok) {
    printDiagnostics(io, format, first.diagnostics, { ok: false, identical: false });
    return 1;
  }
  const closure = first.files.filter((f) => existsSync(f) && statSync(f).isFile());
  const root = commonDirectory(closure);
  const temp = mkdtempSync(path.join(os.tmpdir(), 'berrypack-verify-'));
  try {
    const a = path.join(temp, 'a');
    const b = path.join(temp, 'elsewhere', 'deeper', 'b');
    copyClosure(root, closure, a);
    copyClosure(root, [...closure].reverse(), b);
    const rel = path.relative(root, manifest);
    const builds: BuildResult[] = [a, b].map((dir) => createCompiler(options).build(path.join(dir, rel)));
    const [ba, bb] = builds as [BuildResult, BuildResult];
    if (!ba.bundle || !bb.bundle) {
      printDiagnostics(io, format, [...ba.diagnostics, ...bb.diagnostics], { ok: false, identical: false });
      return 1;
    }
    const identical = Buffer.compare(Buffer.from(ba.bundle.bytes), Buffer.from(bb.bundle.bytes)) === 0 && ba.bundle.id === first.bundle!.id;
    const difference = identical
      ? undefined
      : (firstDifference(JSON.parse(ba.bundle.text), JSON.parse(first.bundle!.text)) ??
        firstDifference(JSON.parse(ba.bundle.text), JSON.parse(bb.bundle.text)));
    if (format === 'json') {
      io.stdout.write(JSON.stringify({ ok: identical, identical, id: first.bundle!.id, ...(difference ? { difference } : {}), diagnostics: [] }) + '\n');
    } else if (identical) {
      io.stdout.write(`✔ reproducible: two builds in different directories gave identical bytes\n  id ${first.bundle!.id}\n`);
    } else {
      io.stdout.write(
        `✖ the builds differ${difference ? ` at ${safe(difference.path)}:\n  one:   ${safe(difference.a)}\n  other: ${safe(difference.b)}` : ''}\n`,
      );
    }
    return identical ? 0 : 1;
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

function commonDirectory(files: readonly string[]): string {
  let common = path.dirname(files[0] ?? process.cwd());
  for (const f of files) {
    while (!(f + path.sep).startsWith(common + path.sep) && common !== path.dirname(common)) common = path.dirname(common);
  }
  return common;
}

function copyClosure(root: string, files: readonly string[], to: string): void {
  for (const f of files) {
    const target = path.join(to, path.relative(root, f));
    mkdirSync(path.dirname(target), { recursive: true });
    copyFileSync(f, target);
  }
}
