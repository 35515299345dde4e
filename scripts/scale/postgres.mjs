// A throwaway PostgreSQL server on 127.0.0.1 for tests and `npm run e2e:scale` (CONTRACTS.md,
// "Services in tests and CI"): Debian's `postgresql` binaries, a fresh data directory in a
// temporary folder, a free port, trust authentication on loopback only. PostgreSQL refuses to
// run as root, so as root (CI) it runs as a dedicated system user created for it
// (`createPostgresUser`) that owns the data directory.
import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export const POSTGRES_USER = 'berrypack-postgres';

/** The folder of `initdb`/`pg_ctl`: `BERRYPACK_PG_BIN`, Debian's newest `/usr/lib/postgresql/N/bin`, or PATH. */
export function findPostgres() {
  const given = process.env.BERRYPACK_PG_BIN;
  if (given) return existsSync(path.join(given, 'pg_ctl')) ? given : undefined;
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const versions = readdirSync(debian)
      .filter((v) => /^\d+$/.test(v) && existsSync(path.join(debian, v, 'bin', 'pg_ctl')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions.length > 0) return path.join(debian, versions[0], 'bin');
  }
  const found = spawnSync('sh', ['-c', 'command -v pg_ctl'], { encoding: 'utf8' }).stdout.trim();
  return found ? path.dirname(found) : undefined;
}

/** As root: the system user PostgreSQL runs as (created once, no login, no home). */
export function createPostgresUser() {
  if (spawnSync('id', ['-u', POSTGRES_USER]).status === 0) return;
  const made = spawnSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', POSTGRES_USER], { encoding: 'utf8' });
  if (made.status !== 0 && spawnSync('id', ['-u', POSTGRES_USER]).status !== 0)
    throw new Error(`cannot create the user ${POSTGRES_USER} for PostgreSQL: ${made.stderr}`);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts a server; resolves to `{url, port, dir, stop()}`. `url` names the database `berrypack`
 * (created) and user `postgres`. `stop()` stops the server (fast shutdown) and removes the folder.
 */
export async function startPostgres(bin = findPostgres()) {
  if (!bin) throw new Error('no PostgreSQL found (apt-get install postgresql, or set BERRYPACK_PG_BIN)');
  const root = process.getuid?.() === 0;
  // As root, a folder the PostgreSQL user can reach: a test runner's private TMPDIR (mode 0700,
  // owned by root) is not.
  const dir = mkdtempSync(path.join(root ? '/tmp' : os.tmpdir(), 'berrypack-pg-'));
  const data = path.join(dir, 'data');
  const asOwner = (command, args) => {
    const run = root
      ? spawnSync('runuser', ['-u', POSTGRES_USER, '--', command, ...args], { encoding: 'utf8' })
      : spawnSync(command, args, { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`${path.basename(command)} ${args.join(' ')} failed: ${run.stderr || run.stdout}`);
    return run.stdout;
  };
  try {
    if (root) {
      createPostgresUser();
      const uid = Number(spawnSync('id', ['-u', POSTGRES_USER], { encoding: 'utf8' }).stdout.trim());
      const gid = Number(spawnSync('id', ['-g', POSTGRES_USER], { encoding: 'utf8' }).stdout.trim());
      chownSync(dir, uid, gid);
    }
    asOwner(path.join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync', '--locale=C']);
    const port = await freePort();
    // Loopback only; the socket in the temporary folder, not /var/run (which belongs to the system's server).
    const options = `-h 127.0.0.1 -p ${port} -k ${dir} -c fsync=off -c max_connections=200`;
    asOwner(path.join(bin, 'pg_ctl'), ['-D', data, '-o', options, '-l', path.join(dir, 'server.log'), '-w', '-t', '60', 'start']);
    const stop = () => {
      try {
        asOwner(path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    };
    try {
      asOwner(path.join(bin, 'psql'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', 'postgres', '-c', 'CREATE DATABASE berrypack']);
    } catch (error) {
      stop();
      throw error;
    }
    return { url: `postgres://postgres@127.0.0.1:${port}/berrypack`, port, dir, stop };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
