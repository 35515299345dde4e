export const POSTGRES_USER: string;
/** The folder of `initdb`/`pg_ctl`, or undefined when PostgreSQL is not installed. */
export function findPostgres(): string | undefined;
export function createPostgresUser(): void;
export interface PostgresServer {
  /** `postgres://postgres@127.0.0.1:PORT/berrypack` */
  url: string;
  port: number;
  dir: string;
  stop(): void;
}
export function startPostgres(bin?: string): Promise<PostgresServer>;
