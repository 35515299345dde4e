import path from 'node:path';
import { createCompiler } from '../../packages/compiler/src/index.js';
import { loadBundle, type Bundle } from '../../packages/runtime/src/index.js';
import { ROOT } from './cli.js';

/** `fixtures/<fixture>` built and loaded; a fixture that does not build throws its diagnostics. */
export async function bundleOf(fixture: string): Promise<Bundle> {
  const built = createCompiler({}).build(path.join(ROOT, 'fixtures', fixture, 'plugin.json'));
  if (!built.ok || !built.bundle) throw new Error(`fixture ${fixture} does not build: ${JSON.stringify(built.diagnostics)}`);
  return loadBundle(built.bundle.bytes);
}
