import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** Where the compliance suites should be: `BERRYPACK_CONFORMANCE_DIR`, else `../shared/conformance` beside the repository. */
function conformanceCandidate(): string {
  const configured = process.env['BERRYPACK_CONFORMANCE_DIR'];
  return configured !== undefined && configured !== '' ? path.resolve(configured) : path.resolve(repoRoot, '../shared/conformance');
}

// Same reading as vitest's own CI detection: `CI=false` is an explicit "not CI".
function inCI(): boolean {
  const ci = process.env['CI'];
  return ci !== undefined && ci !== '' && ci !== 'false';
}

/** The conformance directory, or undefined when it does not exist. Suites are read in place, never copied. */
export function conformanceDir(): string | undefined {
  const dir = conformanceCandidate();
  return existsSync(dir) ? dir : undefined;
}

/**
 * The directory of one suite (`jsonpath`, `yaml`, …). When it is missing, CI must not pass
 * silently, so this throws there; on a developer machine it warns and returns undefined,
 * and the caller skips.
 */
export function requireConformance(sub: string): string | undefined {
  const dir = path.join(conformanceCandidate(), sub);
  if (existsSync(dir)) return dir;
  const message = `Conformance suite \`${sub}\` not found at ${dir} (set BERRYPACK_CONFORMANCE_DIR to its parent directory)`;
  if (inCI()) throw new Error(`${message}; CI requires it`);
  console.warn(`${message}; skipping its tests`);
  return undefined;
}
