#!/usr/bin/env node
// Committed shim: npm links a bin only when its file exists at install time, so the bin
// cannot point into dist/ (built by `prepare` after linking). See CONTRACTS.md.
// `build --parallel` starts its second thread first, so it works while this one loads the CLI (early-build.ts).
const early =
  process.argv[2] === 'build' && process.argv.includes('--parallel')
    ? import('../dist/early-build.js').then(
        (m) => m.startEarlyBuild(process.argv.slice(3)),
        () => {},
      )
    : Promise.resolve();
early
  .then(() => import('../dist/index.js'))
  .then(
    (cli) =>
      cli.run(process.argv.slice(2)).then((code) => {
        process.exitCode = code;
        // A finished build has nothing left to do but tear down: process.exit skips freeing V8's
        // heap page by page and the collections that run meanwhile (docs/performance.md, round
        // eight, wt-sys). Only once stdout and stderr hold nothing unwritten, so no output is cut.
        if (process.argv[2] === 'build' && process.stdout.writableLength === 0 && process.stderr.writableLength === 0) process.exit(code);
      }),
    (error) => {
      const reason = error && error.code ? error.code : String(error);
      // Installed from the registry, dist/ is part of the package; only a clone builds it.
      process.stderr.write(
        `berrypack: cannot load the CLI (${reason}): the berrypack package is incomplete; reinstall it (in a clone of the repository: npm run build)\n`,
      );
      process.exitCode = 2;
    },
  );
