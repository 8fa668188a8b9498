// SQLite behind the Storage interface: prepared statements kept, IMMEDIATE transactions, group commit.
import { Kysely, SqliteDialect, CompiledQuery, sql, type DatabaseConnection, type QueryResult, type Driver, type Transaction } from 'kysely';
import Database from 'better-sqlite3';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DB } from './schema.ts';
import type { Storage } from './storage.ts';
import { LocalLocks } from './local-locks.ts';
import { TransactionDriver } from './transaction-driver.ts';
import { registerDirectRunner } from './statement.ts';

/**
 * Kysely's SQLite driver prepares every statement anew; this one keeps prepared statements by SQL
 * text (the hot paths repeat the same few), and begins transactions IMMEDIATE: the default
 * deferred BEGIN can fail with SQLITE_BUSY when a reader later writes while another process (the
 * CLI beside a running gateway) holds the lock, whereas IMMEDIATE waits for it (busy_timeout).
 */
interface Prepared {
  stmt: Database.Statement;
  /** A statement that only reads (no RETURNING write): it may join a shared read transaction. */
  readOnly: boolean;
  /** For a statement that returns rows: builds a row object from the row's values, in order. */
  row: ((values: unknown[]) => Record<string, unknown>) | null;
}

/**
 * A row object with the result's column names, built by a function made once per statement: a
 * 20-column row comes out of better-sqlite3 as values about a third faster than as an object, and
 * an object literal of fixed shape is cheap to make. Later duplicate names win, as in an object row.
 */
function rowBuilder(columns: ReadonlyArray<{ name: string }>): (values: unknown[]) => Record<string, unknown> {
  const fields = columns.map((c, i) => `${JSON.stringify(c.name)}: v[${i}]`).join(', ');
  return new Function('v', `return { ${fields} };`) as (values: unknown[]) => Record<string, unknown>;
}

class CachedStatementsConnection implements DatabaseConnection {
  private readonly statements = new Map<string, Prepared>();
  constructor(private readonly db: Database.Database) {}

  prepare(text: string): Prepared {
    let p = this.statements.get(text);
    if (!p) {
      const stmt = this.db.prepare(text);
      p = { stmt, readOnly: stmt.readonly && stmt.reader, row: stmt.reader ? rowBuilder(stmt.columns()) : null };
      if (p.row) stmt.raw(true);
      if (this.statements.size >= 500) this.statements.clear();
      this.statements.set(text, p);
    }
    return p;
  }

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    return this.run(this.prepare(compiled.sql), compiled.parameters);
  }

  /** Runs a statement prepared by `prepare` (or apart from the cache) with these values. */
  run<R>(prepared: Prepared, parameters: readonly unknown[]): QueryResult<R> {
    const { stmt, row } = prepared;
    const params = parameters as unknown[];
    if (row) return { rows: (stmt.all(params) as unknown[][]).map(row) as R[] };
    const { changes, lastInsertRowid } = stmt.run(params);
    return {
      numAffectedRows: BigInt(changes),
      insertId: lastInsertRowid === undefined || lastInsertRowid === null ? undefined : BigInt(lastInsertRowid),
      rows: [],
    };
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('Streaming is not used by Satchel');
  }
}

interface PendingRead {
  prepared: Prepared;
  params: readonly unknown[];
  resolve: (r: QueryResult<unknown>) => void;
  reject: (e: unknown) => void;
}

