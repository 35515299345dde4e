import { readFileSync } from 'node:fs';
import path from 'node:path';
import { canonicalJson } from '@berrypack/compiler/bundle';
import { failure } from '../errors.js';
import { typeProblem } from './data-values.js';
import type { CompiledMethod } from '@berrypack/compiler/method-types';
import { sha256, writeAtomic } from './atomic-file.js';

type StateDeclaration = CompiledMethod['state'][string];

export interface StateSnapshot {
  value: unknown;
  /** Whether the value came from the declared default because the file does not exist. */
  fromDefault: boolean;
}

/**
 * A state's current value: its JSON file under the data folder, or the declared default when
 * the file does not exist, validated against the declared type. Failures carry `state-missing`
 * or `state-invalid` and say which file.
 */
export function readState(dataDir: string, name: string, declaration: StateDeclaration): StateSnapshot {
  const file = statePath(dataDir, declaration);
  let text: string | undefined;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    // ENOTDIR: a folder on the way is a file, so the state file does not exist either.
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR')
      throw failure('state-invalid', `Unexpected error reading state \`${name}\` from ${declaration.file}: ${(error as Error).message}`);
  }
  if (text === undefined) {
    if (Object.hasOwn(declaration, 'default')) return { value: declaration.default, fromDefault: true };
    throw failure(
      'state-missing',
      `Unexpected missing state \`${name}\`: ${declaration.file} does not exist in the data folder and the method declares no default`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (error) {
    throw failure('state-invalid', `Unexpected state \`${name}\` in ${declaration.file} that is not JSON (${(error as Error).message})`);
  }
  const problem = typeProblem(declaration, value, `state \`${name}\``);
  if (problem) throw failure('state-invalid', `Unexpected state in ${declaration.file}: ${problem}`);
  return { value, fromDefault: false };
}

/** A complete replacement, already validated, written atomically; returns the hash of the bytes. */
export function writeState(dataDir: string, declaration: StateDeclaration, value: unknown): string {
  const text = `${canonicalJson(value)}\n`;
  writeAtomic(statePath(dataDir, declaration), text);
  return sha256(text);
}

/** The compiler keeps `file` inside the data folder (MTH-5); this refuses a hand-made record that does not. */
function statePath(dataDir: string, declaration: StateDeclaration): string {
  const file = path.resolve(dataDir, ...declaration.file.split('/'));
  const relative = path.relative(path.resolve(dataDir), file);
  if (relative.startsWith('..') || path.isAbsolute(relative))
    throw failure('state-invalid', `Unexpected state file ${declaration.file} outside the data folder`);
  return file;
}
