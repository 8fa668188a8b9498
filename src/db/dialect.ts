// Everything that differs between SQLite and PostgreSQL lives below this file; the domain never asks which.
import { sql } from 'kysely';
import type { Storage } from './storage.ts';
import { openPostgres } from './postgres.ts';
import { openSqlite } from './sqlite.ts';

export type { DialectKind, PoolUsage, Storage } from './storage.ts';

export interface StorageOptions {
  databaseUrl?: string;
  sqlitePath?: string;
  /** Where lost database connections are reported (they never end the process). */
  log?: (msg: string, err: unknown) => void;
}

export function openStorage(opts: StorageOptions): Storage {
  if (opts.databaseUrl) return openPostgres(opts.databaseUrl, opts.log);
  return openSqlite(opts.sqlitePath ?? ':memory:');
}

export { sql };
