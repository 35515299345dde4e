#!/usr/bin/env node
// Committed shim: npm links a bin only when its file exists at install time, so the bin
// cannot point into dist/ (built by `prepare` after linking). See CONTRACTS.md.
// It loads dist/bundle/berrypack.js (the CLI and compiler bundled, scripts/bundle.mjs) when that
// is at least as new as dist/index.js, so a `tsc --build` without the bundle step never runs stale code.
import { statSync } from 'node:fs';

const mtime = (name) => statSync(new URL(`../dist/${name}`, import.meta.url), { throwIfNoEntry: false })?.mtimeMs ?? -1;
const entry = mtime('bundle/berrypack.js') >= mtime('index.js') ? '../dist/bundle/berrypack.js' : '../dist/index.js';

import(entry).then(
  (cli) => cli.run(process.argv.slice(2)).then((code) => { process.exitCode = code; }),
  (error) => {
    process.stderr.write(`berrypack: cannot load the CLI (${error && error.code ? error.code : error}); run \`npm run build\`\n`);
    process.exitCode = 2;
  },
);
