// Starts turborepo-remote-cache (an existing server from the npm registry, a root
// devDependency) on loopback with local storage, as a child process: the real server a team
// would deploy, not an imitation of turbo's cache API.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const CLI = path.join(path.dirname(require.resolve('turborepo-remote-cache/package.json')), 'dist/cli.js');
const LISTENING = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/;

/**
 * Resolves with the server's URL once it listens on 127.0.0.1 at a port the OS chose;
 * artifacts land in `storeDir/<team>/<hash>`.
 */
export async function startCacheServer({ storeDir, token, timeoutMs = 60_000 }) {
  // A clean environment: the server reads S3_*, GCS_*, AUTH_MODE… from it, and none of a
  // developer's settings should change where the test's artifacts go.
  const child = spawn(process.execPath, [CLI], {
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: '0',
      TURBO_TOKEN: token,
      STORAGE_PROVIDER: 'local',
      STORAGE_PATH: storeDir,
      STORAGE_PATH_USE_TMP_FOLDER: 'false',
      LOG_LEVEL: 'info',
      // Only a switch for this server: it then keeps each artifact's signature tag (turbo's
      // HMAC, made and checked by the clients) and serves it back. It never needs the real key.
      TURBO_REMOTE_CACHE_SIGNATURE_KEY: 'keep-tags',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  const exited = once(child, 'exit');
  const url = await new Promise((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => fail(`did not listen within ${timeoutMs} ms`), timeoutMs);
    const fail = (why) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`turborepo-remote-cache ${why}:\n${log}`));
    };
    // Both pipes are read for the server's whole life, so its logging never blocks it.
    const onData = (chunk) => {
      log += chunk;
      const m = LISTENING.exec(log);
      if (m && !settled) {
        settled = true;
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stdout.setEncoding('utf8').on('data', onData);
    child.stderr.setEncoding('utf8').on('data', onData);
    child.once('exit', (code, signal) => fail(`exited (${signal ?? code}) before listening`));
  });
  return {
    url,
    log: () => log,
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      // The server drains for up to 10 s on SIGTERM (close-with-grace); it has nothing to drain.
      const force = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(force);
    },
  };
}
