// What the domain is given to reach the database, whichever of SQLite or PostgreSQL is behind it.
import type { Kysely, SelectQueryBuilder, Transaction } from 'kysely';
import type { DB } from './schema.ts';

export type DialectKind = 'sqlite' | 'postgres';

export interface Storage {
  db: Kysely<DB>;
  kind: DialectKind;
  /** Adds FOR UPDATE on PostgreSQL; on SQLite the transaction already holds the write lock. */
  forUpdate<QB extends SelectQueryBuilder<any, any, any>>(qb: QB): QB;
  /** Adds FOR UPDATE SKIP LOCKED on PostgreSQL (job claiming by several workers). */
  skipLocked<QB extends SelectQueryBuilder<any, any, any>>(qb: QB): QB;
  /**
   * Takes a named lock held until `trx` ends (PostgreSQL: a transaction-level advisory lock;
   * SQLite: nothing to do, the write transaction already excludes every other writer). For a check
   * over many rows that must not race a concurrent writer doing the same check.
   */
  transactionLock(trx: Transaction<DB>, name: string): Promise<void>;
  /** Try to take a session-wide named lock (PG advisory lock); SQLite: always true (single worker process). */
  tryAdvisoryLock(name: string): Promise<boolean>;
  /**
   * Runs `fn` while holding a named lock for the whole cluster (PostgreSQL: an advisory lock, and a
   * mutex inside this process; SQLite: the mutex alone, since one process runs the workers). Waits
   * up to `waitMs` for it; null when it could not be had (`fn` did not run).
   */
  withLock<T>(name: string, waitMs: number, fn: () => Promise<T>): Promise<{ value: T } | null>;
  /** Connections in use and waiting (metrics); zeros on SQLite. */
  poolUsage(): PoolUsage;
  isUniqueViolation(err: unknown): boolean;
  /**
   * Runs `fn` in a write transaction. On SQLite, concurrent callers share one transaction (each in
   * its own savepoint) so that one durable commit serves many of them (group commit); a failing
   * caller rolls back only its own savepoint. On PostgreSQL each caller has its own transaction.
   */
  write<T>(fn: (trx: Transaction<DB>) => Promise<T>): Promise<T>;
  /**
   * Runs `fn` in a transaction whose commit does not wait for the disk (SQLite: synchronous=NORMAL
   * for that commit; PostgreSQL: synchronous_commit off). It survives the process dying; a power
   * cut or an operating-system crash may lose it, together with whatever was committed after it
   * the same way, never with anything committed before or durably after it (the log is written in
   * order). Only for records whose loss makes safe work happen again: a webhook attempt, whose
   * webhook is then sent again under the same delivery id.
   */
  relaxedWrite<T>(fn: (trx: Transaction<DB>) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface PoolUsage {
  total: number;
  idle: number;
  waiting: number;
  max: number;
}
