// Everything that differs between SQLite and PostgreSQL lives here; the domain never asks which.
import {
  Kysely,
  PostgresDialect,
  SqliteDialect,
  SqliteDriver,
  CompiledQuery,
  sql,
  type DatabaseConnection,
  type Driver,
  type SelectQueryBuilder,
} from 'kysely';
import Database from 'better-sqlite3';
import pg from 'pg';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DB } from './schema.ts';

export type DialectKind = 'sqlite' | 'postgres';

/** SQLite's default deferred BEGIN can fail with SQLITE_BUSY when a reader later writes and another
 * process (the CLI beside a running gateway) holds the lock; IMMEDIATE takes the write lock up front
 * so busy_timeout can wait for it. */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: ConstructorParameters<typeof SqliteDialect>[0];
  constructor(config: ConstructorParameters<typeof SqliteDialect>[0]) {
    super(config);
    this.#config = config;
  }
  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#config);
  }
}

// int8 (bigint) columns hold millisecond timestamps and counters, never amounts (those are text).
pg.types.setTypeParser(20, (v: string) => Number(v));

export interface Storage {
  db: Kysely<DB>;
  kind: DialectKind;
  /** Adds FOR UPDATE on PostgreSQL; on SQLite the transaction already holds the write lock. */
  forUpdate<QB extends SelectQueryBuilder<any, any, any>>(qb: QB): QB;
  /** Adds FOR UPDATE SKIP LOCKED on PostgreSQL (job claiming by several workers). */
  skipLocked<QB extends SelectQueryBuilder<any, any, any>>(qb: QB): QB;
  /** Try to take a session-wide named lock (PG advisory lock); SQLite: always true (single worker process). */
  tryAdvisoryLock(name: string): Promise<boolean>;
  isUniqueViolation(err: unknown): boolean;
  close(): Promise<void>;
}

export interface StorageOptions {
  databaseUrl?: string;
  sqlitePath?: string;
}

export function openStorage(opts: StorageOptions): Storage {
  if (opts.databaseUrl) return openPostgres(opts.databaseUrl);
  return openSqlite(opts.sqlitePath ?? ':memory:');
}

function openSqlite(path: string): Storage {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const raw = new Database(path);
  raw.pragma('journal_mode = WAL');
  raw.pragma('synchronous = FULL');
  raw.pragma('busy_timeout = 10000');
  raw.pragma('foreign_keys = ON');
  const db = new Kysely<DB>({ dialect: new ImmediateSqliteDialect({ database: raw }) });
  return {
    db,
    kind: 'sqlite',
    forUpdate: (qb) => qb,
    skipLocked: (qb) => qb,
    tryAdvisoryLock: async () => true,
    isUniqueViolation: (err) =>
      typeof err === 'object' && err !== null && 'code' in err &&
      String((err as { code: unknown }).code).startsWith('SQLITE_CONSTRAINT'),
    close: () => db.destroy(),
  };
}

function openPostgres(url: string): Storage {
  const pool = new pg.Pool({ connectionString: url, max: Number(process.env.SATCHEL_PG_POOL ?? 20) });
  // A pooled client that errors while idle must not crash the process.
  pool.on('error', () => {});
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  let lockClient: pg.PoolClient | null = null;
  return {
    db,
    kind: 'postgres',
    forUpdate: (qb) => qb.forUpdate() as typeof qb,
    skipLocked: (qb) => qb.forUpdate().skipLocked() as typeof qb,
    async tryAdvisoryLock(name: string) {
      lockClient ??= await pool.connect();
      const r = await lockClient.query<{ ok: boolean }>('select pg_try_advisory_lock(hashtext($1)) as ok', [name]);
      return r.rows[0]?.ok === true;
    },
    isUniqueViolation: (err) =>
      typeof err === 'object' && err !== null && 'code' in err && (err as { code: unknown }).code === '23505',
    async close() {
      lockClient?.release();
      lockClient = null;
      await db.destroy();
    },
  };
}

export { sql };
