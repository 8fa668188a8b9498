// PostgreSQL storage that survives its server going away: every connection has an error listener
// (a pooled client emits 'error' while checked out too, and an unheard 'error' event ends the
// process), a failed connection is dropped rather than reused, and a query that failed because the
// database is unreachable throws DatabaseUnavailableError, which the HTTP layer answers with 503
// and the workers simply retry on their next round. Named locks (one chain scanner per network)
// live on a session of their own, outside the pool.
import { CompiledQuery, Kysely, PostgresAdapter, sql, PostgresIntrospector, PostgresQueryCompiler, type DatabaseConnection, type Dialect, type Driver, type QueryResult } from 'kysely';
import pg from 'pg';
import { DatabaseUnavailableError } from '../errors.ts';
import type { DB } from './schema.ts';
import type { PoolUsage, Storage } from './storage.ts';
import { LocalLocks } from './local-locks.ts';
import { TransactionDriver } from './transaction-driver.ts';

// int8 (bigint) columns hold millisecond timestamps and counters, never amounts (those are text).
pg.types.setTypeParser(20, (v: string) => Number(v));

/** SQLSTATE classes and codes that mean "the server or the connection is gone", not "the query is wrong". */
const UNAVAILABLE_CODES = new Set(['57P01', '57P02', '57P03', '53300', '58000', '58030']);
const NETWORK_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

function codeOf(err: unknown): string {
  return typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : '';
}

/** Clients whose connection failed (they emitted 'error' or 'end'): any error from them is an outage. */
const broken = new WeakSet<pg.ClientBase>();

/**
 * What node-postgres itself says when a connection ends under a query, before (or without) the
 * client's 'error' event: these errors carry no SQLSTATE, only a message.
 */
const CONNECTION_LOST = /^(Connection terminated|Client has encountered a connection error|Client was closed|timeout exceeded when trying to connect)/;

/** Turns an error that means "the database is unreachable" into DatabaseUnavailableError. */
export function classify(err: unknown, client: pg.ClientBase | null): unknown {
  if (err instanceof DatabaseUnavailableError) return err;
  const code = codeOf(err);
  const message = err instanceof Error ? err.message : '';
  if ((client && broken.has(client)) || code.startsWith('08') || UNAVAILABLE_CODES.has(code) || NETWORK_ERRNOS.has(code) || CONNECTION_LOST.test(message)) {
    return new DatabaseUnavailableError(err);
  }
  return err;
}

class PgConnection implements DatabaseConnection {
  constructor(readonly client: pg.PoolClient) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    try {
      const { command, rowCount, rows } = await this.client.query(compiled.sql, compiled.parameters as unknown[]);
      const counted = command === 'INSERT' || command === 'UPDATE' || command === 'DELETE' || command === 'MERGE';
      return { numAffectedRows: counted ? BigInt(rowCount ?? 0) : undefined, rows: (rows ?? []) as R[] };
    } catch (err) {
      throw classify(err, this.client);
    }
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('Streaming is not used by Satchel');
  }
}

class PgDriver extends TransactionDriver {
  protected readonly beginStatement = 'begin';
  private readonly connections = new WeakMap<pg.PoolClient, PgConnection>();
  constructor(private readonly pool: pg.Pool) {
    super();
  }
  async acquireConnection(): Promise<DatabaseConnection> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      // Refused, timed out, or the server is starting or shutting down: all mean "not now".
      throw new DatabaseUnavailableError(err);
    }
    let c = this.connections.get(client);
    if (!c) this.connections.set(client, (c = new PgConnection(client)));
    return c;
  }
  async releaseConnection(c: DatabaseConnection): Promise<void> {
    const client = (c as PgConnection).client;
    // A broken client goes away instead of back to the pool (pg-pool also checks, but only its own flag).
    client.release(broken.has(client) ? true : undefined);
  }
  async destroy(): Promise<void> {
    await this.pool.end();
  }
}

class PgDialect implements Dialect {
  constructor(private readonly pool: pg.Pool) {}
  createDriver(): Driver {
    return new PgDriver(this.pool);
  }
  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }
  createAdapter() {
    return new PostgresAdapter();
  }
  createIntrospector(db: Kysely<any>) {
    return new PostgresIntrospector(db);
  }
}