class SatchelSqliteDriver extends TransactionDriver {
  protected readonly beginStatement = 'begin immediate';
  private readonly connection: CachedStatementsConnection;
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly db: Database.Database) {
    super();
    this.connection = new CachedStatementsConnection(db);
    // Prepared apart from the statement cache, which a burst of new statements may clear.
    this.begin = { stmt: db.prepare('begin'), readOnly: false, row: null };
    this.commit = { stmt: db.prepare('commit'), readOnly: false, row: null };
    this.rollback = { stmt: db.prepare('rollback'), readOnly: false, row: null };
  }
  /** Callers holding the connection or waiting for it. */
  private holders = 0;
  /** Reads waiting for the end of this turn of the event loop (see `runDirect`). */
  private reads: PendingRead[] = [];

  /**
   * Runs a statement without Kysely's connection hand-over (several promise turns, more than a
   * primary-key read itself), or answers null for the normal path.
   *
   * A read waits for the end of the current turn of the event loop and runs with the other reads
   * that arrived meanwhile, back to back in one read transaction: under load, the requests read in
   * one I/O phase each take one lock instead of their own, and the same code runs for all of them
   * while it is warm. This more than halves a read's cost inside a busy server. A batch starts after
   * its reads were asked, so it sees every write committed before them, in this process or another.
   *
   * Other statements run at once when no one holds or waits for the connection (a caller in a
   * transaction would otherwise see, or be seen in, another's uncommitted writes).
   */
  readonly runDirect = (sql: string, params: readonly unknown[]): Promise<QueryResult<unknown>> | null => {
    const prepared = this.connection.prepare(sql);
    if (prepared.readOnly) {
      return new Promise((resolve, reject) => {
        if (this.reads.push({ prepared, params, resolve, reject }) === 1) setImmediate(this.flushReads);
      });
    }
    return this.holders === 0 ? Promise.resolve(this.connection.run(prepared, params)) : null;
  };

  private readonly flushReads = (): void => {
    const reads = this.reads;
    this.reads = [];
    // A transaction holds the connection, or callers wait for it: the batch takes its turn.
    if (this.holders > 0) {
      void this.acquireConnection().then(() => {
        try {
          this.runReads(reads);
        } finally {
          void this.releaseConnection();
        }
      });
      return;
    }
    this.runReads(reads);
  };

  private runReads(reads: PendingRead[]): void {
    let shared = false;
    if (reads.length > 1) {
      try {
        this.connection.run(this.begin, []);
        shared = true;
      } catch {
        /* each read in its own transaction then */
      }
    }
    try {
      for (const r of reads) {
        try {
          r.resolve(this.connection.run(r.prepared, r.params));
        } catch (e) {
          r.reject(e);
        }
      }
    } finally {
      if (shared) this.endRead();
    }
  }

  /** Ends a shared read transaction; this runs outside any caller's promise, so it must not throw. */
  private endRead(): void {
    try {
      this.connection.run(this.commit, []);
    } catch {
      try {
        this.connection.run(this.rollback, []);
      } catch {
        /* the connection is closed: nothing is left open */
      }
    }
  }
  private readonly begin: Prepared;
  private readonly commit: Prepared;
  private readonly rollback: Prepared;

  async acquireConnection(): Promise<DatabaseConnection> {
    // SQLite has one connection: callers take turns (a transaction keeps it until it ends).
    this.holders++;
    let release!: () => void;
    const previous = this.queue;
    this.queue = new Promise<void>((r) => (release = r));
    await previous;
    this.releasers.push(release);
    return this.connection;
  }
  private readonly releasers: Array<() => void> = [];
  async releaseConnection(): Promise<void> {
    this.holders--;
    this.releasers.shift()?.();
  }
  async destroy(): Promise<void> {
    this.db.close();
  }
}

class SatchelSqliteDialect extends SqliteDialect {
  readonly driver: SatchelSqliteDriver;
  constructor(raw: Database.Database) {
    super({ database: raw });
    this.driver = new SatchelSqliteDriver(raw);
  }
  override createDriver(): Driver {
    return this.driver;
  }
}

interface Job {
  fn: (trx: Transaction<DB>) => Promise<unknown>;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

const SAVEPOINT = CompiledQuery.raw('savepoint job');
const RELEASE = CompiledQuery.raw('release job');
const ROLLBACK_TO = CompiledQuery.raw('rollback to job');

/** Group commit for SQLite's single writer (see Storage.write). */
class GroupCommit {
  private queue: Job[] = [];
  private running = false;
  constructor(private readonly db: Kysely<DB>, private readonly maxBatch = 64) {}

