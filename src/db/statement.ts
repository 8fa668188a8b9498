// Statements on the write paths (a payment's transfer, ledger entry, invoice update and webhook) run
// thousands of times a second inside transactions. Building and compiling each with Kysely costs
// more than SQLite takes to run it, so a statement is compiled once per storage and afterwards only
// its values are swapped. The hot read paths (invoice info, payer polls) use it too. The values are
// named and may be of any type, and the statement runs on whatever it is given: the database or an
// open transaction.
import { CompiledQuery, PostgresAdapter, type Compilable, type DialectAdapter, type Kysely, type QueryResult, type SelectQueryBuilder } from 'kysely';
import type { DB } from './schema.ts';

const SENTINEL = '\u0000satchel-value-';

interface Shape {
  sql: string;
  /** Per parameter: the name of the value that goes there, or null for a constant. */
  slots: Array<string | null>;
  constants: unknown[];
}

export type Statement<P, R> = (db: Kysely<DB>, values: P) => Promise<QueryResult<R>>;

/**
 * Runs a statement without Kysely's connection hand-over when the database allows it (SQLite, whose
 * calls are synchronous: see `runDirect` in sqlite.ts), or answers null. The hand-over costs
 * several promise turns, more than a primary-key read itself.
 */
export type DirectRunner = (sql: string, params: readonly unknown[]) => Promise<QueryResult<unknown>> | null;
const direct = new WeakMap<Kysely<DB>, DirectRunner>();

/** Called by a storage whose statements can run at once (see `DirectRunner`). */
export function registerDirectRunner(db: Kysely<DB>, run: DirectRunner): void {
  direct.set(db, run);
}

/** What a statement may say that only one of the databases understands. */
export interface StatementDialect {
  /** Adds FOR UPDATE on PostgreSQL; on SQLite the transaction already holds the write lock. */
  forUpdate<QB extends SelectQueryBuilder<any, any, any>>(qb: QB): QB;
}
const POSTGRES: StatementDialect = { forUpdate: (qb) => qb.forUpdate() as typeof qb };
const SQLITE: StatementDialect = { forUpdate: (qb) => qb };

/**
 * `build` receives stand-ins for the values (each property of `p` is a placeholder) and returns
 * the query; the placeholders must be used only as values (not as table or column names, not in
 * lists whose length varies). `dialect` says what only one of the databases understands
 * (`for update`). `db` may be a transaction.
 */
export function statement<P extends object, R = unknown>(build: (db: Kysely<DB>, p: P, dialect: StatementDialect) => Compilable<R>): Statement<P, R> {
  // One shape per database (its dialect's adapter: a transaction shares its database's).
  const shapes = new WeakMap<DialectAdapter, Shape>();
  const stand = new Proxy({} as P, { get: (_t, name) => `${SENTINEL}${String(name)}` });
  return (db, values) => {
    try {
      return run(db, values);
    } catch (e) {
      return Promise.reject(e);
    }
  };
  function run(db: Kysely<DB>, values: P): Promise<QueryResult<R>> {
    const adapter = db.getExecutor().adapter;
    let shape = shapes.get(adapter);
    if (!shape) {
      const compiled = build(db, stand, adapter instanceof PostgresAdapter ? POSTGRES : SQLITE).compile();
      const constants = [...compiled.parameters];
      const slots = constants.map((c) => (typeof c === 'string' && c.startsWith(SENTINEL) ? c.slice(SENTINEL.length) : null));
      shape = { sql: compiled.sql, slots, constants };
      shapes.set(adapter, shape);
    }
    const v = values as Record<string, unknown>;
    const params = shape.slots.map((name, i) => {
      if (name === null) return shape.constants[i];
      const value = v[name];
      if (value === undefined) throw new Error(`statement: no value for ${name}`);
      return value;
    });
    // A transaction is a different object from its database, so it never takes the direct path.
    const now = direct.get(db)?.(shape.sql, params);
    if (now) return now as Promise<QueryResult<R>>;
    return db.executeQuery<R>(CompiledQuery.raw(shape.sql, params) as CompiledQuery<R>);
  }
}

/** Statements that differ only in which columns they set, each compiled once. */
export function statementsByColumns<P extends object, R = unknown>(
  build: (db: Kysely<DB>, p: P, columns: readonly string[]) => Compilable<R>,
): (db: Kysely<DB>, columns: readonly string[], values: P) => Promise<QueryResult<R>> {
  const byColumns = new Map<string, Statement<P, R>>();
  return (db, columns, values) => {
    const key = columns.join(',');
    let s = byColumns.get(key);
    if (!s) {
      const fixed = [...columns];
      s = statement<P, R>((d, p) => build(d, p, fixed));
      byColumns.set(key, s);
    }
    return s(db, values);
  };
}

/** The sizes a list of values is cut into for `statementsBySize`. */
const SIZES = [64, 16, 4, 1];

/** How a list of `n` values is cut: as few statements as the fixed sizes allow. */
export function sizedChunks(n: number): number[] {
  const out: number[] = [];
  for (const size of SIZES) while (n >= size) {
    out.push(size);
    n -= size;
  }
  return out;
}

/**
 * Statements over a list of values whose length varies (many rows in one insert, `in (...)`): a
 * list is cut into chunks of fixed sizes (`sizedChunks`), and each size is compiled once. `build`
 * names the values of the k-th item with a suffix (`id0`, `id1`, ...).
 */
export function statementsBySize<R = unknown>(
  build: (db: Kysely<DB>, p: Record<string, any>, size: number) => Compilable<R>,
): (db: Kysely<DB>, size: number, values: Record<string, unknown>) => Promise<QueryResult<R>> {
  const bySize = new Map<number, Statement<Record<string, unknown>, R>>();
  return (db, size, values) => {
    let s = bySize.get(size);
    if (!s) {
      s = statement<Record<string, unknown>, R>((d, p) => build(d, p, size));
      bySize.set(size, s);
    }
    return s(db, values);
  };
}
