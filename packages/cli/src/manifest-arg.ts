import { statSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from './usage-error.js';

/** A plugin.json, or a directory holding one. */
export function resolveManifestArg(cwd: string, arg: string): string {
  const target = path.resolve(cwd, arg);
  let stat;
  try {
    stat = statSync(target);
  } catch {
    throw new UsageError(`Unexpected MANIFEST ${arg}: no such file or directory`);
  }
  if (stat.isDirectory()) {
    const inside = path.join(target, 'plugin.json');
    try {
      if (statSync(inside).isFile()) return inside;
    } catch {
      // fall through to the usage error
    }
    throw new UsageError(`Unexpected MANIFEST ${arg}: the directory holds no plugin.json`);
  }
  if (path.basename(target) !== 'plugin.json') throw new UsageError(`Unexpected MANIFEST ${arg}, expected a plugin.json or a directory holding one`);
  return target;
}
