import { findPostgres, startPostgres, type PostgresServer } from '../../scripts/scale/postgres.mjs';

export { startPostgres, type PostgresServer };

/** CONTRACTS.md: skip with a printed notice without PostgreSQL, fail under CI. */
export function postgresOrSkip(suite: string): string | undefined {
  const found = findPostgres();
  if (!found) {
    if (process.env.CI) throw new Error(`${suite}: PostgreSQL is required under CI (install Debian's \`postgresql\`; .ci/run does)`);
    console.warn(`[skip] ${suite}: no PostgreSQL found (apt-get install postgresql, or set BERRYPACK_PG_BIN)`);
  }
  return found;
}
