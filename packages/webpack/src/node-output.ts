import nodeFs from 'node:fs';
import type { HostCompiler } from './host.js';

/**
 * Whether the host writes its output to disk through Node's own file system: webpack's default
 * (graceful-fs, a copy of `node:fs` whose `close` it patched in place, so both share that
 * function) or Rspack's (`node:fs` itself). Not an in-memory one such as
 * webpack-dev-middleware's, which keeps the very buffers it is given and has no files to rename.
 */
export function writesToNodeFs(host: HostCompiler): boolean {
  const output = host.outputFileSystem as { close?: unknown } | undefined;
  return output === nodeFs || (output !== undefined && output === host.intermediateFileSystem && output.close === nodeFs.close);
}
