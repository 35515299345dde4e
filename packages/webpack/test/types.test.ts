import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

function tsc(project: string): string {
  const bin = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const result = spawnSync(process.execPath, [bin, '--noEmit', '-p', fileURLToPath(new URL(project, import.meta.url))], { encoding: 'utf8', timeout: 60_000 });
  return result.stdout + result.stderr + (result.status === 0 ? '' : `exit ${result.status}`);
}

describe('@berrypack/webpack types', () => {
  it('types the ?berrypack imports (@berrypack/webpack/client, tsc with resolveJsonModule)', () => {
    expect(tsc('./types/tsconfig.json')).toBe('');
  });
  it('gives a plugin that webpack’s and Rspack’s configuration types accept', () => {
    expect(tsc('./types/tsconfig.configs.json')).toBe('');
  });
});
