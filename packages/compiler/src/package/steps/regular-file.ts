import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import { LineIndex } from '../../diagnostics/line-index.js';
import { Reporter } from '../../diagnostics/reporter.js';
import type { CompilerHost } from '../../host.js';
import { MAX_TEXT_BYTES, tooLargeMessage } from '../../source/normalize-text.js';

export type FileCheck =
  { status: 'file'; size: number } | { status: 'missing' } | { status: 'refused'; kind: 'directory' | 'special' | 'too-large'; size: number };

/**
 * Whether a file named by plugin.json may be read, decided from the host's `stat` (which
 * follows symbolic links) before any read: only a regular file of at most MAX_TEXT_BYTES.
 * A FIFO would block the read forever and a device such as /dev/zero never ends, so both
 * are refused here, as discovery, resources and code modules refuse non-regular files; a
 * larger file could never be decoded as text, so it is refused without reading it.
 * `missing` (no such file, or a stat that failed) is left to the reader to report.
 */
export function checkRegularFile(host: CompilerHost, file: string, limit: number = MAX_TEXT_BYTES): FileCheck {
  let stat: ReturnType<CompilerHost['stat']>;
  try {
    stat = host.stat(file);
  } catch {
    stat = undefined;
  }
  if (stat === undefined) return { status: 'missing' };
  if (stat.kind === 'directory') return { status: 'refused', kind: 'directory', size: stat.size };
  if (stat.kind !== 'file') return { status: 'refused', kind: 'special', size: stat.size };
  if (stat.size > limit) return { status: 'refused', kind: 'too-large', size: stat.size };
  return { status: 'file', size: stat.size };
}

/** "Unexpected …" phrase for a refused file: `what` names it (e.g. "`dep/plugin.json`"). */
export function refusedFileMessage(check: Extract<FileCheck, { status: 'refused' }>, what: string, expected: string, limit: number = MAX_TEXT_BYTES): string {
  if (check.kind === 'too-large') return `Unexpected file of ${check.size} bytes ${what}, expected ${expected} of at most ${limit} bytes`;
  const kind = check.kind === 'directory' ? 'directory' : 'FIFO, device or other special file';
  return `Unexpected ${kind} (not a regular file) ${what}, expected ${expected}`;
}

/**
 * The build's own plugin.json, checked before it is read (an imported one is refused at its
 * import, BP2094): a FIFO or device is BP9001, a file too large to be text BP2002 (what the
 * manifest reader reports after reading one). Missing files and directories are left to the
 * read, which reports them as before.
 */
export function refuseManifestFile(host: CompilerHost, file: string): Diagnostic[] | undefined {
  const check = checkRegularFile(host, file);
  if (check.status !== 'refused' || check.kind === 'directory') return undefined;
  const r = new Reporter(file, new LineIndex(''));
  if (check.kind === 'too-large') r.report('BP2002', { start: 0, end: 0 }, tooLargeMessage(check.size), { hint: 'plugin.json is a small JSON file' });
  else
    r.report('BP9001', { start: 0, end: 0 }, refusedFileMessage(check, 'as plugin.json', 'a regular file'), {
      hint: 'build a package whose plugin.json is a file, not a pipe, a device or a link to one',
    });
  return r.diagnostics;
}
