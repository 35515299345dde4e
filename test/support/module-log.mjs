// Preloaded with `node --import` by test/startup.test.ts: appends the URL of every ES module the
// process loads, and at exit every CommonJS file, to the file named by BERRYPACK_MODULE_LOG.
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';

const log = process.env.BERRYPACK_MODULE_LOG;
if (log) {
  register(
    `data:text/javascript,${encodeURIComponent(
      `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  appendFileSync(${JSON.stringify(log)}, url + '\\n');
  return next(url, context);
}`,
    )}`,
  );
  const cache = createRequire(import.meta.url).cache;
  process.on('exit', () => appendFileSync(log, Object.keys(cache).join('\n') + '\n'));
}
