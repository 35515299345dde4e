#!/usr/bin/env node
// `npm run demo`: checks the example package and the broken fixtures with the real CLI.
// Later steps (bundler builds, running an agent) join here as they land.
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
process.chdir(root);
const { run } = await import('../packages/cli/dist/index.js');

const say = (s) => process.stdout.write(`\n\x1b[1m${s}\x1b[22m\n`);

say('$ berrypack check fixtures/notebook/plugin.json');
const ok = await run(['check', 'fixtures/notebook/plugin.json']);
if (ok !== 0) {
  process.stderr.write('demo: the example package should check clean\n');
  process.exit(1);
}

const broken = path.join('fixtures', 'broken');
for (const name of readdirSync(broken).sort()) {
  const dir = path.join(broken, name);
  if (!statSync(dir).isDirectory()) continue;
  say(`$ berrypack check ${dir.split(path.sep).join('/')}   (expected to fail)`);
  const code = await run(['check', dir]);
  if (code !== 1) {
    process.stderr.write(`demo: ${dir} should fail the check (exit 1), got ${code}\n`);
    process.exit(1);
  }
}
say('demo finished: the example package is clean and every broken fixture was refused.');
