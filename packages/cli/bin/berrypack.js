#!/usr/bin/env node
// Committed shim: npm links a bin only when its file exists at install time, so the bin
// cannot point into dist/ (built by `prepare` after linking). See CONTRACTS.md.
import('../dist/index.js').then(
  (cli) => cli.run(process.argv.slice(2)).then((code) => { process.exitCode = code; }),
  (error) => {
    process.stderr.write(`berrypack: cannot load the CLI (${error && error.code ? error.code : error}); run \`npm run build\`\n`);
    process.exitCode = 2;
  },
);