  run<T>(fn: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, resolve: resolve as (v: unknown) => void, reject });
      if (!this.running) {
        // Start on the next turn of the event loop, not now: a commit blocks the thread (SQLite is
        // synchronous), so the requests that arrived meanwhile are read in one I/O phase and each
        // reaches here before the batch starts. Started at once, every batch would hold one caller.
        this.running = true;
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.maxBatch);
        if (batch.length === 1) {
          const [job] = batch as [Job];
          await this.db.transaction().execute(job.fn).then(job.resolve, job.reject);
          continue;
        }
        const results: Array<{ ok: boolean; value: unknown }> = [];
        try {
          const trx = await this.db.startTransaction().execute();
          try {
            // Each job inside its own savepoint, so that one job's failure undoes only its own
            // writes. Plain statements: Kysely's savepoint() builds a transaction object per job.
            for (const job of batch) {
              await trx.executeQuery(SAVEPOINT);
              try {
                const value = await job.fn(trx);
                await trx.executeQuery(RELEASE);
                results.push({ ok: true, value });
              } catch (e) {
                await trx.executeQuery(ROLLBACK_TO);
                await trx.executeQuery(RELEASE);
                results.push({ ok: false, value: e });
              }
            }
            await trx.commit().execute();
          } catch (e) {
            await trx.rollback().execute().catch(() => {});
            throw e;
          }
        } catch {
          // The shared transaction itself failed: give each caller its own attempt.
          for (const job of batch) await this.db.transaction().execute(job.fn).then(job.resolve, job.reject);
          continue;
        }
        batch.forEach((job, i) => (results[i]!.ok ? job.resolve(results[i]!.value) : job.reject(results[i]!.value)));
      }
    } finally {
      this.running = false;
    }
  }
}

/**
 * The database holds API keys as the signing scheme needs them (md5 over body + key), so it is a
 * secret: its folder is created 0700 and its files 0600. SQLite gives the -wal and -shm files the
 * mode of the database file, so creating that file 0600 before SQLite does covers them; files left
 * wider by an older version are narrowed.
 */
function secureSqliteFiles(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  closeSync(openSync(path, 'a', 0o600));
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    if (existsSync(file) && (statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  }
}

export function openSqlite(path: string): Storage {
  if (path !== ':memory:') secureSqliteFiles(path);
  const raw = new Database(path);
  raw.pragma('journal_mode = WAL');
  raw.pragma('synchronous = FULL');
  raw.pragma('busy_timeout = 10000');
  raw.pragma('foreign_keys = ON');
  // Table statistics for the query planner, as SQLite recommends for long-lived connections: on
  // open, then hourly. Without them it can prefer an index that makes a large outbox claim sort
  // every pending row (migration 015).
  raw.pragma('optimize = 0x10002');
  const optimize = setInterval(() => {
    try {
      raw.pragma('optimize');
    } catch {
      /* busy or closed: the next hour's run */
    }
  }, 3_600_000);
  optimize.unref();
  const dialect = new SatchelSqliteDialect(raw);
  const db = new Kysely<DB>({ dialect });
  registerDirectRunner(db, dialect.driver.runDirect);
  const group = new GroupCommit(db);
  const local = new LocalLocks();
  return {
    db,
    kind: 'sqlite',
    write: (fn) => group.run(fn),
    relaxedWrite: (fn) =>
      // One connection for the three steps, so that no other transaction commits in between.
      db.connection().execute(async (conn) => {
        await sql`pragma synchronous = normal`.execute(conn);
        try {
          return await conn.transaction().execute(fn);
        } finally {
          await sql`pragma synchronous = full`.execute(conn);
        }
      }),
    forUpdate: (qb) => qb,
    skipLocked: (qb) => qb,
    transactionLock: async () => {},
    tryAdvisoryLock: async () => true,
    async withLock(name, _waitMs, fn) {
      const release = await local.acquire(name);
      try {
        return { value: await fn() };
      } finally {
        release();
      }
    },
    poolUsage: () => ({ total: 1, idle: 1, waiting: 0, max: 1 }),
    isUniqueViolation: (err) =>
      typeof err === 'object' && err !== null && 'code' in err &&
      String((err as { code: unknown }).code).startsWith('SQLITE_CONSTRAINT'),
    close: () => {
      clearInterval(optimize);
      return db.destroy();
    },
  };
}
