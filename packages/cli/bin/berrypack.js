#!/usr/bin/env node
// Committed shim: npm links a bin only when its file exists at install time, so the bin
// cannot point into dist/ (built by `prepare` after linking). See CONTRACTS.md.
// A one-shot build keeps nearly all it allocates, so a young generation grown to V8's 16 MB
// semi-spaces only adds fresh pages for the kernel to fault in (system CPU) and more to copy:
// such a build keeps the semi-spaces at their initial 1 MB. V8 resets a factor below 2 whenever
// it sets up a heap (so not on the command line, and a worker thread's start undoes it: not with
// --parallel); measured on Node 20's V8 only (docs/performance.md, round eight, wt-sys).
const [command, ...rest] = process.argv.slice(2);
const building = command === 'build';
const parallel = building && rest.includes('--parallel');
if (building && !parallel && !rest.includes('--watch') && process.versions.node.startsWith('20.')) {
  process.getBuiltinModule?.('node:v8').setFlagsFromString('--semi-space-growth-factor=1');
}
// `build --parallel` starts its second thread first, so it works while this one loads the CLI (early-build.ts).
const early = parallel
  ? import('../dist/early-build.js').then(
      (m) => m.startEarlyBuild(rest),
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
        if (building && process.stdout.writableLength === 0 && process.stderr.writableLength === 0) process.exit(code);
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
