import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

describe('@berrypack/rollup/client', () => {
  it('types the ?berrypack imports (tsc with resolveJsonModule, as in Vite templates)', () => {
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    const project = fileURLToPath(new URL('./types/tsconfig.json', import.meta.url));
    const result = spawnSync(process.execPath, [tsc, '--noEmit', '-p', project], { encoding: 'utf8', timeout: 60_000 });
    expect(result.stdout + result.stderr).toBe('');
    expect(result.status).toBe(0);
  });
});
