import { mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * vitest's global setup: every test process (workers, the CLI children they spawn) gets a
 * temporary directory of this run as TMPDIR, and at the end of the run anything a test left in
 * it fails the run, named, before the directory is removed. Tests remove what they create (the
 * helpers in temp.ts do it after each file).
 */
export default function setup(): () => void {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'berrypack-test-run-')));
  process.env['TMPDIR'] = root;
  return () => {
    let left: string[] = [];
    try {
      left = readdirSync(root);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
    if (left.length === 0) return;
    // A thrown error here is printed but leaves vitest's exit code at 0.
    console.error(`\nFAIL the tests left ${left.length} temporary folder(s) behind: ${left.sort().slice(0, 20).join(', ')}`);
    process.exitCode = 1;
  };
}