export function openPostgres(url: string, log: (msg: string, err: unknown) => void = () => {}): Storage {
  const pool = new pg.Pool({
    connectionString: url,
    max: Number(process.env.SATCHEL_PG_POOL ?? 20),
    // A database that does not answer must fail the request, not hang it.
    connectionTimeoutMillis: Number(process.env.SATCHEL_PG_CONNECT_TIMEOUT_MS ?? 5000),
    idleTimeoutMillis: 30_000,
    keepAlive: true,
  });
  const watch = (client: pg.ClientBase) => {
    client.on('error', (err) => {
      broken.add(client);
      log('database connection lost', err);
    });
    client.on('end', () => broken.add(client));
  };
  // Every client, from creation: pg-pool listens only while a client is idle in the pool.
  pool.on('connect', watch);
  pool.on('error', () => {}); // already reported by the client's own listener
  const db = new Kysely<DB>({ dialect: new PgDialect(pool) });

  // Advisory locks belong to a session: one dedicated connection holds them. If it dies, the locks
  // are gone with it, so the next request opens a new one (and another process may win).
  let lockSession: Promise<pg.Client> | null = null;
  const lockClient = (): Promise<pg.Client> => {
    if (lockSession) return lockSession;
    const client = new pg.Client({ connectionString: url, keepAlive: true, connectionTimeoutMillis: 5000 });
    watch(client);
    const forget = () => {
      if (lockSession === opening) lockSession = null;
    };
    client.on('error', forget);
    client.on('end', forget);
    const opening: Promise<pg.Client> = client.connect().then(
      () => client,
      (err: unknown) => {
        forget();
        void client.end().catch(() => {});
        throw new DatabaseUnavailableError(err);
      },
    );
    lockSession = opening;
    return opening;
  };
  // One query at a time on the lock session: node-postgres queues a query sent while another is
  // running, but warns that it will stop doing so (pg 9), so the turns are taken here.
  let lockTurn: Promise<unknown> = Promise.resolve();
  const lockQuery = (text: string, name: string): Promise<boolean> => {
    const run = lockTurn.then(async () => {
      const client = await lockClient();
      try {
        const r = await client.query<{ ok: boolean }>(text, [name]);
        return r.rows[0]?.ok === true;
      } catch (err) {
        void client.end().catch(() => {});
        throw classify(err, client);
      }
    });
    lockTurn = run.catch(() => {});
    return run;
  };
  const local = new LocalLocks();

  return {
    db,
    kind: 'postgres',
    write: (fn) => db.transaction().execute(fn),
    relaxedWrite: (fn) =>
      db.transaction().execute(async (trx) => {
        await sql`set local synchronous_commit = off`.execute(trx);
        return fn(trx);
      }),
    forUpdate: (qb) => qb.forUpdate() as typeof qb,
    skipLocked: (qb) => qb.forUpdate().skipLocked() as typeof qb,
    async transactionLock(trx, name) {
      await sql`select pg_advisory_xact_lock(hashtext(${name}))`.execute(trx);
    },
    async tryAdvisoryLock(name: string) {
      try {
        return await lockQuery('select pg_try_advisory_lock(hashtext($1)) as ok', name);
      } catch {
        return false;
      }
    },
    async withLock(name, waitMs, fn) {
      const releaseLocal = await local.acquire(name);
      try {
        const deadline = Date.now() + waitMs;
        for (;;) {
          if (await lockQuery('select pg_try_advisory_lock(hashtext($1)) as ok', name)) break;
          if (Date.now() >= deadline) return null;
          await new Promise((r) => setTimeout(r, 25));
        }
        try {
          return { value: await fn() };
        } finally {
          await lockQuery('select pg_advisory_unlock(hashtext($1)) as ok', name).catch(() => {});
        }
      } finally {
        releaseLocal();
      }
    },
    isUniqueViolation: (err) => codeOf(err) === '23505',
    poolUsage: (): PoolUsage => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: pool.options.max }),
    async close() {
      // Release the locks now rather than whenever the server notices the session is gone.
      const session = lockSession;
      lockSession = null;
      if (session) await session.then((c) => c.end(), () => {}).catch(() => {});
      await db.destroy();
    },
  };
}
